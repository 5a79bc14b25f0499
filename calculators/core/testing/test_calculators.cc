// Calculators used by the framework's documented example graphs and by tests
// (MediaPipe defines them in its own test files). Not for production graphs.
//
// GlobalCountSourceCalculator: source node; input side packet 0 is a shared
//   counter (std::atomic<int>* as in MediaPipe, or
//   std::shared_ptr<std::atomic<int>>). Emits kNumOutputPackets = 5 packets at
//   timestamps 0..4, each the counter's value before a fetch_add(1). An
//   optional bool side packet 1 = true emits the first one already in Open.
// IntAdderCalculator: sums the int packets of all inputs at each timestamp.
// UnitDelayCalculator: emits 0 at timestamp 0 in Open, then each input packet
//   one timestamp later.
#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

class GlobalCountSourceCalculator : public CalculatorBase {
 public:
  static constexpr int kNumOutputPackets = 5;

  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->InputSidePackets().NumEntries("") < 1 || cc->Outputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(
          "GlobalCountSourceCalculator needs a counter input side packet and one output stream");
    }
    cc->InputSidePackets().Index(0).SetOneOf<std::atomic<int>*, std::shared_ptr<std::atomic<int>>>();
    if (cc->InputSidePackets().NumEntries("") >= 2) cc->InputSidePackets().Index(1).Set<bool>();
    cc->Outputs().Index(0).Set<int>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const Packet& p = cc->InputSidePackets().Index(0);
    if (p.ValidateAsType<std::atomic<int>*>().ok()) {
      counter_ = p.Get<std::atomic<int>*>();
    } else {
      counter_ = p.Get<std::shared_ptr<std::atomic<int>>>().get();
    }
    if (counter_ == nullptr) {
      return absl::InvalidArgumentError("GlobalCountSourceCalculator: the counter is null");
    }
    if (cc->InputSidePackets().NumEntries("") >= 2 &&
        cc->InputSidePackets().Index(1).Get<bool>()) {
      EmitOne(cc);
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    EmitOne(cc);
    return emitted_ >= kNumOutputPackets ? StatusStop() : absl::OkStatus();
  }

 private:
  void EmitOne(CalculatorContext* cc) {
    const int value = counter_->fetch_add(1, std::memory_order_relaxed);
    cc->Outputs().Index(0).Add(new int(value), Timestamp(emitted_));
    ++emitted_;
  }

  std::atomic<int>* counter_ = nullptr;
  int64_t emitted_ = 0;
};
REGISTER_CALCULATOR(GlobalCountSourceCalculator);

class IntAdderCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->Outputs().NumEntries() != 1) {
      return absl::InvalidArgumentError("IntAdderCalculator needs exactly one output stream");
    }
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) cc->Inputs().Get(i).Set<int>();
    cc->Outputs().Get(0).Set<int>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    int sum = 0;
    for (const InputStreamShard& in : cc->Inputs()) {
      if (!in.IsEmpty()) sum += in.Get<int>();
    }
    cc->Outputs().Get(0).Add(new int(sum), cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(IntAdderCalculator);

class UnitDelayCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->Inputs().NumEntries() != 1 || cc->Outputs().NumEntries() != 1) {
      return absl::InvalidArgumentError(
          "UnitDelayCalculator needs exactly one input and one output stream");
    }
    cc->Inputs().Get(0).Set<int>();
    cc->Outputs().Get(0).Set<int>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->Outputs().Get(0).Add(new int(0), Timestamp(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Packet& p = cc->Inputs().Get(0).Value();
    cc->Outputs().Get(0).AddPacket(p.At(p.Timestamp().NextAllowedInStream()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(UnitDelayCalculator);

}  // namespace sluice
