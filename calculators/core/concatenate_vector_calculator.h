// ConcatenateVectorCalculator<T>: concatenates, at each timestamp, the packets
// of its untagged inputs (each a T or a std::vector<T>) into one
// std::vector<T>, in input order; empty inputs contribute nothing.
//
//   node {
//     calculator: "ConcatenateFloatVectorCalculator"
//     input_stream: "scores_a"  input_stream: "scores_b"
//     output_stream: "all_scores"
//     node_options: {   # optional
//       [type.googleapis.com/mediapipe.ConcatenateVectorCalculatorOptions] {
//         only_emit_if_all_present: true
//       }
//     }
//   }
//
// Registering another element type is one line (at namespace scope):
//   SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(ConcatenateDetectionVectorCalculator,
//                                                 mediapipe::Detection);
#ifndef SLUICE_CALCULATORS_CORE_CONCATENATE_VECTOR_CALCULATOR_H_
#define SLUICE_CALCULATORS_CORE_CONCATENATE_VECTOR_CALCULATOR_H_

#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

// The type-independent part (kept out of the template).
class ConcatenateVectorCalculatorBase : public CalculatorBase {
 public:
  // Checks the ports; the caller then declares their types.
  static absl::Status CheckPorts(CalculatorContract* cc);
  absl::Status Open(CalculatorContext* cc) override;

 protected:
  // True when this timestamp must produce no output.
  bool SkipTimestamp(const CalculatorContext* cc) const;

 private:
  bool only_emit_if_all_present_ = false;
};

template <typename T>
class ConcatenateVectorCalculator : public ConcatenateVectorCalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    absl::Status s = CheckPorts(cc);
    if (!s.ok()) return s;
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
      cc->Inputs().Get("", i).template SetOneOf<T, std::vector<T>>();
    }
    cc->Outputs().Index(0).template Set<std::vector<T>>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (SkipTimestamp(cc)) return absl::OkStatus();
    if constexpr (!std::is_copy_constructible_v<T>) {
      return absl::UnimplementedError(
          "ConcatenateVectorCalculator: element type is not copyable");
    } else {
      auto* out = new std::vector<T>();
      for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
        const Packet& p = cc->Inputs().Get("", i).Value();
        if (p.IsEmpty()) continue;
        if (*p.Type() == typeid(T)) {
          out->push_back(p.Get<T>());
        } else {
          const auto& v = p.Get<std::vector<T>>();
          out->insert(out->end(), v.begin(), v.end());
        }
      }
      cc->Outputs().Index(0).Add(out, cc->InputTimestamp());
      return absl::OkStatus();
    }
  }
};

}  // namespace sluice

#define SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(Name, T) \
  using Name = ::sluice::ConcatenateVectorCalculator<T>;       \
  REGISTER_CALCULATOR(Name)

#endif  // SLUICE_CALCULATORS_CORE_CONCATENATE_VECTOR_CALCULATOR_H_
