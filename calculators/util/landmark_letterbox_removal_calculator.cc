// LandmarkLetterboxRemovalCalculator: maps normalized landmarks from a
// letterboxed (padded) model input back to the unpadded ROI.
//
//   node {
//     calculator: "LandmarkLetterboxRemovalCalculator"
//     input_stream: "LANDMARKS:landmarks"                 # NormalizedLandmarkList (LANDMARKS:i)
//     input_stream: "LETTERBOX_PADDING:letterbox_padding" # std::array<float, 4> l,t,r,b
//     output_stream: "LANDMARKS:scaled_landmarks"         # LANDMARKS:i, one per input
//   }
//
// z is scaled like x. Other fields (visibility, presence) are kept.
#include <array>
#include <memory>

#include "absl/status/status.h"
#include "formats/landmark.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kPaddingTag[] = "LETTERBOX_PADDING";

using mediapipe::NormalizedLandmarkList;

}  // namespace

class LandmarkLetterboxRemovalCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const int n = cc->Inputs().NumEntries(kLandmarksTag);
    if (n == 0 || !cc->Inputs().HasTag(kPaddingTag) ||
        cc->Outputs().NumEntries(kLandmarksTag) != n) {
      return absl::InvalidArgumentError(
          "LandmarkLetterboxRemovalCalculator: needs LANDMARKS:i inputs, LETTERBOX_PADDING, and "
          "as many LANDMARKS:i outputs");
    }
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get(kLandmarksTag, i).Set<NormalizedLandmarkList>();
      cc->Outputs().Get(kLandmarksTag, i).Set<NormalizedLandmarkList>();
    }
    cc->Inputs().Tag(kPaddingTag).Set<std::array<float, 4>>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kPaddingTag).IsEmpty()) return absl::OkStatus();
    const auto& pad = cc->Inputs().Tag(kPaddingTag).Get<std::array<float, 4>>();
    const float left = pad[0], top = pad[1];
    // 1 - (left + right), not 1 - left - right: MediaPipe's rounding. The
    // 1-ulp difference, fed back through the tracked crop, made pose tracking
    // drift away from MediaPipe's (issue 9).
    const float sx = 1.0f - (pad[0] + pad[2]);
    const float sy = 1.0f - (pad[1] + pad[3]);
    for (int i = 0; i < cc->Inputs().NumEntries(kLandmarksTag); ++i) {
      const InputStreamShard& in = cc->Inputs().Get(kLandmarksTag, i);
      if (in.IsEmpty()) continue;
      auto out = std::make_unique<NormalizedLandmarkList>(in.Get<NormalizedLandmarkList>());
      for (auto& lm : *out->mutable_landmark()) {
        lm.set_x((lm.x() - left) / sx);
        lm.set_y((lm.y() - top) / sy);
        lm.set_z(lm.z() / sx);
      }
      cc->Outputs().Get(kLandmarksTag, i).Add(out.release(), cc->InputTimestamp());
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(LandmarkLetterboxRemovalCalculator);

}  // namespace sluice
