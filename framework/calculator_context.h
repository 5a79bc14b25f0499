// CalculatorContext: what a calculator sees in Open/Process/Close (inputs, outputs, side packets, ...).
#ifndef SLUICE_FRAMEWORK_CALCULATOR_CONTEXT_H_
#define SLUICE_FRAMEWORK_CALCULATOR_CONTEXT_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "framework/collection.h"
#include "framework/graph_service.h"
#include "framework/node_options.h"
#include "framework/packet.h"
#include "framework/packet_type.h"
#include "framework/timestamp.h"

namespace sluice {

namespace internal {
class CalculatorNode;
class OutputStreamManager;
}  // namespace internal

// One input stream as seen by one invocation: the packet at InputTimestamp()
// or an empty packet.
class InputStreamShard {
 public:
  const Packet& Value() const { return packet_; }
  template <typename T>
  const T& Get() const {
    return packet_.Get<T>();
  }
  bool IsEmpty() const { return packet_.IsEmpty(); }
  // True once the stream is closed and drained.
  bool IsDone() const { return done_; }
  const std::string& Name() const;

 private:
  friend class internal::CalculatorNode;
  Packet packet_;
  const std::string* name_ = nullptr;
  bool done_ = false;
};

// One output stream as seen by one invocation; packets are buffered and handed
// to the stream when the invocation returns.
class OutputStreamShard {
 public:
  // Takes ownership of `ptr`.
  template <typename T>
  void Add(T* ptr, Timestamp ts) {
    AddPacket(Adopt(ptr).At(ts));
  }
  void AddPacket(const Packet& packet) { AddPacket(Packet(packet)); }
  void AddPacket(Packet&& packet);
  // Promises no packet below `bound` will follow (smaller values are ignored).
  void SetNextTimestampBound(Timestamp bound);
  Timestamp NextTimestampBound() const { return bound_; }
  void Close();
  bool IsClosed() const { return closed_; }
  const std::string& Name() const;

 private:
  friend class internal::CalculatorNode;
  friend class internal::OutputStreamManager;
  const std::string* name_ = nullptr;
  const PacketType* type_ = nullptr;
  std::vector<Packet> packets_;
  Timestamp bound_ = Timestamp::PreStream();
  bool bound_changed_ = false;
  bool closed_ = false;
  absl::Status error_;
};

// An output side packet slot; Set() at most once per run.
class OutputSidePacket {
 public:
  void Set(const Packet& packet);
  const Packet& Get() const { return packet_; }

 private:
  friend class internal::CalculatorNode;
  Packet packet_;
  const std::string* name_ = nullptr;
  absl::Status error_;
};

using InputStreamShardSet = PortCollection<InputStreamShard>;
using OutputStreamShardSet = PortCollection<OutputStreamShard>;
using PacketSet = PortCollection<Packet>;
using OutputSidePacketSet = PortCollection<OutputSidePacket>;

class CalculatorContext {
 public:
  InputStreamShardSet& Inputs() { return inputs_; }
  const InputStreamShardSet& Inputs() const { return inputs_; }
  OutputStreamShardSet& Outputs() { return outputs_; }
  const OutputStreamShardSet& Outputs() const { return outputs_; }
  const PacketSet& InputSidePackets() const { return *input_side_; }
  OutputSidePacketSet& OutputSidePackets() { return *output_side_; }

  // Timestamp of the current input set (Unstarted in Open, Done in Close).
  Timestamp InputTimestamp() const { return input_ts_; }

  template <typename T>
  const T& Options() const {
    return options_->Get<T>();
  }
  const std::string& NodeName() const;
  const std::string& CalculatorType() const;

  // Only in Open(): all outputs will be >= input timestamp + offset.
  void SetOffset(TimestampDiff offset);
  void SetOffset(int64_t offset) { SetOffset(TimestampDiff(offset)); }

  template <typename T>
  ServiceBinding<T> Service(const GraphService<T>& service) const {
    return ServiceBinding<T>(std::static_pointer_cast<T>(FindService(service.key())));
  }

  // OK while the run is healthy; the first error once a node failed (useful in Close).
  absl::Status GraphStatus() const;

 private:
  friend class internal::CalculatorNode;
  std::shared_ptr<void> FindService(const std::string& key) const;

  internal::CalculatorNode* node_ = nullptr;
  InputStreamShardSet inputs_;
  OutputStreamShardSet outputs_;
  const PacketSet* input_side_ = nullptr;
  OutputSidePacketSet* output_side_ = nullptr;
  std::shared_ptr<NodeOptions> options_;
  Timestamp input_ts_ = Timestamp::Unstarted();
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_CALCULATOR_CONTEXT_H_
