#include "framework/calculator_contract.h"

namespace sluice {

CalculatorContract::CalculatorContract(const mediapipe::CalculatorGraphConfig::Node* node,
                                       std::string node_name,
                                       std::shared_ptr<const PortMap> inputs,
                                       std::shared_ptr<const PortMap> outputs,
                                       std::shared_ptr<const PortMap> input_side,
                                       std::shared_ptr<const PortMap> output_side,
                                       std::shared_ptr<NodeOptions> options)
    : node_(node),
      node_name_(std::move(node_name)),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      input_side_(std::move(input_side)),
      output_side_(std::move(output_side)),
      options_(std::move(options)) {}

CalculatorContract::ServiceRequest& CalculatorContract::UseService(
    const GraphServiceBase& service) {
  for (auto& r : services_) {
    if (r.service->key() == service.key()) return r;
  }
  services_.push_back(ServiceRequest{&service, false});
  return services_.back();
}

}  // namespace sluice
