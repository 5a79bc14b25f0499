// VisibilityCopyCalculator: copies `visibility` and/or `presence` landmark by
// landmark from one list onto another (e.g. from the image landmarks onto the
// world landmarks, which the pose model gives without them).
//
//   node {
//     calculator: "VisibilityCopyCalculator"
//     input_stream: "NORM_LANDMARKS_FROM:landmarks"          # or LANDMARKS_FROM
//     input_stream: "LANDMARKS_TO:world_landmarks_without_visibility"  # or NORM_LANDMARKS_TO
//     output_stream: "LANDMARKS_TO:world_landmarks"          # same tag/type as the *_TO input
//     options: { [mediapipe.VisibilityCopyCalculatorOptions.ext] {
//       copy_visibility: true copy_presence: true } }
//   }
//
// Output only when both lists are present. The output has as many landmarks as
// the FROM list (as MediaPipe's); a TO list shorter than that is an error.
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/visibility_copy_calculator.pb.h"
#include "formats/landmark.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kLandmarksFromTag[] = "LANDMARKS_FROM";
constexpr char kNormLandmarksFromTag[] = "NORM_LANDMARKS_FROM";
constexpr char kLandmarksToTag[] = "LANDMARKS_TO";
constexpr char kNormLandmarksToTag[] = "NORM_LANDMARKS_TO";

using mediapipe::LandmarkList;
using mediapipe::NormalizedLandmarkList;

}  // namespace

class VisibilityCopyCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    std::string errors;
    const bool from = cc->Inputs().HasTag(kLandmarksFromTag);
    const bool norm_from = cc->Inputs().HasTag(kNormLandmarksFromTag);
    const bool to = cc->Inputs().HasTag(kLandmarksToTag);
    const bool norm_to = cc->Inputs().HasTag(kNormLandmarksToTag);
    if (from == norm_from) errors += " connect exactly one of LANDMARKS_FROM, NORM_LANDMARKS_FROM;";
    if (to == norm_to) errors += " connect exactly one of LANDMARKS_TO, NORM_LANDMARKS_TO;";
    if (to && !cc->Outputs().HasTag(kLandmarksToTag)) {
      errors += " LANDMARKS_TO input needs a LANDMARKS_TO output;";
    }
    if (norm_to && !cc->Outputs().HasTag(kNormLandmarksToTag)) {
      errors += " NORM_LANDMARKS_TO input needs a NORM_LANDMARKS_TO output;";
    }
    if (!errors.empty()) {
      errors.pop_back();
      return absl::InvalidArgumentError(absl::StrCat("VisibilityCopyCalculator:", errors));
    }
    if (from) cc->Inputs().Tag(kLandmarksFromTag).Set<LandmarkList>();
    if (norm_from) cc->Inputs().Tag(kNormLandmarksFromTag).Set<NormalizedLandmarkList>();
    if (to) {
      cc->Inputs().Tag(kLandmarksToTag).Set<LandmarkList>();
      cc->Outputs().Tag(kLandmarksToTag).Set<LandmarkList>();
    } else {
      cc->Inputs().Tag(kNormLandmarksToTag).Set<NormalizedLandmarkList>();
      cc->Outputs().Tag(kNormLandmarksToTag).Set<NormalizedLandmarkList>();
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    const auto& options = cc->Options<mediapipe::VisibilityCopyCalculatorOptions>();
    copy_visibility_ = options.copy_visibility();
    copy_presence_ = options.copy_presence();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const char* from_tag =
        cc->Inputs().HasTag(kLandmarksFromTag) ? kLandmarksFromTag : kNormLandmarksFromTag;
    const char* to_tag =
        cc->Inputs().HasTag(kLandmarksToTag) ? kLandmarksToTag : kNormLandmarksToTag;
    if (from_tag == kLandmarksFromTag) return Dispatch<LandmarkList>(cc, from_tag, to_tag);
    return Dispatch<NormalizedLandmarkList>(cc, from_tag, to_tag);
  }

 private:
  template <typename From>
  absl::Status Dispatch(CalculatorContext* cc, const char* from_tag, const char* to_tag) {
    if (to_tag == kLandmarksToTag) return Copy<From, LandmarkList>(cc, from_tag, to_tag);
    return Copy<From, NormalizedLandmarkList>(cc, from_tag, to_tag);
  }

  template <typename From, typename To>
  absl::Status Copy(CalculatorContext* cc, const char* from_tag, const char* to_tag) {
    if (cc->Inputs().Tag(from_tag).IsEmpty() || cc->Inputs().Tag(to_tag).IsEmpty()) {
      return absl::OkStatus();
    }
    const From& from = cc->Inputs().Tag(from_tag).Get<From>();
    const To& to = cc->Inputs().Tag(to_tag).Get<To>();
    if (to.landmark_size() < from.landmark_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "VisibilityCopyCalculator: ", from_tag, " has ", from.landmark_size(),
          " landmarks but ", to_tag, " only ", to.landmark_size()));
    }
    auto out = std::make_unique<To>();
    for (int i = 0; i < from.landmark_size(); ++i) {
      auto* lm = out->add_landmark();
      *lm = to.landmark(i);
      if (copy_visibility_) lm->set_visibility(from.landmark(i).visibility());
      if (copy_presence_) lm->set_presence(from.landmark(i).presence());
    }
    cc->Outputs().Tag(to_tag).Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

  bool copy_visibility_ = true;
  bool copy_presence_ = true;
};
REGISTER_CALCULATOR(VisibilityCopyCalculator);

}  // namespace sluice
