// ClipVectorSizeCalculator<T>: keeps the first `max_vec_size` elements of a
// std::vector<T> (option, default 1, or the optional int input side packet at
// index 0). MediaPipe keeps this family in calculators/core.
//
//   node {
//     calculator: "ClipDetectionVectorSizeCalculator"
//     input_stream: "all_palm_detections"
//     input_side_packet: "num_hands"
//     output_stream: "palm_detections"
//   }
#ifndef SLUICE_CALCULATORS_UTIL_CLIP_VECTOR_SIZE_CALCULATOR_H_
#define SLUICE_CALCULATORS_UTIL_CLIP_VECTOR_SIZE_CALCULATOR_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

class ClipVectorSizeBase : public CalculatorBase {
 public:
  static absl::Status DeclarePorts(CalculatorContract* cc);
  absl::Status Open(CalculatorContext* cc) override;

 protected:
  int max_vec_size_ = 1;
};

template <typename T>
class ClipVectorSizeCalculator : public ClipVectorSizeBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    absl::Status s = DeclarePorts(cc);
    if (!s.ok()) return s;
    cc->Inputs().Index(0).template Set<std::vector<T>>();
    cc->Outputs().Index(0).template Set<std::vector<T>>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Index(0).IsEmpty()) return absl::OkStatus();
    static_assert(std::is_copy_constructible_v<T>, "ClipVectorSizeCalculator copies elements");
    const auto& in = cc->Inputs().Index(0).template Get<std::vector<T>>();
    const size_t n = std::min(in.size(), static_cast<size_t>(max_vec_size_));
    cc->Outputs().Index(0).Add(new std::vector<T>(in.begin(), in.begin() + n),
                               cc->InputTimestamp());
    return absl::OkStatus();
  }
};

}  // namespace sluice

#define SLUICE_REGISTER_CLIP_VECTOR_SIZE_CALCULATOR(Name, T) \
  using Name = ::sluice::ClipVectorSizeCalculator<T>;       \
  REGISTER_CALCULATOR(Name)

#endif  // SLUICE_CALCULATORS_UTIL_CLIP_VECTOR_SIZE_CALCULATOR_H_
