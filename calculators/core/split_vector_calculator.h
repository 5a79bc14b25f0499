// SplitVectorCalculator<T>: splits the std::vector<T> on its single input into
// ranges [begin, end) given by the options, one output stream per range.
// `element_only` outputs the element itself (ranges of size 1);
// `combine_outputs` concatenates all ranges into the single output.
//
//   node {
//     calculator: "SplitFloatVectorCalculator"
//     input_stream: "scores"
//     output_stream: "head"  output_stream: "tail"
//     node_options: {
//       [type.googleapis.com/mediapipe.SplitVectorCalculatorOptions] {
//         ranges: { begin: 0 end: 1 }
//         ranges: { begin: 1 end: 4 }
//       }
//     }
//   }
//
// Registering another element type is one line (at namespace scope):
//   SLUICE_REGISTER_SPLIT_VECTOR_CALCULATOR(SplitDetectionVectorCalculator,
//                                           mediapipe::Detection);
#ifndef SLUICE_CALCULATORS_CORE_SPLIT_VECTOR_CALCULATOR_H_
#define SLUICE_CALCULATORS_CORE_SPLIT_VECTOR_CALCULATOR_H_

#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

// The type-independent part: option validation and range bookkeeping.
class SplitVectorCalculatorBase : public CalculatorBase {
 public:
  enum class OutputKind { kVector, kElement };
  // Validates ports and options; tells the caller what each output carries.
  static absl::Status CheckContract(CalculatorContract* cc, OutputKind* kind);
  absl::Status Open(CalculatorContext* cc) override;

 protected:
  // An error unless an input of `size` elements covers every range.
  absl::Status CheckInputSize(size_t size) const;

  std::vector<std::pair<int, int>> ranges_;
  int max_end_ = 0;
  int total_ = 0;
  bool element_only_ = false;
  bool combine_outputs_ = false;
};

template <typename T>
class SplitVectorCalculator : public SplitVectorCalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    OutputKind kind;
    absl::Status s = CheckContract(cc, &kind);
    if (!s.ok()) return s;
    cc->Inputs().Index(0).template Set<std::vector<T>>();
    for (int i = 0; i < cc->Outputs().NumEntries(); ++i) {
      if (kind == OutputKind::kElement) {
        cc->Outputs().Index(i).template Set<T>();
      } else {
        cc->Outputs().Index(i).template Set<std::vector<T>>();
      }
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Index(0).IsEmpty()) return absl::OkStatus();
    if constexpr (!std::is_copy_constructible_v<T>) {
      return absl::UnimplementedError("SplitVectorCalculator: element type is not copyable");
    } else {
      const auto& in = cc->Inputs().Index(0).Get<std::vector<T>>();
      absl::Status s = CheckInputSize(in.size());
      if (!s.ok()) return s;
      const Timestamp ts = cc->InputTimestamp();
      if (combine_outputs_) {
        auto* out = new std::vector<T>();
        out->reserve(total_);
        for (const auto& r : ranges_) out->insert(out->end(), in.begin() + r.first, in.begin() + r.second);
        cc->Outputs().Index(0).Add(out, ts);
        return absl::OkStatus();
      }
      for (size_t i = 0; i < ranges_.size(); ++i) {
        const auto& r = ranges_[i];
        if (element_only_) {
          cc->Outputs().Index(static_cast<int>(i)).Add(new T(in[r.first]), ts);
        } else {
          cc->Outputs().Index(static_cast<int>(i))
              .Add(new std::vector<T>(in.begin() + r.first, in.begin() + r.second), ts);
        }
      }
      return absl::OkStatus();
    }
  }
};

}  // namespace sluice

#define SLUICE_REGISTER_SPLIT_VECTOR_CALCULATOR(Name, T) \
  using Name = ::sluice::SplitVectorCalculator<T>;       \
  REGISTER_CALCULATOR(Name)

#endif  // SLUICE_CALCULATORS_CORE_SPLIT_VECTOR_CALCULATOR_H_
