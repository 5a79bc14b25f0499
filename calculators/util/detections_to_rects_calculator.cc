// DetectionsToRectsCalculator: turns detections into rects (centre/size of the
// box, or of the keypoints), optionally rotated so that the vector between two
// keypoints points at a target angle.
//
//   node {
//     calculator: "DetectionsToRectsCalculator"
//     input_stream: "DETECTION:detection"     # or DETECTIONS (vector)
//     input_stream: "IMAGE_SIZE:image_size"   # std::pair<int,int>; needed to rotate
//     output_stream: "NORM_RECT:raw_roi"      # or RECT, NORM_RECTS, RECTS
//     options: { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
//       rotation_vector_start_keypoint_index: 0
//       rotation_vector_end_keypoint_index: 2
//       rotation_vector_target_angle_degrees: 90
//     } }
//   }
//
// The rotation is measured in pixels: normalize(target - atan2(-dy, dx)).
// Single-rect outputs use the first detection.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/detections_to_rects_calculator.h"
#include "calculators/util/detections_to_rects_calculator.pb.h"
#include "calculators/util/geometry_util.h"
#include "formats/detection.pb.h"
#include "formats/rect.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kDetectionTag[] = "DETECTION";
constexpr char kDetectionsTag[] = "DETECTIONS";
constexpr char kImageSizeTag[] = "IMAGE_SIZE";
constexpr char kRectTag[] = "RECT";
constexpr char kNormRectTag[] = "NORM_RECT";
constexpr char kRectsTag[] = "RECTS";
constexpr char kNormRectsTag[] = "NORM_RECTS";

using mediapipe::Detection;
using mediapipe::DetectionsToRectsCalculatorOptions;
using mediapipe::LocationData;
using mediapipe::NormalizedRect;
using mediapipe::Rect;
using ImageSize = DetectionsToRectsCalculator::ImageSize;

struct Extent {
  float xmin, ymin, xmax, ymax;
};

