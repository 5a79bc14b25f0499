// Editing the expanded solution graph before it runs: the solution APIs set
// their thresholds and thread counts in node options, addressing nodes by
// MediaPipe's expanded names (as its Python solutions' calculator_params do).
#ifndef SLUICE_SOLUTIONS_COMMON_NODE_OPTIONS_H_
#define SLUICE_SOLUTIONS_COMMON_NODE_OPTIONS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "proto/calculator.pb.h"

namespace sluice {

// The node of `config` whose canonical name is `name`; an InternalError
// "<graph> graph has no node \"<name>\"" when there is none.
absl::StatusOr<mediapipe::CalculatorGraphConfig::Node*> FindNode(
    mediapipe::CalculatorGraphConfig* config, const std::string& name, const std::string& graph);

// Edits the options of type T (a message with a CalculatorOptions extension
// `ext`) of a node: in place when they are in node_options (where
// option_value leaves them: an `options` extension beside them would take
// precedence and hide their other fields), otherwise in the `options`
// extension, created when absent.
template <typename T, typename Edit>
absl::Status EditNodeOptions(mediapipe::CalculatorGraphConfig::Node* node, Edit edit) {
  for (auto& any : *node->mutable_node_options()) {
    if (!any.Is<T>()) continue;
    T options;
    if (!any.UnpackTo(&options)) {
      return absl::InternalError(absl::StrCat("node \"", node->name(), "\": unreadable options"));
    }
    edit(&options);
    any.PackFrom(options);
    return absl::OkStatus();
  }
  edit(node->mutable_options()->MutableExtension(T::ext));
  return absl::OkStatus();
}

// Sets the CPU thread count of every inference node (threads > 0) with
// EditNodeOptions, keeping the model path and delegate option_value put in
// node_options. (SetInferenceThreads writes the `options` extension.)
absl::Status EditInferenceThreads(mediapipe::CalculatorGraphConfig* config, int threads);

}  // namespace sluice

#endif  // SLUICE_SOLUTIONS_COMMON_NODE_OPTIONS_H_
