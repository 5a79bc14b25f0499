// CollectionHasMinSizeCalculator<IterableT>: outputs whether the ITERABLE
// input has at least `min_size` elements (option, or the optional int input
// side packet at index 0).
//
//   node {
//     calculator: "NormalizedRectVectorHasMinSizeCalculator"
//     input_stream: "ITERABLE:gated_prev_hand_rects_from_landmarks"
//     input_side_packet: "num_hands"
//     output_stream: "prev_has_enough_hands"    # bool
//   }
#ifndef SLUICE_CALCULATORS_UTIL_COLLECTION_HAS_MIN_SIZE_CALCULATOR_H_
#define SLUICE_CALCULATORS_UTIL_COLLECTION_HAS_MIN_SIZE_CALCULATOR_H_

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

class CollectionHasMinSizeBase : public CalculatorBase {
 public:
  // Declares everything but the ITERABLE type.
  static absl::Status DeclarePorts(CalculatorContract* cc);
  absl::Status Open(CalculatorContext* cc) override;

 protected:
  void Emit(CalculatorContext* cc, size_t size) const;

 private:
  int min_size_ = 0;
};

template <typename IterableT>
class CollectionHasMinSizeCalculator : public CollectionHasMinSizeBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    absl::Status s = DeclarePorts(cc);
    if (!s.ok()) return s;
    cc->Inputs().Tag("ITERABLE").template Set<IterableT>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Tag("ITERABLE");
    if (!in.IsEmpty()) Emit(cc, in.template Get<IterableT>().size());
    return absl::OkStatus();
  }
};

}  // namespace sluice

#endif  // SLUICE_CALCULATORS_UTIL_COLLECTION_HAS_MIN_SIZE_CALCULATOR_H_
