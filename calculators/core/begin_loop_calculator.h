// BeginLoopCalculator<IterableT>: starts a "for each" over a collection. Each
// element of the ITERABLE input goes out on ITEM at its own loop timestamp
// (an internal counter that keeps increasing across inputs and is unrelated
// to input timestamps); CLONE:i inputs are copied to CLONE:i outputs at every
// loop timestamp; BATCH_END carries the input timestamp, stamped at the last
// loop timestamp of the batch, for EndLoopCalculator to close the loop.
//
//   node {
//     calculator: "BeginLoopNormalizedRectCalculator"
//     input_stream: "ITERABLE:rects"  input_stream: "CLONE:image"
//     output_stream: "ITEM:rect"      output_stream: "CLONE:image_per_rect"
//     output_stream: "BATCH_END:rects_timestamp"
//   }
//
// Registering another collection type is one line (at namespace scope):
//   SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopDetectionCalculator,
//                                         std::vector<mediapipe::Detection>);
#ifndef SLUICE_CALCULATORS_CORE_BEGIN_LOOP_CALCULATOR_H_
#define SLUICE_CALCULATORS_CORE_BEGIN_LOOP_CALCULATOR_H_

#include <type_traits>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

// The type-independent part: ports, loop timestamps, clones, batch end.
class BeginLoopCalculatorBase : public CalculatorBase {
 public:
  // Checks and declares every port but ITERABLE and ITEM.
  static absl::Status DeclarePorts(CalculatorContract* cc);

 protected:
  // Emits the CLONE packets at the current loop timestamp and advances it.
  void NextItem(CalculatorContext* cc);
  Timestamp loop_ts() const { return loop_ts_; }
  // Ends the batch started when the loop timestamp was `batch_start`.
  void EndBatch(CalculatorContext* cc, Timestamp batch_start);

 private:
  Timestamp loop_ts_ = Timestamp(0);
};

template <typename IterableT>
class BeginLoopCalculator : public BeginLoopCalculatorBase {
  using ItemT = typename IterableT::value_type;

 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    absl::Status s = DeclarePorts(cc);
    if (!s.ok()) return s;
    cc->Inputs().Tag("ITERABLE").template Set<IterableT>();
    cc->Outputs().Tag("ITEM").template Set<ItemT>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Timestamp batch_start = loop_ts();
    const Packet& iterable = cc->Inputs().Tag("ITERABLE").Value();
    if (!iterable.IsEmpty()) {
      for (const ItemT& item : iterable.Get<IterableT>()) {
        if constexpr (std::is_arithmetic_v<ItemT>) {
          cc->Outputs().Tag("ITEM").AddPacket(MakePacket<ItemT>(item).At(loop_ts()));
        } else {
          // No copy: the item packet points into the collection and keeps
          // the collection's packet alive.
          cc->Outputs().Tag("ITEM").AddPacket(
              PointToForeign(&item, [keep = iterable]() {}).At(loop_ts()));
        }
        NextItem(cc);
      }
    }
    EndBatch(cc, batch_start);
    return absl::OkStatus();
  }
};

}  // namespace sluice

#define SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(Name, IterableT) \
  using Name = ::sluice::BeginLoopCalculator<IterableT>;       \
  REGISTER_CALCULATOR(Name)

#endif  // SLUICE_CALCULATORS_CORE_BEGIN_LOOP_CALCULATOR_H_
