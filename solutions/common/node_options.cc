#include "solutions/common/node_options.h"

#include "calculators/tensor/inference_calculator.pb.h"
#include "framework/tool/subgraph_expansion.h"
#include "util/status_macros.h"

namespace sluice {

absl::StatusOr<mediapipe::CalculatorGraphConfig::Node*> FindNode(
    mediapipe::CalculatorGraphConfig* config, const std::string& name, const std::string& graph) {
  for (int i = 0; i < config->node_size(); ++i) {
    if (CanonicalNodeName(*config, i) == name) return config->mutable_node(i);
  }
  return absl::InternalError(absl::StrCat(graph, " graph has no node \"", name, "\""));
}

absl::Status EditInferenceThreads(mediapipe::CalculatorGraphConfig* config, int threads) {
  if (threads <= 0) return absl::OkStatus();
  for (auto& node : *config->mutable_node()) {
    const std::string& calculator = node.calculator();
    if (calculator != "InferenceCalculatorCpu" && calculator != "InferenceCalculator") continue;
    RETURN_IF_ERROR(EditNodeOptions<mediapipe::InferenceCalculatorOptions>(
        &node, [threads](auto* o) {
          o->mutable_delegate()->mutable_xnnpack()->set_num_threads(threads);
        }));
  }
  return absl::OkStatus();
}

}  // namespace sluice
