// DetectionLetterboxRemovalCalculator: maps relative boxes and keypoints from
// a letterboxed (padded) model input back to the unpadded image.
//
//   node {
//     calculator: "DetectionLetterboxRemovalCalculator"
//     input_stream: "DETECTIONS:detections"              # std::vector<Detection>
//     input_stream: "LETTERBOX_PADDING:letterbox_padding" # std::array<float, 4> l,t,r,b
//     output_stream: "DETECTIONS:detections_unpadded"
//   }
#include <array>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "formats/detection.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kDetectionsTag[] = "DETECTIONS";
constexpr char kPaddingTag[] = "LETTERBOX_PADDING";

using mediapipe::Detection;
using mediapipe::LocationData;

}  // namespace

class DetectionLetterboxRemovalCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kDetectionsTag) || !cc->Inputs().HasTag(kPaddingTag) ||
        !cc->Outputs().HasTag(kDetectionsTag)) {
      return absl::InvalidArgumentError(
          "DetectionLetterboxRemovalCalculator: needs DETECTIONS and LETTERBOX_PADDING inputs "
          "and a DETECTIONS output");
    }
    cc->Inputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
    cc->Inputs().Tag(kPaddingTag).Set<std::array<float, 4>>();
    cc->Outputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kDetectionsTag).IsEmpty()) return absl::OkStatus();
    if (cc->Inputs().Tag(kPaddingTag).IsEmpty()) {
      return absl::InvalidArgumentError(
          "DetectionLetterboxRemovalCalculator: LETTERBOX_PADDING missing at this timestamp");
    }
    const auto& pad = cc->Inputs().Tag(kPaddingTag).Get<std::array<float, 4>>();
    const float left = pad[0], top = pad[1];
    // 1 - (left + right), not 1 - left - right: MediaPipe's rounding.
    const float sx = 1.0f - (pad[0] + pad[2]);
    const float sy = 1.0f - (pad[1] + pad[3]);
    auto out = std::make_unique<std::vector<Detection>>();
    for (const Detection& in : cc->Inputs().Tag(kDetectionsTag).Get<std::vector<Detection>>()) {
      Detection d = in;
      LocationData* loc = d.mutable_location_data();
      if (loc->format() != LocationData::RELATIVE_BOUNDING_BOX) {
        return absl::InvalidArgumentError(
            "DetectionLetterboxRemovalCalculator: detections must use RELATIVE_BOUNDING_BOX");
      }
      auto* box = loc->mutable_relative_bounding_box();
      box->set_xmin((box->xmin() - left) / sx);
      box->set_ymin((box->ymin() - top) / sy);
      box->set_width(box->width() / sx);
      box->set_height(box->height() / sy);
      for (auto& kp : *loc->mutable_relative_keypoints()) {
        kp.set_x((kp.x() - left) / sx);
        kp.set_y((kp.y() - top) / sy);
      }
      out->push_back(std::move(d));
    }
    cc->Outputs().Tag(kDetectionsTag).Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(DetectionLetterboxRemovalCalculator);

}  // namespace sluice
