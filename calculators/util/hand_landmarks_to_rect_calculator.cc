// HandLandmarksToRectCalculator: the next frame's hand ROI from this frame's
// hand landmarks: a bounding box aligned with the wrist -> middle-MCP
// direction.
//
//   node {
//     calculator: "HandLandmarksToRectCalculator"
//     input_stream: "NORM_LANDMARKS:partial_landmarks"   # NormalizedLandmarkList
//     input_stream: "IMAGE_SIZE:image_size"              # std::pair<int,int>
//     output_stream: "NORM_RECT:hand_rect_from_landmarks"
//   }
//
// Works on MediaPipe's 12-point subset (landmarks 0,1,2,3,5,6,9,10,13,14,17,18);
// a full 21-landmark list is reduced to that subset first. Rotation and box
// are computed in pixels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/geometry_util.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kImageSizeTag[] = "IMAGE_SIZE";
constexpr char kRectTag[] = "NORM_RECT";

// Indices within the 12-point subset.
constexpr int kWrist = 0;
constexpr int kIndexMcp = 4;
constexpr int kMiddleMcp = 6;
constexpr int kRingMcp = 8;
constexpr int kSubset[] = {0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18};
constexpr float kTargetAngle = M_PI * 0.5f;

using mediapipe::NormalizedLandmarkList;
using mediapipe::NormalizedRect;

struct Point {
  float x, y;
};

float Rotation(const std::vector<Point>& p, int w, int h) {
  const float x0 = p[kWrist].x * w;
  const float y0 = p[kWrist].y * h;
  float x1 = (p[kIndexMcp].x + p[kRingMcp].x) / 2.f;
  float y1 = (p[kIndexMcp].y + p[kRingMcp].y) / 2.f;
  x1 = (x1 + p[kMiddleMcp].x) / 2.f * w;
  y1 = (y1 + p[kMiddleMcp].y) / 2.f * h;
  return NormalizeRadians(kTargetAngle - std::atan2(-(y1 - y0), x1 - x0));
}

// `p` holds the 12-point subset.
NormalizedRect HandRectFromSubset(const std::vector<Point>& p, int w, int h) {
  const float rotation = Rotation(p, w, h);
  const float reverse = NormalizeRadians(-rotation);
  // Max starts at the smallest positive float, not the lowest: MediaPipe's quirk.
  float max_x = std::numeric_limits<float>::min(), max_y = std::numeric_limits<float>::min();
  float min_x = std::numeric_limits<float>::max(), min_y = std::numeric_limits<float>::max();
  for (const Point& q : p) {
    max_x = std::max(max_x, q.x);
    max_y = std::max(max_y, q.y);
    min_x = std::min(min_x, q.x);
    min_y = std::min(min_y, q.y);
  }
  const float cx = (max_x + min_x) / 2.f;
  const float cy = (max_y + min_y) / 2.f;
  max_x = max_y = std::numeric_limits<float>::min();
  min_x = min_y = std::numeric_limits<float>::max();
  for (const Point& q : p) {
    const float ox = (q.x - cx) * w;
    const float oy = (q.y - cy) * h;
    const float px = ox * std::cos(reverse) - oy * std::sin(reverse);
    const float py = ox * std::sin(reverse) + oy * std::cos(reverse);
    max_x = std::max(max_x, px);
    max_y = std::max(max_y, py);
    min_x = std::min(min_x, px);
    min_y = std::min(min_y, py);
  }
  const float pcx = (max_x + min_x) / 2.f;
  const float pcy = (max_y + min_y) / 2.f;
  const float center_x = pcx * std::cos(rotation) - pcy * std::sin(rotation) + w * cx;
  const float center_y = pcx * std::sin(rotation) + pcy * std::cos(rotation) + h * cy;
  NormalizedRect rect;
  rect.set_x_center(center_x / w);
  rect.set_y_center(center_y / h);
  rect.set_width((max_x - min_x) / w);
  rect.set_height((max_y - min_y) / h);
  rect.set_rotation(rotation);
  return rect;
}

}  // namespace

class HandLandmarksToRectCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kLandmarksTag) || !cc->Inputs().HasTag(kImageSizeTag) ||
        !cc->Outputs().HasTag(kRectTag)) {
      return absl::InvalidArgumentError(
          "HandLandmarksToRectCalculator: needs NORM_LANDMARKS and IMAGE_SIZE inputs and a "
          "NORM_RECT output");
    }
    cc->Inputs().Tag(kLandmarksTag).Set<NormalizedLandmarkList>();
    cc->Inputs().Tag(kImageSizeTag).Set<std::pair<int, int>>();
    cc->Outputs().Tag(kRectTag).Set<NormalizedRect>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kLandmarksTag).IsEmpty()) return absl::OkStatus();
    if (cc->Inputs().Tag(kImageSizeTag).IsEmpty()) {
      return absl::InvalidArgumentError(
          "HandLandmarksToRectCalculator: IMAGE_SIZE missing at this timestamp");
    }
    const auto& size = cc->Inputs().Tag(kImageSizeTag).Get<std::pair<int, int>>();
    const auto& lms = cc->Inputs().Tag(kLandmarksTag).Get<NormalizedLandmarkList>();
    std::vector<Point> points;
    if (lms.landmark_size() == 21) {
      for (int i : kSubset) points.push_back({lms.landmark(i).x(), lms.landmark(i).y()});
    } else if (lms.landmark_size() == 12) {
      for (const auto& lm : lms.landmark()) points.push_back({lm.x(), lm.y()});
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "HandLandmarksToRectCalculator: expected 12 or 21 landmarks, got ", lms.landmark_size()));
    }
    cc->Outputs().Tag(kRectTag).Add(
        new NormalizedRect(HandRectFromSubset(points, size.first, size.second)),
        cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(HandLandmarksToRectCalculator);

}  // namespace sluice
