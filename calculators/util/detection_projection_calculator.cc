// DetectionProjectionCalculator: maps relative detections through a 4x4
// row-major projection matrix, e.g. from a model's input tensor back to the
// image with the MATRIX output of ImageToTensorCalculator (which also covers
// letterboxing and rotated ROIs).
//
//   node {
//     calculator: "DetectionProjectionCalculator"
//     input_stream: "DETECTIONS:detections"            # std::vector<Detection>
//     input_stream: "PROJECTION_MATRIX:matrix"         # std::array<float, 16>
//     output_stream: "DETECTIONS:projected_detections"
//   }
//
// Keypoints are projected as points; the box becomes the axis-aligned hull of
// its four projected corners (a rotation makes it grow, as in MediaPipe).
#include <algorithm>
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "formats/detection.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kDetectionsTag[] = "DETECTIONS";
constexpr char kMatrixTag[] = "PROJECTION_MATRIX";

using mediapipe::Detection;
using mediapipe::LocationData;
using Matrix = std::array<float, 16>;

std::pair<float, float> Project(const Matrix& m, float x, float y) {
  return {m[0] * x + m[1] * y + m[3], m[4] * x + m[5] * y + m[7]};
}

}  // namespace

class DetectionProjectionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kDetectionsTag) || !cc->Inputs().HasTag(kMatrixTag) ||
        !cc->Outputs().HasTag(kDetectionsTag)) {
      return absl::InvalidArgumentError(
          "DetectionProjectionCalculator: needs DETECTIONS and PROJECTION_MATRIX inputs and a "
          "DETECTIONS output");
    }
    cc->Inputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
    cc->Inputs().Tag(kMatrixTag).Set<Matrix>();
    cc->Outputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kDetectionsTag).IsEmpty()) return absl::OkStatus();
    if (cc->Inputs().Tag(kMatrixTag).IsEmpty()) {
      return absl::InvalidArgumentError(
          "DetectionProjectionCalculator: PROJECTION_MATRIX missing at this timestamp");
    }
    const Matrix& m = cc->Inputs().Tag(kMatrixTag).Get<Matrix>();
    auto out = std::make_unique<std::vector<Detection>>();
    for (const Detection& in : cc->Inputs().Tag(kDetectionsTag).Get<std::vector<Detection>>()) {
      Detection d = in;
      LocationData* loc = d.mutable_location_data();
      if (loc->format() != LocationData::RELATIVE_BOUNDING_BOX) {
        return absl::InvalidArgumentError(
            "DetectionProjectionCalculator: detections must use RELATIVE_BOUNDING_BOX");
      }
      for (auto& kp : *loc->mutable_relative_keypoints()) {
        const auto [x, y] = Project(m, kp.x(), kp.y());
        kp.set_x(x);
        kp.set_y(y);
      }
      if (loc->has_relative_bounding_box()) {
        auto* box = loc->mutable_relative_bounding_box();
        const float x0 = box->xmin(), y0 = box->ymin();
        const float x1 = x0 + box->width(), y1 = y0 + box->height();
        const std::pair<float, float> corners[4] = {Project(m, x0, y0), Project(m, x1, y0),
                                                    Project(m, x1, y1), Project(m, x0, y1)};
        float min_x = corners[0].first, max_x = min_x, min_y = corners[0].second, max_y = min_y;
        for (const auto& [x, y] : corners) {
          min_x = std::min(min_x, x);
          max_x = std::max(max_x, x);
          min_y = std::min(min_y, y);
          max_y = std::max(max_y, y);
        }
        box->set_xmin(min_x);
        box->set_ymin(min_y);
        box->set_width(max_x - min_x);
        box->set_height(max_y - min_y);
      }
      out->push_back(std::move(d));
    }
    cc->Outputs().Tag(kDetectionsTag).Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(DetectionProjectionCalculator);

}  // namespace sluice
