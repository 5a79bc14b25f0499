// RectTransformationCalculator: scales, shifts (along the rect's rotated axes)
// and squares rects, e.g. to grow a palm box into a hand ROI.
//
//   node {
//     calculator: "RectTransformationCalculator"
//     input_stream: "NORM_RECT:raw_roi"          # or NORM_RECTS, RECT, RECTS
//     input_stream: "IMAGE_SIZE:image_size"      # std::pair<int,int>; NORM_* only
//     output_stream: "roi"
//     options: { [mediapipe.RectTransformationCalculatorOptions.ext] {
//       scale_x: 2.6 scale_y: 2.6 shift_y: -0.5 square_long: true
//     } }
//   }
//
// Normalized rects are squared in pixels. The `rotation` options steer only the
// shift; the output keeps the input's rotation (as MediaPipe does).
#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "calculators/util/geometry_util.h"
#include "calculators/util/rect_transformation_calculator.pb.h"
#include "formats/rect.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kNormRectTag[] = "NORM_RECT";
constexpr char kNormRectsTag[] = "NORM_RECTS";
constexpr char kRectTag[] = "RECT";
constexpr char kRectsTag[] = "RECTS";
constexpr char kImageSizeTag[] = "IMAGE_SIZE";

using mediapipe::NormalizedRect;
using mediapipe::Rect;
using mediapipe::RectTransformationCalculatorOptions;

}  // namespace

class RectTransformationCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    int inputs = 0;
    for (const char* tag : {kNormRectTag, kNormRectsTag, kRectTag, kRectsTag}) {
      inputs += cc->Inputs().HasTag(tag) ? 1 : 0;
    }
    if (inputs != 1) {
      return absl::InvalidArgumentError(
          "RectTransformationCalculator: connect exactly one of NORM_RECT, NORM_RECTS, RECT, "
          "RECTS");
    }
    if (cc->Outputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(
          "RectTransformationCalculator: needs one untagged output stream");
    }
    const bool norm = cc->Inputs().HasTag(kNormRectTag) || cc->Inputs().HasTag(kNormRectsTag);
    if (norm) {
      if (!cc->Inputs().HasTag(kImageSizeTag)) {
        return absl::InvalidArgumentError(
            "RectTransformationCalculator: NORM_RECT(S) needs an IMAGE_SIZE input");
      }
      cc->Inputs().Tag(kImageSizeTag).Set<std::pair<int, int>>();
    }
    if (cc->Inputs().HasTag(kNormRectTag)) {
      cc->Inputs().Tag(kNormRectTag).Set<NormalizedRect>();
      cc->Outputs().Index(0).Set<NormalizedRect>();
    } else if (cc->Inputs().HasTag(kNormRectsTag)) {
      cc->Inputs().Tag(kNormRectsTag).Set<std::vector<NormalizedRect>>();
      cc->Outputs().Index(0).Set<std::vector<NormalizedRect>>();
    } else if (cc->Inputs().HasTag(kRectTag)) {
      cc->Inputs().Tag(kRectTag).Set<Rect>();
      cc->Outputs().Index(0).Set<Rect>();
    } else {
      cc->Inputs().Tag(kRectsTag).Set<std::vector<Rect>>();
      cc->Outputs().Index(0).Set<std::vector<Rect>>();
    }
    const auto& o = cc->Options<RectTransformationCalculatorOptions>();
    if (o.square_long() && o.square_short()) {
      return absl::InvalidArgumentError(
          "RectTransformationCalculator: square_long and square_short are exclusive");
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    options_ = cc->Options<RectTransformationCalculatorOptions>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Timestamp ts = cc->InputTimestamp();
    if (cc->Inputs().HasTag(kRectTag)) {
      if (cc->Inputs().Tag(kRectTag).IsEmpty()) return absl::OkStatus();
      auto rect = std::make_unique<Rect>(cc->Inputs().Tag(kRectTag).Get<Rect>());
      Transform(rect.get());
      cc->Outputs().Index(0).Add(rect.release(), ts);
      return absl::OkStatus();
    }
    if (cc->Inputs().HasTag(kRectsTag)) {
      if (cc->Inputs().Tag(kRectsTag).IsEmpty()) return absl::OkStatus();
      auto rects = std::make_unique<std::vector<Rect>>(
          cc->Inputs().Tag(kRectsTag).Get<std::vector<Rect>>());
      for (Rect& r : *rects) Transform(&r);
      cc->Outputs().Index(0).Add(rects.release(), ts);
      return absl::OkStatus();
    }
    const bool single = cc->Inputs().HasTag(kNormRectTag);
    const InputStreamShard& in = cc->Inputs().Tag(single ? kNormRectTag : kNormRectsTag);
    if (in.IsEmpty() || cc->Inputs().Tag(kImageSizeTag).IsEmpty()) return absl::OkStatus();
    const auto& size = cc->Inputs().Tag(kImageSizeTag).Get<std::pair<int, int>>();
    if (size.first <= 0 || size.second <= 0) {
      return absl::InvalidArgumentError("RectTransformationCalculator: IMAGE_SIZE must be positive");
    }
    if (single) {
      auto rect = std::make_unique<NormalizedRect>(in.Get<NormalizedRect>());
      Transform(rect.get(), size.first, size.second);
      cc->Outputs().Index(0).Add(rect.release(), ts);
    } else {
      auto rects = std::make_unique<std::vector<NormalizedRect>>(
          in.Get<std::vector<NormalizedRect>>());
      for (NormalizedRect& r : *rects) Transform(&r, size.first, size.second);
      cc->Outputs().Index(0).Add(rects.release(), ts);
    }
    return absl::OkStatus();
  }

 private:
  float ShiftRotation(float rotation) const {
    if (options_.has_rotation()) {
      rotation += options_.rotation();
    } else if (options_.has_rotation_degrees()) {
      rotation += M_PI * options_.rotation_degrees() / 180.f;
    } else {
      return rotation;
    }
    return NormalizeRadians(rotation);
  }

  void Transform(Rect* rect) const {
    float width = rect->width();
    float height = rect->height();
    const float rotation = ShiftRotation(rect->rotation());
    if (rotation == 0.f) {
      rect->set_x_center(rect->x_center() + width * options_.shift_x());
      rect->set_y_center(rect->y_center() + height * options_.shift_y());
    } else {
      const float dx = width * options_.shift_x() * std::cos(rotation) -
                       height * options_.shift_y() * std::sin(rotation);
      const float dy = width * options_.shift_x() * std::sin(rotation) +
                       height * options_.shift_y() * std::cos(rotation);
      rect->set_x_center(rect->x_center() + dx);
      rect->set_y_center(rect->y_center() + dy);
    }
    if (options_.square_long()) {
      width = height = std::max(width, height);
    } else if (options_.square_short()) {
      width = height = std::min(width, height);
    }
    rect->set_width(width * options_.scale_x());
    rect->set_height(height * options_.scale_y());
  }

  // Shift and squaring are done in pixels so that rotated rects stay rigid.
  void Transform(NormalizedRect* rect, int image_width, int image_height) const {
    float width = rect->width();
    float height = rect->height();
    const float rotation = ShiftRotation(rect->rotation());
    if (rotation == 0.f) {
      rect->set_x_center(rect->x_center() + width * options_.shift_x());
      rect->set_y_center(rect->y_center() + height * options_.shift_y());
    } else {
      const float dx = (image_width * width * options_.shift_x() * std::cos(rotation) -
                        image_height * height * options_.shift_y() * std::sin(rotation)) /
                       image_width;
      const float dy = (image_width * width * options_.shift_x() * std::sin(rotation) +
                        image_height * height * options_.shift_y() * std::cos(rotation)) /
                       image_height;
      rect->set_x_center(rect->x_center() + dx);
      rect->set_y_center(rect->y_center() + dy);
    }
    if (options_.square_long() || options_.square_short()) {
      const float side = options_.square_long()
                             ? std::max(width * image_width, height * image_height)
                             : std::min(width * image_width, height * image_height);
      width = side / image_width;
      height = side / image_height;
    }
    rect->set_width(width * options_.scale_x());
    rect->set_height(height * options_.scale_y());
  }

  RectTransformationCalculatorOptions options_;
};
REGISTER_CALCULATOR(RectTransformationCalculator);

}  // namespace sluice
