// LandmarksToDetectionCalculator: a landmark list as a Detection whose
// relative box just holds the landmarks and whose keypoints are the landmarks
// (x, y), in order. Face and pose tracking turn landmarks into the next crop
// this way (DetectionsToRectsCalculator reads the box and two keypoints).
//
//   node {
//     calculator: "LandmarksToDetectionCalculator"
//     input_stream: "NORM_LANDMARKS:landmarks"    # NormalizedLandmarkList
//     output_stream: "DETECTION:detection"        # Detection
//     # optional: [mediapipe.LandmarksToDetectionCalculatorOptions.ext]
//     #   { selected_landmark_indices: [...] } to use a subset.
//   }
#include <algorithm>
#include <limits>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/landmarks_to_detection_calculator.pb.h"
#include "formats/detection.pb.h"
#include "formats/landmark.pb.h"
#include "formats/location_data.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kDetectionTag[] = "DETECTION";

using mediapipe::Detection;
using mediapipe::LandmarksToDetectionCalculatorOptions;
using mediapipe::LocationData;
using mediapipe::NormalizedLandmark;
using mediapipe::NormalizedLandmarkList;

}  // namespace

class LandmarksToDetectionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kLandmarksTag) || !cc->Outputs().HasTag(kDetectionTag)) {
      return absl::InvalidArgumentError(
          "LandmarksToDetectionCalculator: needs NORM_LANDMARKS in and DETECTION out");
    }
    cc->Inputs().Tag(kLandmarksTag).Set<NormalizedLandmarkList>();
    cc->Outputs().Tag(kDetectionTag).Set<Detection>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    options_ = cc->Options<LandmarksToDetectionCalculatorOptions>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kLandmarksTag).IsEmpty()) return absl::OkStatus();
    const auto& landmarks = cc->Inputs().Tag(kLandmarksTag).Get<NormalizedLandmarkList>();
    if (landmarks.landmark_size() == 0) {
      return absl::InvalidArgumentError("LandmarksToDetectionCalculator: empty landmark list");
    }
    auto detection = std::make_unique<Detection>();
    LocationData* location = detection->mutable_location_data();
    // MediaPipe starts the maxima at the smallest positive float, not the
    // lowest one: a box entirely left of / above the image keeps a max of
    // ~0. Kept for identical crops.
    float x_min = std::numeric_limits<float>::max(), y_min = x_min;
    float x_max = std::numeric_limits<float>::min(), y_max = x_max;
    auto add = [&](const NormalizedLandmark& l) {
      x_min = std::min(x_min, l.x());
      x_max = std::max(x_max, l.x());
      y_min = std::min(y_min, l.y());
      y_max = std::max(y_max, l.y());
      auto* kp = location->add_relative_keypoints();
      kp->set_x(l.x());
      kp->set_y(l.y());
    };
    if (options_.selected_landmark_indices_size() > 0) {
      for (int index : options_.selected_landmark_indices()) {
        if (index < 0 || index >= landmarks.landmark_size()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "LandmarksToDetectionCalculator: selected_landmark_indices has ", index,
              ", the list has ", landmarks.landmark_size(), " landmarks"));
        }
        add(landmarks.landmark(index));
      }
    } else {
      for (const NormalizedLandmark& l : landmarks.landmark()) add(l);
    }
    location->set_format(LocationData::RELATIVE_BOUNDING_BOX);
    auto* box = location->mutable_relative_bounding_box();
    box->set_xmin(x_min);
    box->set_ymin(y_min);
    box->set_width(x_max - x_min);
    box->set_height(y_max - y_min);
    cc->Outputs().Tag(kDetectionTag).Add(detection.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  LandmarksToDetectionCalculatorOptions options_;
};
REGISTER_CALCULATOR(LandmarksToDetectionCalculator);

}  // namespace sluice
