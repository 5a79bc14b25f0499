// Graphviz drawings of (expanded) graph configs for `sluice viz`.
#ifndef SLUICE_TOOLS_GRAPH_DOT_H_
#define SLUICE_TOOLS_GRAPH_DOT_H_

#include <string>

#include "absl/status/status.h"
#include "proto/calculator.pb.h"

namespace sluice::cli {

// DOT text: one box per node, one ellipse per graph input/output stream, one
// edge per stream connection (dashed for back edges), labelled by stream name.
std::string GraphToDot(const mediapipe::CalculatorGraphConfig& config);

// Writes `path`: .dot as text; .svg/.png rendered by Graphviz's `dot`.
absl::Status WriteGraphDrawing(const mediapipe::CalculatorGraphConfig& config,
                               const std::string& path);

}  // namespace sluice::cli

#endif  // SLUICE_TOOLS_GRAPH_DOT_H_
