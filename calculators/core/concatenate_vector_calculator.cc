#include "calculators/core/concatenate_vector_calculator.h"

#include <cstdint>
#include <string>

#include "calculators/core/concatenate_vector_calculator.pb.h"

namespace sluice {

absl::Status ConcatenateVectorCalculatorBase::CheckPorts(CalculatorContract* cc) {
  if (cc->Inputs().NumEntries("") < 1 || cc->Inputs().NumEntries() != cc->Inputs().NumEntries("")) {
    return absl::InvalidArgumentError(
        "ConcatenateVectorCalculator needs one or more untagged input streams, and no tagged "
        "ones");
  }
  if (cc->Outputs().NumEntries("") != 1 || cc->Outputs().NumEntries() != 1) {
    return absl::InvalidArgumentError(
        "ConcatenateVectorCalculator needs exactly one untagged output stream");
  }
  cc->SetTimestampOffset(TimestampDiff(0));
  return absl::OkStatus();
}

absl::Status ConcatenateVectorCalculatorBase::Open(CalculatorContext* cc) {
  only_emit_if_all_present_ =
      cc->Options<mediapipe::ConcatenateVectorCalculatorOptions>().only_emit_if_all_present();
  return absl::OkStatus();
}

bool ConcatenateVectorCalculatorBase::SkipTimestamp(const CalculatorContext* cc) const {
  if (!only_emit_if_all_present_) return false;
  for (const InputStreamShard& in : cc->Inputs()) {
    if (in.IsEmpty()) return true;
  }
  return false;
}

// MediaPipe's names for the element types that need no other library.
SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(ConcatenateFloatVectorCalculator, float);
SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(ConcatenateInt32VectorCalculator, int32_t);
SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(ConcatenateUInt64VectorCalculator, uint64_t);
SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(ConcatenateBoolVectorCalculator, bool);
SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(ConcatenateStringVectorCalculator, std::string);

}  // namespace sluice
