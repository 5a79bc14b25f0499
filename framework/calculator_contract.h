// CalculatorContract: what a calculator declares in GetContract (port types, handler, offset, services).
#ifndef SLUICE_FRAMEWORK_CALCULATOR_CONTRACT_H_
#define SLUICE_FRAMEWORK_CALCULATOR_CONTRACT_H_

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/graph_service.h"
#include "framework/node_options.h"
#include "framework/packet_type.h"
#include "framework/timestamp.h"
#include "proto/calculator.pb.h"
#include "proto/mediapipe_options.pb.h"

namespace sluice {

class CalculatorContract {
 public:
  struct ServiceRequest {
    const GraphServiceBase* service = nullptr;
    bool optional = false;
    ServiceRequest& Optional() {
      optional = true;
      return *this;
    }
  };

  // Built by the framework from a node config (ports from its stream lists).
  CalculatorContract(const mediapipe::CalculatorGraphConfig::Node* node, std::string node_name,
                     std::shared_ptr<const PortMap> inputs, std::shared_ptr<const PortMap> outputs,
                     std::shared_ptr<const PortMap> input_side,
                     std::shared_ptr<const PortMap> output_side,
                     std::shared_ptr<NodeOptions> options);

  PacketTypeSet& Inputs() { return inputs_; }
  PacketTypeSet& Outputs() { return outputs_; }
  PacketTypeSet& InputSidePackets() { return input_side_; }
  PacketTypeSet& OutputSidePackets() { return output_side_; }
  const PacketTypeSet& Inputs() const { return inputs_; }
  const PacketTypeSet& Outputs() const { return outputs_; }
  const PacketTypeSet& InputSidePackets() const { return input_side_; }
  const PacketTypeSet& OutputSidePackets() const { return output_side_; }

  template <typename T>
  const T& Options() const {
    return options_->Get<T>();
  }
  const mediapipe::CalculatorGraphConfig::Node& GetNodeConfig() const { return *node_; }
  const std::string& GetNodeName() const { return node_name_; }

  // Outputs will carry timestamps >= input timestamp + offset; lets the
  // framework propagate timestamp bounds for this node.
  void SetTimestampOffset(TimestampDiff offset) { offset_ = offset; }
  void SetTimestampOffset(int64_t offset) { offset_ = TimestampDiff(offset); }
  TimestampDiff GetTimestampOffset() const { return offset_; }

  void SetInputStreamHandler(const std::string& name) { handler_ = name; }
  void SetInputStreamHandlerOptions(const mediapipe::MediaPipeOptions& options) {
    handler_options_ = options;
  }
  const std::string& GetInputStreamHandler() const { return handler_; }
  const mediapipe::MediaPipeOptions& GetInputStreamHandlerOptions() const {
    return handler_options_;
  }

  // Process() is also called for settled timestamps without packets.
  void SetProcessTimestampBounds(bool on) { process_bounds_ = on; }
  bool GetProcessTimestampBounds() const { return process_bounds_; }

  ServiceRequest& UseService(const GraphServiceBase& service);
  const std::deque<ServiceRequest>& ServiceRequests() const { return services_; }

 private:
  const mediapipe::CalculatorGraphConfig::Node* node_;
  std::string node_name_;
  PacketTypeSet inputs_, outputs_, input_side_, output_side_;
  std::shared_ptr<NodeOptions> options_;
  TimestampDiff offset_ = TimestampDiff::Unset();
  std::string handler_;
  mediapipe::MediaPipeOptions handler_options_;
  bool process_bounds_ = false;
  std::deque<ServiceRequest> services_;
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_CALCULATOR_CONTRACT_H_
