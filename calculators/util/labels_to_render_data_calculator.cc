// LabelsToRenderDataCalculator: class labels (e.g. handedness) as RenderData
// text lines at the top left of the image, for AnnotationOverlayCalculator.
// MediaPipe's name, tags and options (LabelsToRenderDataCalculatorOptions):
// line i has its baseline at vertical_offset_px + (i + 1) *
// ceil(1.25 * font_height_px), starts at horizontal_offset_px, and reads
// "label" or, with scores, "label:score".
//
// Inputs: CLASSIFICATIONS (ClassificationList), or LABELS
//   (std::vector<std::string>) with optional SCORES (std::vector<float>).
//   MediaPipe's VIDEO_PRESTREAM (for BOTTOM_LEFT) is not supported.
// Output: RENDER_DATA (RenderData), up to max_num_labels lines.
//
//   node {
//     calculator: "LabelsToRenderDataCalculator"
//     input_stream: "CLASSIFICATIONS:handedness"
//     output_stream: "RENDER_DATA:handedness_render_data"
//     options { [mediapipe.LabelsToRenderDataCalculatorOptions.ext] {
//       color { r: 255 g: 0 b: 0 } thickness: 10.0 font_height_px: 50
//       horizontal_offset_px: 30 vertical_offset_px: 50 } }
//   }
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/labels_to_render_data_calculator.pb.h"
#include "formats/classification.pb.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kClassificationsTag[] = "CLASSIFICATIONS";
constexpr char kLabelsTag[] = "LABELS";
constexpr char kScoresTag[] = "SCORES";
constexpr char kRenderDataTag[] = "RENDER_DATA";

using mediapipe::ClassificationList;
using mediapipe::LabelsToRenderDataCalculatorOptions;
using mediapipe::RenderData;

}  // namespace

class LabelsToRenderDataCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string prefix =
        absl::StrCat("LabelsToRenderDataCalculator \"", cc->GetNodeName(), "\": ");
    if (cc->Inputs().HasTag(kClassificationsTag)) {
      cc->Inputs().Tag(kClassificationsTag).Set<ClassificationList>();
    } else if (cc->Inputs().HasTag(kLabelsTag)) {
      cc->Inputs().Tag(kLabelsTag).Set<std::vector<std::string>>();
      if (cc->Inputs().HasTag(kScoresTag)) {
        cc->Inputs().Tag(kScoresTag).Set<std::vector<float>>();
      }
    } else {
      return absl::InvalidArgumentError(prefix + "needs a CLASSIFICATIONS or LABELS input");
    }
    if (cc->Inputs().HasTag("VIDEO_PRESTREAM")) {
      return absl::UnimplementedError(prefix + "VIDEO_PRESTREAM is not supported");
    }
    if (!cc->Outputs().HasTag(kRenderDataTag)) {
      return absl::InvalidArgumentError(prefix + "needs a RENDER_DATA output");
    }
    cc->Outputs().Tag(kRenderDataTag).Set<RenderData>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<LabelsToRenderDataCalculatorOptions>();
    if (options_.location() != LabelsToRenderDataCalculatorOptions::TOP_LEFT) {
      return absl::UnimplementedError(
          absl::StrCat("LabelsToRenderDataCalculator \"", cc->NodeName(),
                       "\": only location TOP_LEFT is supported (BOTTOM_LEFT needs the video "
                       "height from VIDEO_PRESTREAM)"));
    }
    label_height_px_ = static_cast<int>(std::ceil(options_.font_height_px() * 1.25f));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    std::vector<std::string> labels;
    std::vector<float> scores;
    const bool from_classifications = cc->Inputs().HasTag(kClassificationsTag);
    const auto& in = cc->Inputs().Tag(from_classifications ? kClassificationsTag : kLabelsTag);
    if (in.IsEmpty()) return absl::OkStatus();
    bool with_scores = options_.display_classification_score();
    if (from_classifications) {
      for (const auto& c : in.Get<ClassificationList>().classification()) {
        labels.push_back(options_.use_display_name() ? c.display_name() : c.label());
        scores.push_back(c.score());
      }
    } else {
      labels = in.Get<std::vector<std::string>>();
      if (cc->Inputs().HasTag(kScoresTag)) {
        with_scores = true;
        if (!cc->Inputs().Tag(kScoresTag).IsEmpty()) {
          scores = cc->Inputs().Tag(kScoresTag).Get<std::vector<float>>();
        }
        if (scores.size() != labels.size()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "LabelsToRenderDataCalculator \"", cc->NodeName(), "\": ", labels.size(),
              " labels but ", scores.size(), " scores"));
        }
      } else {
        scores.assign(labels.size(), 0.f);
      }
    }
    auto rd = std::make_unique<RenderData>();
    const int n = std::min(static_cast<int>(labels.size()), options_.max_num_labels());
    const int baseline = options_.vertical_offset_px() + label_height_px_;
    for (int i = 0; i < n; ++i) {
      auto* a = rd->add_render_annotations();
      a->set_thickness(options_.thickness());
      if (options_.color_size() > 0) {
        *a->mutable_color() = options_.color(i % options_.color_size());
      } else {
        a->mutable_color()->set_r(255);
        a->mutable_color()->set_g(0);
        a->mutable_color()->set_b(0);
      }
      auto* text = a->mutable_text();
      text->set_display_text(with_scores ? absl::StrCat(labels[i], ":", scores[i]) : labels[i]);
      text->set_font_height(options_.font_height_px());
      text->set_left(options_.horizontal_offset_px());
      text->set_baseline(baseline + i * label_height_px_);
      text->set_font_face(options_.font_face());
      if (options_.outline_thickness() > 0) {
        text->set_outline_thickness(options_.outline_thickness());
        if (options_.outline_color_size() > 0) {
          *text->mutable_outline_color() = options_.outline_color(i % options_.outline_color_size());
        } else {
          text->mutable_outline_color()->set_r(0);
          text->mutable_outline_color()->set_g(0);
          text->mutable_outline_color()->set_b(0);
        }
      }
    }
    cc->Outputs().Tag(kRenderDataTag).Add(rd.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  LabelsToRenderDataCalculatorOptions options_;
  int label_height_px_ = 0;
};

REGISTER_CALCULATOR(LabelsToRenderDataCalculator);

}  // namespace sluice
