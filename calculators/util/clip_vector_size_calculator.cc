#include "calculators/util/clip_vector_size_calculator.h"

#include "absl/strings/str_cat.h"
#include "calculators/util/clip_vector_size_calculator.pb.h"
#include "formats/detection.pb.h"
#include "formats/rect.pb.h"

namespace sluice {

absl::Status ClipVectorSizeBase::DeclarePorts(CalculatorContract* cc) {
  if (cc->Inputs().NumEntries("") != 1 || cc->Outputs().NumEntries("") != 1) {
    return absl::InvalidArgumentError(
        "ClipVectorSizeCalculator: needs one untagged input and one untagged output");
  }
  const int max = cc->Options<mediapipe::ClipVectorSizeCalculatorOptions>().max_vec_size();
  if (max < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("ClipVectorSizeCalculator: max_vec_size must be >= 1, got ", max));
  }
  if (cc->InputSidePackets().NumEntries() > 0) cc->InputSidePackets().Get(0).Set<int>();
  return absl::OkStatus();
}

absl::Status ClipVectorSizeBase::Open(CalculatorContext* cc) {
  cc->SetOffset(0);
  max_vec_size_ = cc->Options<mediapipe::ClipVectorSizeCalculatorOptions>().max_vec_size();
  if (cc->InputSidePackets().NumEntries() > 0 && !cc->InputSidePackets().Get(0).IsEmpty()) {
    max_vec_size_ = cc->InputSidePackets().Get(0).Get<int>();
  }
  if (max_vec_size_ < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ClipVectorSizeCalculator: max_vec_size must be >= 1, got ", max_vec_size_));
  }
  return absl::OkStatus();
}

SLUICE_REGISTER_CLIP_VECTOR_SIZE_CALCULATOR(ClipDetectionVectorSizeCalculator,
                                            mediapipe::Detection);
SLUICE_REGISTER_CLIP_VECTOR_SIZE_CALCULATOR(ClipNormalizedRectVectorSizeCalculator,
                                            mediapipe::NormalizedRect);

}  // namespace sluice
