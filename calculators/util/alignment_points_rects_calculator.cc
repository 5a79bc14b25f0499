// AlignmentPointsRectsCalculator: a DetectionsToRectsCalculator whose
// normalized rect is built from two alignment keypoints instead of the box:
// centred on the start keypoint, a square (in pixels) whose side is twice the
// start->end distance, rotated like DetectionsToRects (the start->end vector
// brought to the target angle). RECT outputs keep DetectionsToRects' geometry,
// as in MediaPipe.
//
//   node {
//     calculator: "AlignmentPointsRectsCalculator"
//     input_stream: "DETECTION:detection"
//     input_stream: "IMAGE_SIZE:image_size"      # std::pair<int,int>, required
//     output_stream: "NORM_RECT:raw_roi"
//     options: { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
//       rotation_vector_start_keypoint_index: 0
//       rotation_vector_end_keypoint_index: 1
//       rotation_vector_target_angle_degrees: 90
//     } }
//   }
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/detections_to_rects_calculator.h"
#include "framework/calculator_registry.h"

namespace sluice {

class AlignmentPointsRectsCalculator : public DetectionsToRectsCalculator {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const auto& o = cc->Options<mediapipe::DetectionsToRectsCalculatorOptions>();
    if (!o.has_rotation_vector_start_keypoint_index() ||
        !o.has_rotation_vector_end_keypoint_index()) {
      return absl::InvalidArgumentError(
          "AlignmentPointsRectsCalculator: set rotation_vector_start_keypoint_index and "
          "rotation_vector_end_keypoint_index (they give the rect's centre and size)");
    }
    return DetectionsToRectsCalculator::GetContract(cc);
  }

 protected:
  absl::Status ToNormalizedRect(const mediapipe::Detection& d, const ImageSize& size,
                                mediapipe::NormalizedRect* rect) const override {
    if (!size) {
      return absl::InvalidArgumentError(
          "AlignmentPointsRectsCalculator: IMAGE_SIZE missing at this timestamp");
    }
    const auto& kps = d.location_data().relative_keypoints();
    const int start = options_.rotation_vector_start_keypoint_index();
    const int end = options_.rotation_vector_end_keypoint_index();
    if (start < 0 || end < 0 || start >= kps.size() || end >= kps.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "AlignmentPointsRectsCalculator: keypoints ", start, " and ", end,
          " requested but the detection has ", kps.size(), " keypoints"));
    }
    const float width = static_cast<float>(size->first);
    const float height = static_cast<float>(size->second);
    const float x_center = kps[start].x() * width;
    const float y_center = kps[start].y() * height;
    const float x_end = kps[end].x() * width;
    const float y_end = kps[end].y() * height;
    const float box_size = std::sqrt((x_end - x_center) * (x_end - x_center) +
                                     (y_end - y_center) * (y_end - y_center)) *
                           2.0f;
    rect->set_x_center(x_center / width);
    rect->set_y_center(y_center / height);
    rect->set_width(box_size / width);
    rect->set_height(box_size / height);
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(AlignmentPointsRectsCalculator);

}  // namespace sluice
