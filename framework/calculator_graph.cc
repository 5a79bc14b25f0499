#include "framework/calculator_graph.h"

#include "framework/graph_internal.h"

namespace sluice {

CalculatorGraph::CalculatorGraph() : impl_(std::make_unique<internal::GraphImpl>()) {}
CalculatorGraph::~CalculatorGraph() = default;

absl::Status CalculatorGraph::Initialize(const mediapipe::CalculatorGraphConfig& config) {
  return impl_->Initialize(config, {});
}
absl::Status CalculatorGraph::Initialize(const mediapipe::CalculatorGraphConfig& config,
                                         const SidePackets& side_packets) {
  return impl_->Initialize(config, side_packets);
}
const mediapipe::CalculatorGraphConfig& CalculatorGraph::Config() const { return impl_->config_; }

absl::Status CalculatorGraph::ObserveOutputStream(
    const std::string& name, std::function<absl::Status(const Packet&)> callback,
    bool observe_timestamp_bounds) {
  return impl_->Observe(name, internal::StreamObserver{std::move(callback), observe_timestamp_bounds});
}

absl::StatusOr<OutputStreamPoller> CalculatorGraph::AddOutputStreamPoller(
    const std::string& name, bool observe_timestamp_bounds) {
  auto q = impl_->AddPoller(name, observe_timestamp_bounds);
  if (!q.ok()) return q.status();
  return OutputStreamPoller(*q);
}

absl::StatusOr<Packet> CalculatorGraph::GetOutputSidePacket(const std::string& name) {
  return impl_->GetSidePacket(name);
}

absl::Status CalculatorGraph::Run(const SidePackets& extra_side_packets) {
  absl::Status s = StartRun(extra_side_packets);
  if (!s.ok()) return s;
  s = CloseAllInputStreams();
  absl::Status done = WaitUntilDone();
  return done.ok() ? s : done;
}

absl::Status CalculatorGraph::StartRun(const SidePackets& extra_side_packets) {
  return impl_->StartRun(extra_side_packets);
}
absl::Status CalculatorGraph::WaitUntilIdle() { return impl_->WaitUntilIdle(); }
absl::Status CalculatorGraph::WaitUntilDone() { return impl_->WaitUntilDone(); }
bool CalculatorGraph::HasError() const { return impl_->stopping() && !impl_->GraphStatus().ok(); }

absl::Status CalculatorGraph::AddPacketToInputStream(const std::string& name, const Packet& packet) {
  return impl_->AddPacket(name, packet);
}
absl::Status CalculatorGraph::AddPacketToInputStream(const std::string& name, Packet&& packet) {
  return impl_->AddPacket(name, std::move(packet));
}
absl::Status CalculatorGraph::SetInputStreamTimestampBound(const std::string& name,
                                                           Timestamp bound) {
  return impl_->SetInputBound(name, bound);
}
absl::Status CalculatorGraph::SetInputStreamMaxQueueSize(const std::string& name,
                                                         int max_queue_size) {
  return impl_->SetInputMaxQueueSize(name, max_queue_size);
}
bool CalculatorGraph::HasInputStream(const std::string& name) const {
  return impl_->HasInput(name);
}
absl::Status CalculatorGraph::CloseInputStream(const std::string& name) {
  return impl_->CloseInput(name);
}
absl::Status CalculatorGraph::CloseAllInputStreams() { return impl_->CloseAllInputs(); }
absl::Status CalculatorGraph::CloseAllPacketSources() { return impl_->CloseAllPacketSources(); }
void CalculatorGraph::Cancel() { impl_->Cancel(); }

void CalculatorGraph::SetGraphInputStreamAddMode(GraphInputStreamAddMode mode) {
  impl_->add_mode_ = mode;
}
void CalculatorGraph::SetErrorCallback(std::function<void(const absl::Status&)> callback) {
  impl_->error_callback_ = std::move(callback);
}
absl::Status CalculatorGraph::SetExecutor(const std::string& name,
                                          std::shared_ptr<Executor> executor) {
  if (executor == nullptr) return absl::InvalidArgumentError("SetExecutor: null executor");
  if (name.rfind("__", 0) == 0) {
    return absl::InvalidArgumentError("Executor names starting with \"__\" are reserved");
  }
  if (impl_->initialized()) {
    return absl::FailedPreconditionError("SetExecutor must be called before Initialize");
  }
  impl_->custom_executors_[name] = std::move(executor);
  return absl::OkStatus();
}

absl::Status CalculatorGraph::SetServiceObjectInternal(const std::string& key,
                                                       std::shared_ptr<void> obj) {
  if (impl_->running()) {
    return absl::FailedPreconditionError("SetServiceObject must be called before StartRun");
  }
  impl_->services_.Set(key, std::move(obj));
  return absl::OkStatus();
}
std::shared_ptr<void> CalculatorGraph::GetServiceObjectInternal(const std::string& key) const {
  return impl_->FindService(key);
}

void CalculatorGraph::EnableTracing() { impl_->EnableTracing(); }
Tracer* CalculatorGraph::tracer() { return impl_->tracer(); }

}  // namespace sluice
