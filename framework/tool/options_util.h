// Reading calculator / graph options and applying `option_value` the way
// MediaPipe does (MEDIAPIPE_FACTS §1.5, §2.6).
#ifndef SLUICE_FRAMEWORK_TOOL_OPTIONS_UTIL_H_
#define SLUICE_FRAMEWORK_TOOL_OPTIONS_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "proto/calculator.pb.h"

namespace sluice {

// MediaPipe's cc->Options<T>() rule: the proto2 `options` extension whose type
// is out's type if present; else the last `node_options` Any of that type
// (each Any replaces the previous one, as Any::UnpackTo does); else `out` is
// cleared (defaults). Errors only for a corrupt Any payload.
absl::Status GetNodeOptions(const mediapipe::CalculatorGraphConfig::Node& node,
                            google::protobuf::Message* out);

template <class T>
absl::StatusOr<T> GetNodeOptions(const mediapipe::CalculatorGraphConfig::Node& node) {
  T result;
  absl::Status status = GetNodeOptions(node, &result);
  if (!status.ok()) return status;
  return result;
}

// True if the node carries options of out's type in either encoding.
bool HasNodeOptions(const mediapipe::CalculatorGraphConfig::Node& node,
                    const google::protobuf::Descriptor* type);

// Same rule for a graph: the `options` (MediaPipeOptions) extension of out's
// type, else the last `graph_options` Any of that type, else defaults.
absl::Status GetGraphOptions(const mediapipe::CalculatorGraphConfig& config,
                             google::protobuf::Message* out);

template <class T>
absl::StatusOr<T> GetGraphOptions(const mediapipe::CalculatorGraphConfig& config) {
  T result;
  absl::Status status = GetGraphOptions(config, &result);
  if (!status.ok()) return status;
  return result;
}

// Stores `options` as the node's `node_options` Any of that type (replacing
// one of the same type, else appending), as MediaPipe's SetNodeOptions.
void SetNodeOptions(const google::protobuf::Message& options,
                    mediapipe::CalculatorGraphConfig::Node* node);

// MediaPipe's DefineGraphOptions: for every node of `config` with
// `option_value: "NODE_PATH:GRAPH_PATH"` entries, reads the graph options
// (config's `options`/`graph_options` defaults merged with the same-typed
// options of `parent_node`, parent wins) at GRAPH_PATH and copies them into the
// node's options at NODE_PATH. Paths are '/'-separated field names with an
// optional leading "OPTIONS"/"options", numeric components selecting an index
// and "Ext::pkg.Type" components selecting an extension type. Afterwards the
// node's options live in `node_options` (its `options` is cleared) and
// `option_value` is cleared.
// Bad paths are errors naming the node and the path. Entries that cannot be
// applied because an options type is not linked into this binary are skipped
// and reported in `warnings` (if given).
absl::Status ApplyOptionValues(const mediapipe::CalculatorGraphConfig::Node& parent_node,
                               mediapipe::CalculatorGraphConfig* config,
                               std::vector<std::string>* warnings = nullptr);

// "type.googleapis.com/" + full name.
std::string TypeUrlFor(const google::protobuf::Descriptor* type);

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TOOL_OPTIONS_UTIL_H_
