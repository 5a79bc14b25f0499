#include "calculators/util/collection_has_min_size_calculator.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/util/collection_has_min_size_calculator.pb.h"
#include "formats/classification.pb.h"
#include "formats/detection.pb.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"

namespace sluice {

absl::Status CollectionHasMinSizeBase::DeclarePorts(CalculatorContract* cc) {
  if (!cc->Inputs().HasTag("ITERABLE") || cc->Inputs().NumEntries() != 1 ||
      cc->Outputs().NumEntries() != 1) {
    return absl::InvalidArgumentError(
        "CollectionHasMinSizeCalculator: needs one ITERABLE input and one output");
  }
  const int min_size = cc->Options<mediapipe::CollectionHasMinSizeCalculatorOptions>().min_size();
  if (min_size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("CollectionHasMinSizeCalculator: min_size must be >= 0, got ", min_size));
  }
  cc->Outputs().Get(0).Set<bool>();
  if (cc->InputSidePackets().NumEntries() > 0) cc->InputSidePackets().Get(0).Set<int>();
  return absl::OkStatus();
}

absl::Status CollectionHasMinSizeBase::Open(CalculatorContext* cc) {
  cc->SetOffset(0);
  min_size_ = cc->Options<mediapipe::CollectionHasMinSizeCalculatorOptions>().min_size();
  if (cc->InputSidePackets().NumEntries() > 0 && !cc->InputSidePackets().Get(0).IsEmpty()) {
    min_size_ = cc->InputSidePackets().Get(0).Get<int>();
  }
  return absl::OkStatus();
}

void CollectionHasMinSizeBase::Emit(CalculatorContext* cc, size_t size) const {
  cc->Outputs().Get(0).AddPacket(
      MakePacket<bool>(static_cast<int64_t>(size) >= min_size_).At(cc->InputTimestamp()));
}

using NormalizedRectVectorHasMinSizeCalculator =
    CollectionHasMinSizeCalculator<std::vector<mediapipe::NormalizedRect>>;
REGISTER_CALCULATOR(NormalizedRectVectorHasMinSizeCalculator);
using DetectionVectorHasMinSizeCalculator =
    CollectionHasMinSizeCalculator<std::vector<mediapipe::Detection>>;
REGISTER_CALCULATOR(DetectionVectorHasMinSizeCalculator);
using NormalizedLandmarkListVectorHasMinSizeCalculator =
    CollectionHasMinSizeCalculator<std::vector<mediapipe::NormalizedLandmarkList>>;
REGISTER_CALCULATOR(NormalizedLandmarkListVectorHasMinSizeCalculator);
using ClassificationListVectorHasMinSizeCalculator =
    CollectionHasMinSizeCalculator<std::vector<mediapipe::ClassificationList>>;
REGISTER_CALCULATOR(ClassificationListVectorHasMinSizeCalculator);

}  // namespace sluice
