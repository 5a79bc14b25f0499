// WorldLandmarkProjectionCalculator: rotates world landmarks (metres, model
// frame) by the ROI rotation so that they line up with the image axes.
//
//   node {
//     calculator: "WorldLandmarkProjectionCalculator"
//     input_stream: "LANDMARKS:world_landmarks"   # LandmarkList
//     input_stream: "NORM_RECT:roi"               # NormalizedRect (optional)
//     output_stream: "LANDMARKS:projected_world_landmarks"
//   }
//
// Only x and y are rotated; z and all other fields are kept.
#include <cmath>
#include <memory>

#include "absl/status/status.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kRectTag[] = "NORM_RECT";

using mediapipe::LandmarkList;
using mediapipe::NormalizedRect;

}  // namespace

class WorldLandmarkProjectionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kLandmarksTag) || !cc->Outputs().HasTag(kLandmarksTag)) {
      return absl::InvalidArgumentError(
          "WorldLandmarkProjectionCalculator: needs a LANDMARKS input and output");
    }
    cc->Inputs().Tag(kLandmarksTag).Set<LandmarkList>();
    cc->Outputs().Tag(kLandmarksTag).Set<LandmarkList>();
    if (cc->Inputs().HasTag(kRectTag)) cc->Inputs().Tag(kRectTag).Set<NormalizedRect>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kLandmarksTag).IsEmpty()) return absl::OkStatus();
    auto out = std::make_unique<LandmarkList>(cc->Inputs().Tag(kLandmarksTag).Get<LandmarkList>());
    if (cc->Inputs().HasTag(kRectTag) && !cc->Inputs().Tag(kRectTag).IsEmpty()) {
      const float rotation = cc->Inputs().Tag(kRectTag).Get<NormalizedRect>().rotation();
      const float c = std::cos(rotation);
      const float s = std::sin(rotation);
      for (auto& lm : *out->mutable_landmark()) {
        const float x = lm.x(), y = lm.y();
        lm.set_x(c * x - s * y);
        lm.set_y(s * x + c * y);
      }
    }
    cc->Outputs().Tag(kLandmarksTag).Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(WorldLandmarkProjectionCalculator);

}  // namespace sluice
