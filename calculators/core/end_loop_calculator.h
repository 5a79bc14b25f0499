// EndLoopCalculator<IterableT>: closes a BeginLoopCalculator loop. Collects the
// ITEM packets of one batch and, at the BATCH_END packet, outputs them as one
// collection on ITERABLE at the original input timestamp. A batch without
// items outputs nothing (only a timestamp bound): no empty collection is ever
// emitted.
//
//   node {
//     calculator: "EndLoopNormalizedRectCalculator"
//     input_stream: "ITEM:rect"  input_stream: "BATCH_END:rects_timestamp"
//     output_stream: "ITERABLE:rects_out"
//   }
//
// Registering another collection type is one line (at namespace scope):
//   SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopDetectionCalculator,
//                                       std::vector<mediapipe::Detection>);
#ifndef SLUICE_CALCULATORS_CORE_END_LOOP_CALCULATOR_H_
#define SLUICE_CALCULATORS_CORE_END_LOOP_CALCULATOR_H_

#include <memory>
#include <type_traits>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

class EndLoopCalculatorBase : public CalculatorBase {
 public:
  // Checks and declares BATCH_END; the caller declares ITEM and ITERABLE.
  static absl::Status DeclarePorts(CalculatorContract* cc);

 protected:
  // The input timestamp whose batch ends now, if the BATCH_END packet is here.
  static bool BatchEnds(CalculatorContext* cc, Timestamp* input_ts);
  // Nothing to emit for a batch: only settle its timestamp.
  static void EmitNothing(CalculatorContext* cc, Timestamp input_ts);
};

template <typename IterableT>
class EndLoopCalculator : public EndLoopCalculatorBase {
  using ItemT = typename IterableT::value_type;

 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    absl::Status s = DeclarePorts(cc);
    if (!s.ok()) return s;
    cc->Inputs().Tag("ITEM").template Set<ItemT>();
    cc->Outputs().Tag("ITERABLE").template Set<IterableT>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& item = cc->Inputs().Tag("ITEM");
    if (!item.IsEmpty()) {
      if constexpr (!std::is_copy_constructible_v<ItemT>) {
        return absl::UnimplementedError("EndLoopCalculator: item type is not copyable");
      } else {
        if (!collection_) collection_ = std::make_unique<IterableT>();
        collection_->push_back(item.template Get<ItemT>());
      }
    }
    Timestamp input_ts;
    if (BatchEnds(cc, &input_ts)) {
      if (collection_) {
        cc->Outputs().Tag("ITERABLE").Add(collection_.release(), input_ts);
      } else {
        EmitNothing(cc, input_ts);
      }
    }
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<IterableT> collection_;
};

}  // namespace sluice

#define SLUICE_REGISTER_END_LOOP_CALCULATOR(Name, IterableT) \
  using Name = ::sluice::EndLoopCalculator<IterableT>;       \
  REGISTER_CALCULATOR(Name)

#endif  // SLUICE_CALCULATORS_CORE_END_LOOP_CALCULATOR_H_
