// RectToRenderDataCalculator: a rect, or a vector of rects, as a RenderData
// of rectangles (or ovals, filled or not), for AnnotationOverlayCalculator.
// MediaPipe's name, tags and options (RectToRenderDataCalculatorOptions).
//
// Inputs (exactly one): NORM_RECT (NormalizedRect), RECT (Rect), NORM_RECTS
//   (std::vector<NormalizedRect>), RECTS (std::vector<Rect>).
// Output: RENDER_DATA (RenderData), one annotation per rect, at every input
//   timestamp. As in MediaPipe, an unrotated rect entirely left of or above
//   the image (or, normalized, right of or below it) keeps its annotation
//   with no coordinates set.
//
//   node {
//     calculator: "RectToRenderDataCalculator"
//     input_stream: "NORM_RECT:hand_rect"
//     output_stream: "RENDER_DATA:hand_rect_render_data"
//     options { [mediapipe.RectToRenderDataCalculatorOptions.ext] {
//       filled: false color { r: 255 g: 0 b: 0 } thickness: 4.0 } }
//   }
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/rect_to_render_data_calculator.pb.h"
#include "formats/rect.pb.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kNormRectTag[] = "NORM_RECT";
constexpr char kRectTag[] = "RECT";
constexpr char kNormRectsTag[] = "NORM_RECTS";
constexpr char kRectsTag[] = "RECTS";
constexpr char kRenderDataTag[] = "RENDER_DATA";

using mediapipe::NormalizedRect;
using mediapipe::Rect;
using mediapipe::RectToRenderDataCalculatorOptions;
using mediapipe::RenderAnnotation;
using mediapipe::RenderData;

RenderAnnotation::Rectangle* NewRect(const RectToRenderDataCalculatorOptions& options,
                                     RenderData* render_data) {
  RenderAnnotation* a = render_data->add_render_annotations();
  a->mutable_color()->set_r(options.color().r());
  a->mutable_color()->set_g(options.color().g());
  a->mutable_color()->set_b(options.color().b());
  a->set_thickness(options.thickness());
  if (options.has_top_left_thickness()) {
    a->mutable_rectangle()->set_top_left_thickness(options.top_left_thickness());
  }
  if (options.oval()) {
    return options.filled() ? a->mutable_filled_oval()->mutable_oval()->mutable_rectangle()
                            : a->mutable_oval()->mutable_rectangle();
  }
  return options.filled() ? a->mutable_filled_rectangle()->mutable_rectangle()
                          : a->mutable_rectangle();
}

// (xmin, ymin) is computed in float from the rect's centre and size, as
// MediaPipe does, so that the doubles stored are the same.
void SetRect(bool normalized, double xmin, double ymin, double width, double height,
             double rotation, RenderAnnotation::Rectangle* rect) {
  if (rotation == 0.0) {
    if (xmin + width < 0.0 || ymin + height < 0.0) return;
    if (normalized && (xmin > 1.0 || ymin > 1.0)) return;
  }
  rect->set_normalized(normalized);
  rect->set_left(xmin);
  rect->set_top(ymin);
  rect->set_right(xmin + width);
  rect->set_bottom(ymin + height);
  rect->set_rotation(rotation);
}

template <typename R>
void AddRect(bool normalized, const R& r, const RectToRenderDataCalculatorOptions& options,
             RenderData* render_data) {
  SetRect(normalized, r.x_center() - r.width() / 2.f, r.y_center() - r.height() / 2.f, r.width(),
          r.height(), r.rotation(), NewRect(options, render_data));
}

}  // namespace

class RectToRenderDataCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string prefix =
        absl::StrCat("RectToRenderDataCalculator \"", cc->GetNodeName(), "\": ");
    int n = 0;
    for (const char* tag : {kNormRectTag, kRectTag, kNormRectsTag, kRectsTag}) {
      n += cc->Inputs().HasTag(tag) ? 1 : 0;
    }
    if (n != 1 || cc->Inputs().NumEntries() != 1) {
      return absl::InvalidArgumentError(
          prefix + "needs exactly one input: NORM_RECT, RECT, NORM_RECTS or RECTS");
    }
    if (!cc->Outputs().HasTag(kRenderDataTag)) {
      return absl::InvalidArgumentError(prefix + "needs a RENDER_DATA output");
    }
    if (cc->Inputs().HasTag(kNormRectTag)) cc->Inputs().Tag(kNormRectTag).Set<NormalizedRect>();
    if (cc->Inputs().HasTag(kRectTag)) cc->Inputs().Tag(kRectTag).Set<Rect>();
    if (cc->Inputs().HasTag(kNormRectsTag)) {
      cc->Inputs().Tag(kNormRectsTag).Set<std::vector<NormalizedRect>>();
    }
    if (cc->Inputs().HasTag(kRectsTag)) cc->Inputs().Tag(kRectsTag).Set<std::vector<Rect>>();
    cc->Outputs().Tag(kRenderDataTag).Set<RenderData>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<RectToRenderDataCalculatorOptions>();
    if (options_.has_top_left_thickness() && (options_.filled() || options_.oval())) {
      return absl::InvalidArgumentError(
          absl::StrCat("RectToRenderDataCalculator \"", cc->NodeName(),
                       "\": top_left_thickness needs filled: false and oval: false"));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    auto render_data = std::make_unique<RenderData>();
    auto has = [cc](const char* tag) {
      return cc->Inputs().HasTag(tag) && !cc->Inputs().Tag(tag).IsEmpty();
    };
    if (has(kNormRectTag)) {
      AddRect(true, cc->Inputs().Tag(kNormRectTag).Get<NormalizedRect>(), options_,
              render_data.get());
    }
    if (has(kRectTag)) {
      AddRect(false, cc->Inputs().Tag(kRectTag).Get<Rect>(), options_, render_data.get());
    }
    if (has(kNormRectsTag)) {
      for (const auto& r : cc->Inputs().Tag(kNormRectsTag).Get<std::vector<NormalizedRect>>()) {
        AddRect(true, r, options_, render_data.get());
      }
    }
    if (has(kRectsTag)) {
      for (const auto& r : cc->Inputs().Tag(kRectsTag).Get<std::vector<Rect>>()) {
        AddRect(false, r, options_, render_data.get());
      }
    }
    cc->Outputs().Tag(kRenderDataTag).Add(render_data.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  RectToRenderDataCalculatorOptions options_;
};

REGISTER_CALCULATOR(RectToRenderDataCalculator);

}  // namespace sluice
