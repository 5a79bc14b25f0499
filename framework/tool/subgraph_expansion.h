// MediaPipe's subgraph expansion (MEDIAPIPE_FACTS §2.4): replaces every node
// whose calculator names a registered subgraph by the subgraph's nodes, with
// MediaPipe's node and stream names, until none is left. Names that are not
// registered subgraphs are treated as calculators.
#ifndef SLUICE_FRAMEWORK_TOOL_SUBGRAPH_EXPANSION_H_
#define SLUICE_FRAMEWORK_TOOL_SUBGRAPH_EXPANSION_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/tool/subgraph_registry.h"
#include "proto/calculator.pb.h"

namespace sluice {

// `name` if set, else `calculator`; "<base>_<n>" (n = 1-based occurrence) if
// several nodes of `config` share that base.
std::string CanonicalNodeName(const mediapipe::CalculatorGraphConfig& config,
                              int node_index);

struct ExpansionOptions {
  // Options of the node that instantiates `config` itself (graph options for
  // the top level); MediaPipe uses an empty node.
  mediapipe::CalculatorGraphConfig::Node parent_node;
  // option_value entries skipped because an options type is not linked.
  std::vector<std::string>* warnings = nullptr;
  // Backstops besides the self-containment check (which catches recursion
  // through registered configs): nesting levels and total node count.
  int max_depth = 64;
  int max_nodes = 200000;
};

absl::Status ExpandSubgraphs(mediapipe::CalculatorGraphConfig* config,
                             const SubgraphRegistry& registry = SubgraphRegistry::Get());
absl::Status ExpandSubgraphs(mediapipe::CalculatorGraphConfig* config,
                             const SubgraphRegistry& registry,
                             const ExpansionOptions& options);

// Prefix used for the nodes and streams of subgraph node `node_name`:
// lower-cased, '.', ' ', ':' replaced by '_', plus "__".
std::string SubgraphPrefix(const std::string& node_name);

// A graph holding only `node`, whose interface lists are the node's own (for
// C++ subgraphs that expand to one implementation node, like MediaPipe's
// InferenceCalculator selector).
mediapipe::CalculatorGraphConfig MakeSingleNodeGraph(
    mediapipe::CalculatorGraphConfig::Node node);

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TOOL_SUBGRAPH_EXPANSION_H_
