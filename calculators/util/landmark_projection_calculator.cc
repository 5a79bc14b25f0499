// LandmarkProjectionCalculator: maps normalized landmarks from an ROI's frame
// back into the image, using the ROI rect (rotation included) or a 4x4
// row-major projection matrix.
//
//   node {
//     calculator: "LandmarkProjectionCalculator"
//     input_stream: "NORM_LANDMARKS:scaled_landmarks"   # NormalizedLandmarkList (NORM_LANDMARKS:i)
//     input_stream: "NORM_RECT:hand_rect"               # or PROJECTION_MATRIX (std::array<float,16>)
//     output_stream: "NORM_LANDMARKS:hand_landmarks"
//   }
//
// With NORM_RECT, z is scaled by the rect width; with a matrix, by the length
// of the projected unit x vector.
#include <array>
#include <cmath>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "calculators/util/landmark_projection_calculator.pb.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kRectTag[] = "NORM_RECT";
constexpr char kMatrixTag[] = "PROJECTION_MATRIX";

using mediapipe::LandmarkProjectionCalculatorOptions;
using mediapipe::NormalizedLandmark;
using mediapipe::NormalizedLandmarkList;
using mediapipe::NormalizedRect;
using Matrix = std::array<float, 16>;

void ProjectXY(float x, float y, const Matrix& m, float* ox, float* oy) {
  *ox = x * m[0] + y * m[1] + m[3];
  *oy = x * m[4] + y * m[5] + m[7];
}

}  // namespace

class LandmarkProjectionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const int n = cc->Inputs().NumEntries(kLandmarksTag);
    if (n == 0 || cc->Outputs().NumEntries(kLandmarksTag) != n) {
      return absl::InvalidArgumentError(
          "LandmarkProjectionCalculator: needs NORM_LANDMARKS:i inputs and as many outputs");
    }
    if (cc->Inputs().HasTag(kRectTag) == cc->Inputs().HasTag(kMatrixTag)) {
      return absl::InvalidArgumentError(
          "LandmarkProjectionCalculator: connect exactly one of NORM_RECT and PROJECTION_MATRIX");
    }
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get(kLandmarksTag, i).Set<NormalizedLandmarkList>();
      cc->Outputs().Get(kLandmarksTag, i).Set<NormalizedLandmarkList>();
    }
    if (cc->Inputs().HasTag(kRectTag)) cc->Inputs().Tag(kRectTag).Set<NormalizedRect>();
    if (cc->Inputs().HasTag(kMatrixTag)) cc->Inputs().Tag(kMatrixTag).Set<Matrix>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    ignore_rotation_ = cc->Options<LandmarkProjectionCalculatorOptions>().ignore_rotation();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    std::function<void(NormalizedLandmark*)> project;
    if (cc->Inputs().HasTag(kRectTag)) {
      if (cc->Inputs().Tag(kRectTag).IsEmpty()) return absl::OkStatus();
      const auto rect = cc->Inputs().Tag(kRectTag).Get<NormalizedRect>();
      const float angle = ignore_rotation_ ? 0 : rect.rotation();
      project = [rect, angle](NormalizedLandmark* lm) {
        const float x = lm->x() - 0.5f;
        const float y = lm->y() - 0.5f;
        float nx = std::cos(angle) * x - std::sin(angle) * y;
        float ny = std::sin(angle) * x + std::cos(angle) * y;
        lm->set_x(nx * rect.width() + rect.x_center());
        lm->set_y(ny * rect.height() + rect.y_center());
        lm->set_z(lm->z() * rect.width());
      };
    } else {
      if (cc->Inputs().Tag(kMatrixTag).IsEmpty()) return absl::OkStatus();
      const Matrix m = cc->Inputs().Tag(kMatrixTag).Get<Matrix>();
      float ax, ay, bx, by;
      ProjectXY(0, 0, m, &ax, &ay);
      ProjectXY(1, 0, m, &bx, &by);
      const float z_scale = std::sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay));
      project = [m, z_scale](NormalizedLandmark* lm) {
        float x, y;
        ProjectXY(lm->x(), lm->y(), m, &x, &y);
        lm->set_x(x);
        lm->set_y(y);
        lm->set_z(lm->z() * z_scale);
      };
    }
    for (int i = 0; i < cc->Inputs().NumEntries(kLandmarksTag); ++i) {
      const InputStreamShard& in = cc->Inputs().Get(kLandmarksTag, i);
      if (in.IsEmpty()) continue;
      auto out = std::make_unique<NormalizedLandmarkList>(in.Get<NormalizedLandmarkList>());
      for (auto& lm : *out->mutable_landmark()) project(&lm);
      cc->Outputs().Get(kLandmarksTag, i).Add(out.release(), cc->InputTimestamp());
    }
    return absl::OkStatus();
  }

 private:
  bool ignore_rotation_ = false;
};
REGISTER_CALCULATOR(LandmarkProjectionCalculator);

}  // namespace sluice