// Bounding extent of the keypoints, scaled by (sx, sy).
absl::Status KeypointExtent(const Detection& d, float sx, float sy, Extent* e) {
  const auto& kps = d.location_data().relative_keypoints();
  if (kps.empty()) {
    return absl::InvalidArgumentError(
        "DetectionsToRectsCalculator: USE_KEYPOINTS needs relative keypoints");
  }
  *e = {kps[0].x() * sx, kps[0].y() * sy, kps[0].x() * sx, kps[0].y() * sy};
  for (const auto& kp : kps) {
    e->xmin = std::min(e->xmin, kp.x() * sx);
    e->xmax = std::max(e->xmax, kp.x() * sx);
    e->ymin = std::min(e->ymin, kp.y() * sy);
    e->ymax = std::max(e->ymax, kp.y() * sy);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DetectionsToRectsCalculator::GetContract(CalculatorContract* cc) {
  if (cc->Inputs().HasTag(kDetectionTag) == cc->Inputs().HasTag(kDetectionsTag)) {
    return absl::InvalidArgumentError(
        "DetectionsToRectsCalculator: connect exactly one of DETECTION or DETECTIONS");
  }
  int outputs = 0;
  for (const char* tag : {kRectTag, kNormRectTag, kRectsTag, kNormRectsTag}) {
    outputs += cc->Outputs().HasTag(tag) ? 1 : 0;
  }
  if (outputs != 1) {
    return absl::InvalidArgumentError(
        "DetectionsToRectsCalculator: connect exactly one of NORM_RECT, RECT, NORM_RECTS, "
        "RECTS");
  }
  if (cc->Inputs().HasTag(kDetectionTag)) cc->Inputs().Tag(kDetectionTag).Set<Detection>();
  if (cc->Inputs().HasTag(kDetectionsTag)) {
    cc->Inputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
  }
  if (cc->Inputs().HasTag(kImageSizeTag)) {
    cc->Inputs().Tag(kImageSizeTag).Set<std::pair<int, int>>();
  }
  if (cc->Outputs().HasTag(kRectTag)) cc->Outputs().Tag(kRectTag).Set<Rect>();
  if (cc->Outputs().HasTag(kNormRectTag)) cc->Outputs().Tag(kNormRectTag).Set<NormalizedRect>();
  if (cc->Outputs().HasTag(kRectsTag)) cc->Outputs().Tag(kRectsTag).Set<std::vector<Rect>>();
  if (cc->Outputs().HasTag(kNormRectsTag)) {
    cc->Outputs().Tag(kNormRectsTag).Set<std::vector<NormalizedRect>>();
  }
  const auto& o = cc->Options<DetectionsToRectsCalculatorOptions>();
  if (o.has_rotation_vector_start_keypoint_index()) {
    if (!o.has_rotation_vector_end_keypoint_index()) {
      return absl::InvalidArgumentError(
          "DetectionsToRectsCalculator: rotation needs rotation_vector_end_keypoint_index");
    }
    if (o.has_rotation_vector_target_angle() == o.has_rotation_vector_target_angle_degrees()) {
      return absl::InvalidArgumentError(
          "DetectionsToRectsCalculator: set exactly one of rotation_vector_target_angle and "
          "rotation_vector_target_angle_degrees");
    }
    if (!cc->Inputs().HasTag(kImageSizeTag)) {
      return absl::InvalidArgumentError(
          "DetectionsToRectsCalculator: rotation needs an IMAGE_SIZE input");
    }
  }
  return absl::OkStatus();
}

absl::Status DetectionsToRectsCalculator::Open(CalculatorContext* cc) {
  cc->SetOffset(0);
  options_ = cc->Options<DetectionsToRectsCalculatorOptions>();
  if (options_.has_rotation_vector_start_keypoint_index()) {
    rotate_ = true;
    target_angle_ = options_.has_rotation_vector_target_angle()
                        ? options_.rotation_vector_target_angle()
                        : M_PI * options_.rotation_vector_target_angle_degrees() / 180.f;
  }
  return absl::OkStatus();
}

absl::Status DetectionsToRectsCalculator::Process(CalculatorContext* cc) {
  const Timestamp ts = cc->InputTimestamp();
  std::vector<Detection> detections;
  if (cc->Inputs().HasTag(kDetectionTag)) {
    if (cc->Inputs().Tag(kDetectionTag).IsEmpty()) return absl::OkStatus();
    detections.push_back(cc->Inputs().Tag(kDetectionTag).Get<Detection>());
  } else {
    if (cc->Inputs().Tag(kDetectionsTag).IsEmpty()) return absl::OkStatus();
    detections = cc->Inputs().Tag(kDetectionsTag).Get<std::vector<Detection>>();
    if (detections.empty()) {
      if (options_.output_zero_rect_for_empty_detections()) EmitZeroRects(cc, ts);
      return absl::OkStatus();
    }
  }
  ImageSize size;
  if (cc->Inputs().HasTag(kImageSizeTag) && !cc->Inputs().Tag(kImageSizeTag).IsEmpty()) {
    size = cc->Inputs().Tag(kImageSizeTag).Get<std::pair<int, int>>();
  }
  const bool single = cc->Outputs().HasTag(kRectTag) || cc->Outputs().HasTag(kNormRectTag);
  const size_t n = single ? 1 : detections.size();
  const bool normalized = cc->Outputs().HasTag(kNormRectTag) ||
                          cc->Outputs().HasTag(kNormRectsTag);
  std::vector<NormalizedRect> norm_rects(normalized ? n : 0);
  std::vector<Rect> rects(normalized ? 0 : n);
  for (size_t i = 0; i < n; ++i) {
    float rotation = 0.0f;
    if (rotate_) {
      absl::Status s = ComputeRotation(detections[i], size, &rotation);
      if (!s.ok()) return s;
    }
    absl::Status s = normalized ? ToNormalizedRect(detections[i], size, &norm_rects[i])
                                : ToRect(detections[i], size, &rects[i]);
    if (!s.ok()) return s;
    if (rotate_) {
      if (normalized) {
        norm_rects[i].set_rotation(rotation);
      } else {
        rects[i].set_rotation(rotation);
      }
    }
  }
  if (cc->Outputs().HasTag(kNormRectTag)) {
    cc->Outputs().Tag(kNormRectTag).Add(new NormalizedRect(norm_rects[0]), ts);
  } else if (cc->Outputs().HasTag(kNormRectsTag)) {
    cc->Outputs().Tag(kNormRectsTag).Add(new std::vector<NormalizedRect>(std::move(norm_rects)), ts);
  } else if (cc->Outputs().HasTag(kRectTag)) {
    cc->Outputs().Tag(kRectTag).Add(new Rect(rects[0]), ts);
  } else {
    cc->Outputs().Tag(kRectsTag).Add(new std::vector<Rect>(std::move(rects)), ts);
  }
  return absl::OkStatus();
}

bool DetectionsToRectsCalculator::UseKeypoints() const {
  return options_.conversion_mode() == DetectionsToRectsCalculatorOptions::USE_KEYPOINTS;
}

void DetectionsToRectsCalculator::EmitZeroRects(CalculatorContext* cc, Timestamp ts) const {
  NormalizedRect zero_norm;
  zero_norm.set_x_center(0);
  zero_norm.set_y_center(0);
  zero_norm.set_width(0);
  zero_norm.set_height(0);
  Rect zero;
  zero.set_x_center(0);
  zero.set_y_center(0);
  zero.set_width(0);
  zero.set_height(0);
  if (cc->Outputs().HasTag(kNormRectTag)) {
    cc->Outputs().Tag(kNormRectTag).Add(new NormalizedRect(zero_norm), ts);
  } else if (cc->Outputs().HasTag(kNormRectsTag)) {
    cc->Outputs().Tag(kNormRectsTag).Add(new std::vector<NormalizedRect>{zero_norm}, ts);
  } else if (cc->Outputs().HasTag(kRectTag)) {
    cc->Outputs().Tag(kRectTag).Add(new Rect(zero), ts);
  } else {
    cc->Outputs().Tag(kRectsTag).Add(new std::vector<Rect>{zero}, ts);
  }
}

absl::Status DetectionsToRectsCalculator::ToNormalizedRect(const Detection& d,
                                                         const ImageSize& /*size*/,
                                                         NormalizedRect* rect) const {
  if (UseKeypoints()) {
    Extent e;
    absl::Status s = KeypointExtent(d, 1.0f, 1.0f, &e);
    if (!s.ok()) return s;
    rect->set_x_center((e.xmin + e.xmax) / 2);
    rect->set_y_center((e.ymin + e.ymax) / 2);
    rect->set_width(e.xmax - e.xmin);
    rect->set_height(e.ymax - e.ymin);
    return absl::OkStatus();
  }
  if (d.location_data().format() != LocationData::RELATIVE_BOUNDING_BOX) {
    return absl::InvalidArgumentError(
        "DetectionsToRectsCalculator: only RELATIVE_BOUNDING_BOX detections convert to "
        "NormalizedRect");
  }
  const auto& b = d.location_data().relative_bounding_box();
  rect->set_x_center(b.xmin() + b.width() / 2);
  rect->set_y_center(b.ymin() + b.height() / 2);
  rect->set_width(b.width());
  rect->set_height(b.height());
  return absl::OkStatus();
}

absl::Status DetectionsToRectsCalculator::ToRect(const Detection& d, const ImageSize& size,
                                               Rect* rect) const {
  if (UseKeypoints()) {
    if (!size) {
      return absl::InvalidArgumentError(
          "DetectionsToRectsCalculator: USE_KEYPOINTS to RECT needs IMAGE_SIZE");
    }
    Extent e;
    absl::Status s = KeypointExtent(d, size->first, size->second, &e);
    if (!s.ok()) return s;
    rect->set_x_center(std::round((e.xmin + e.xmax) / 2));
    rect->set_y_center(std::round((e.ymin + e.ymax) / 2));
    rect->set_width(std::round(e.xmax - e.xmin));
    rect->set_height(std::round(e.ymax - e.ymin));
    return absl::OkStatus();
  }
  if (d.location_data().format() != LocationData::BOUNDING_BOX) {
    return absl::InvalidArgumentError(
        "DetectionsToRectsCalculator: only BOUNDING_BOX detections convert to Rect");
  }
  const auto& b = d.location_data().bounding_box();
  rect->set_x_center(b.xmin() + b.width() / 2);
  rect->set_y_center(b.ymin() + b.height() / 2);
  rect->set_width(b.width());
  rect->set_height(b.height());
  return absl::OkStatus();
}

absl::Status DetectionsToRectsCalculator::ComputeRotation(const Detection& d,
                                                        const ImageSize& size,
                                                        float* rotation) const {
  if (!size) {
    return absl::InvalidArgumentError(
        "DetectionsToRectsCalculator: IMAGE_SIZE missing at this timestamp (needed to rotate)");
  }
  const auto& kps = d.location_data().relative_keypoints();
  const int start = options_.rotation_vector_start_keypoint_index();
  const int end = options_.rotation_vector_end_keypoint_index();
  if (start < 0 || end < 0 || start >= kps.size() || end >= kps.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DetectionsToRectsCalculator: rotation keypoints ", start, " and ", end,
        " but the detection has ", kps.size(), " keypoints"));
  }
  const float x0 = kps[start].x() * size->first;
  const float y0 = kps[start].y() * size->second;
  const float x1 = kps[end].x() * size->first;
  const float y1 = kps[end].y() * size->second;
  *rotation = NormalizeRadians(target_angle_ - std::atan2(-(y1 - y0), x1 - x0));
  return absl::OkStatus();
}

REGISTER_CALCULATOR(DetectionsToRectsCalculator);

}  // namespace sluice
