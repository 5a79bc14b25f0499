// Reading and writing MediaPipe CalculatorGraphConfig files (.pbtxt text and
// .binarypb wire format).
//
// Options of calculators whose message types are not linked into the binary
// never make a file unreadable:
//  * text:   `node_options { [type.googleapis.com/pkg.Unknown] {...} }` and
//            `options { [pkg.Unknown.ext] {...} }` are skipped (there is no
//            schema to encode them with); each skip is reported as a warning.
//  * binary: they stay in the config as opaque bytes (Any.value / unknown
//            extension fields), survive re-serialisation, and are reported.
// Options types that are linked in (any generated *.pb.cc in the binary) parse
// normally.
#ifndef SLUICE_FRAMEWORK_TOOL_GRAPH_CONFIG_IO_H_
#define SLUICE_FRAMEWORK_TOOL_GRAPH_CONFIG_IO_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/calculator.pb.h"

namespace sluice {

// Parses a text-format graph config. Syntax errors read
// "<source_name>:<line>:<col>: <message>". If `warnings` is given, one line
// per skipped (unlinked) options message is appended to it.
absl::StatusOr<mediapipe::CalculatorGraphConfig> ParseGraphConfigText(
    absl::string_view text, absl::string_view source_name = "<text>",
    std::vector<std::string>* warnings = nullptr);

// Parses a binary (wire format) graph config; unlinked options are kept as
// opaque bytes and listed in `warnings`.
absl::StatusOr<mediapipe::CalculatorGraphConfig> ParseGraphConfigBinary(
    absl::string_view bytes, absl::string_view source_name = "<binary>",
    std::vector<std::string>* warnings = nullptr);

// Loads `path`: ".binarypb"/".pb" as wire format, anything else as text.
// NotFound (naming the path) if it cannot be read.
absl::StatusOr<mediapipe::CalculatorGraphConfig> LoadGraphConfigFile(
    const std::string& path, std::vector<std::string>* warnings = nullptr);

// Text format with Any payloads expanded. Options kept as opaque bytes print
// as numbered fields; a comment names the MediaPipe options type where known.
std::string GraphConfigToText(const mediapipe::CalculatorGraphConfig& config);

// Writes `config` to `path`: wire format for ".binarypb"/".pb", else text.
absl::Status WriteGraphConfigFile(const std::string& path,
                                  const mediapipe::CalculatorGraphConfig& config);

// True if a message type of this full name is linked into the binary.
bool IsLinkedMessageType(absl::string_view full_name);

// "type.googleapis.com/pkg.Msg" -> "pkg.Msg" (text after the last '/').
std::string TypeNameFromUrl(absl::string_view type_url);

// MediaPipe options message name for a CalculatorOptions / MediaPipeOptions
// extension number (a fixed table of MediaPipe's options), "" if unknown.
absl::string_view KnownOptionsExtensionName(int number);

// Lists the options in `config` that are held as opaque bytes because their
// types are not linked in (one human-readable line each).
std::vector<std::string> DescribeOpaqueOptions(
    const mediapipe::CalculatorGraphConfig& config);

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TOOL_GRAPH_CONFIG_IO_H_
