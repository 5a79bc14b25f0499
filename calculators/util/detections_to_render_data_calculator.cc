// DetectionsToRenderDataCalculator: detections as a RenderData of their
// boxes, keypoints and "label,score," text, for AnnotationOverlayCalculator.
// MediaPipe's name, tags, options (DetectionsToRenderDataCalculatorOptions)
// and layout: per detection, its label line(s) (scene_tag LABEL), the
// feature tag (FEATURE), the box (LOCATION) and, for relative boxes, each
// keypoint as a normalized point (KEYPOINT). Text lines are one font height
// apart for pixel boxes; for relative boxes, min(0.1, 1 / (labels + 1)) of
// the box height, the font 0.9 of that.
//
// Inputs (at least one): DETECTION (Detection), DETECTIONS
//   (std::vector<Detection>), DETECTION_LIST (DetectionList).
// Output: RENDER_DATA (RenderData, scene_class from the options). Without
//   detections: an empty RenderData, or nothing when produce_empty_packet is
//   false.
// Errors: a location format other than BOUNDING_BOX or RELATIVE_BOUNDING_BOX,
//   label and label_id lists of different sizes, or a score count other than
//   the label count (MediaPipe aborts on these).
//
//   node {
//     calculator: "DetectionsToRenderDataCalculator"
//     input_stream: "DETECTIONS:palm_detections"
//     output_stream: "RENDER_DATA:detection_render_data"
//     options { [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] {
//       thickness: 4.0 color { r: 0 g: 255 b: 0 } } }
//   }
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "calculators/util/detections_to_render_data_calculator.pb.h"
#include "formats/detection.pb.h"
#include "formats/location_data.pb.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kDetectionTag[] = "DETECTION";
constexpr char kDetectionsTag[] = "DETECTIONS";
constexpr char kDetectionListTag[] = "DETECTION_LIST";
constexpr char kRenderDataTag[] = "RENDER_DATA";

using mediapipe::Detection;
using mediapipe::DetectionList;
using mediapipe::DetectionsToRenderDataCalculatorOptions;
using mediapipe::LocationData;
using mediapipe::RenderAnnotation;
using mediapipe::RenderData;
using Options = DetectionsToRenderDataCalculatorOptions;

RenderAnnotation* NewAnnotation(const Options& options, const char* scene_tag, RenderData* rd) {
  RenderAnnotation* a = rd->add_render_annotations();
  a->set_scene_tag(scene_tag);
  a->mutable_color()->set_r(options.color().r());
  a->mutable_color()->set_g(options.color().g());
  a->mutable_color()->set_b(options.color().b());
  a->set_thickness(options.thickness());
  return a;
}

// Normalized text starts inside the image: left >= 0, baseline <= 1.
void SetTextCoordinate(bool normalized, double left, double baseline,
                       RenderAnnotation::Text* text) {
  text->set_normalized(normalized);
  text->set_left(normalized ? std::max(left, 0.0) : left);
  text->set_baseline(normalized ? std::min(baseline, 1.0) : baseline);
}

// Boxes wholly outside the image keep an annotation without coordinates;
// normalized boxes are clipped to [0, 1].
void SetRectCoordinate(bool normalized, double xmin, double ymin, double width, double height,
                       RenderAnnotation::Rectangle* rect) {
  if (xmin + width < 0.0 || ymin + height < 0.0) return;
  if (normalized && (xmin > 1.0 || ymin > 1.0)) return;
  rect->set_normalized(normalized);
  rect->set_left(normalized ? std::max(xmin, 0.0) : xmin);
  rect->set_top(normalized ? std::max(ymin, 0.0) : ymin);
  rect->set_right(normalized ? std::min(xmin + width, 1.0) : xmin + width);
  rect->set_bottom(normalized ? std::min(ymin + height, 1.0) : ymin + height);
}

// `line_height` is a float, as in MediaPipe: the baselines it gives are the
// same doubles.
absl::Status AddLabels(const Detection& d, const Options& options, float line_height,
                       RenderData* rd) {
  if (d.label_size() > 0 && d.label_id_size() > 0 && d.label_size() != d.label_id_size()) {
    return absl::InvalidArgumentError(absl::StrCat("detection has ", d.label_size(),
                                                   " labels but ", d.label_id_size(),
                                                   " label ids"));
  }
  const int num_labels = std::max(d.label_size(), d.label_id_size());
  if (d.score_size() != num_labels) {
    return absl::InvalidArgumentError(absl::StrCat("detection has ", d.score_size(),
                                                   " scores for ", num_labels, " labels"));
  }
  std::vector<std::string> label_and_scores;
  for (int i = 0; i < num_labels; ++i) {
    const std::string label = d.label().empty() ? absl::StrCat(d.label_id(i)) : d.label(i);
    // Two decimals.
    const float score = std::round(d.score(i) * 100.f) / 100.f;
    label_and_scores.push_back(
        absl::StrCat(label, options.text_delimiter(), score, options.text_delimiter()));
  }
  std::vector<std::string> lines;
  if (options.render_detection_id()) lines.push_back(absl::StrCat("Id: ", d.detection_id()));
  if (options.one_label_per_line()) {
    lines.insert(lines.end(), label_and_scores.begin(), label_and_scores.end());
  } else {
    lines.push_back(absl::StrJoin(label_and_scores, ""));
  }
  const LocationData& loc = d.location_data();
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    RenderAnnotation::Text* text = NewAnnotation(options, "LABEL", rd)->mutable_text();
    *text = options.text();
    text->set_display_text(lines[i]);
    if (loc.format() == LocationData::BOUNDING_BOX) {
      SetTextCoordinate(false, loc.bounding_box().xmin(),
                        loc.bounding_box().ymin() + (i + 1) * line_height, text);
    } else {
      text->set_font_height(line_height * 0.9);
      SetTextCoordinate(true, loc.relative_bounding_box().xmin(),
                        loc.relative_bounding_box().ymin() + (i + 1) * line_height, text);
    }
  }
  return absl::OkStatus();
}

void AddFeatureTag(const Detection& d, const Options& options, float line_height,
                   RenderData* rd) {
  RenderAnnotation::Text* text = NewAnnotation(options, "FEATURE", rd)->mutable_text();
  text->set_display_text(d.feature_tag());
  const LocationData& loc = d.location_data();
  if (loc.format() == LocationData::BOUNDING_BOX) {
    SetTextCoordinate(false, loc.bounding_box().xmin(),
                      loc.bounding_box().ymin() + loc.bounding_box().height(), text);
  } else {
    text->set_font_height(line_height * 0.9);
    SetTextCoordinate(true, loc.relative_bounding_box().xmin(),
                      loc.relative_bounding_box().ymin() + loc.relative_bounding_box().height(),
                      text);
  }
}

void AddLocationData(const Detection& d, const Options& options, RenderData* rd) {
  RenderAnnotation::Rectangle* rect = NewAnnotation(options, "LOCATION", rd)->mutable_rectangle();
  const LocationData& loc = d.location_data();
  if (loc.format() == LocationData::BOUNDING_BOX) {
    const auto& b = loc.bounding_box();
    SetRectCoordinate(false, b.xmin(), b.ymin(), b.width(), b.height(), rect);
    return;
  }
  const auto& b = loc.relative_bounding_box();
  SetRectCoordinate(true, b.xmin(), b.ymin(), b.width(), b.height(), rect);
  // Keypoints only in relative coordinates, as MediaPipe.
  for (const auto& k : loc.relative_keypoints()) {
    RenderAnnotation::Point* p = NewAnnotation(options, "KEYPOINT", rd)->mutable_point();
    p->set_normalized(true);
    p->set_x(k.x());
    p->set_y(k.y());
  }
}

absl::Status AddDetection(const Detection& d, const Options& options, RenderData* rd) {
  const LocationData& loc = d.location_data();
  if (loc.format() != LocationData::BOUNDING_BOX &&
      loc.format() != LocationData::RELATIVE_BOUNDING_BOX) {
    return absl::InvalidArgumentError(
        absl::StrCat("only BOUNDING_BOX and RELATIVE_BOUNDING_BOX detections can be drawn, not ",
                     LocationData::Format_Name(loc.format())));
  }
  double line_height;
  if (loc.format() == LocationData::BOUNDING_BOX) {
    line_height = options.text().font_height();
  } else {
    // One line per label plus the feature tag, at most 0.1 of the box each.
    line_height = loc.relative_bounding_box().height() *
                  std::min(0.1, 1 / static_cast<double>(
                                        std::max(d.label_size(), d.label_id_size()) + 1));
  }
  if (absl::Status s = AddLabels(d, options, static_cast<float>(line_height), rd); !s.ok()) {
    return s;
  }
  AddFeatureTag(d, options, static_cast<float>(line_height), rd);
  AddLocationData(d, options, rd);
  return absl::OkStatus();
}

}  // namespace

class DetectionsToRenderDataCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string prefix =
        absl::StrCat("DetectionsToRenderDataCalculator \"", cc->GetNodeName(), "\": ");
    if (!cc->Inputs().HasTag(kDetectionTag) && !cc->Inputs().HasTag(kDetectionsTag) &&
        !cc->Inputs().HasTag(kDetectionListTag)) {
      return absl::InvalidArgumentError(
          prefix + "needs a DETECTION, DETECTIONS or DETECTION_LIST input");
    }
    if (!cc->Outputs().HasTag(kRenderDataTag)) {
      return absl::InvalidArgumentError(prefix + "needs a RENDER_DATA output");
    }
    if (cc->Inputs().HasTag(kDetectionTag)) cc->Inputs().Tag(kDetectionTag).Set<Detection>();
    if (cc->Inputs().HasTag(kDetectionsTag)) {
      cc->Inputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
    }
    if (cc->Inputs().HasTag(kDetectionListTag)) {
      cc->Inputs().Tag(kDetectionListTag).Set<DetectionList>();
    }
    cc->Outputs().Tag(kRenderDataTag).Set<RenderData>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<Options>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    auto present = [cc](const char* tag) {
      return cc->Inputs().HasTag(tag) && !cc->Inputs().Tag(tag).IsEmpty();
    };
    const bool from_list =
        present(kDetectionListTag) &&
        !cc->Inputs().Tag(kDetectionListTag).Get<DetectionList>().detection().empty();
    const bool from_vector =
        present(kDetectionsTag) &&
        !cc->Inputs().Tag(kDetectionsTag).Get<std::vector<Detection>>().empty();
    const bool single = present(kDetectionTag);
    if (!options_.produce_empty_packet() && !from_list && !from_vector && !single) {
      return absl::OkStatus();
    }
    auto rd = std::make_unique<RenderData>();
    rd->set_scene_class(options_.scene_class());
    absl::Status s;
    if (from_list) {
      for (const Detection& d : cc->Inputs().Tag(kDetectionListTag).Get<DetectionList>().detection()) {
        if (s.ok()) s = AddDetection(d, options_, rd.get());
      }
    }
    if (from_vector) {
      for (const Detection& d : cc->Inputs().Tag(kDetectionsTag).Get<std::vector<Detection>>()) {
        if (s.ok()) s = AddDetection(d, options_, rd.get());
      }
    }
    if (single && s.ok()) {
      s = AddDetection(cc->Inputs().Tag(kDetectionTag).Get<Detection>(), options_, rd.get());
    }
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("DetectionsToRenderDataCalculator \"",
                                                 cc->NodeName(), "\": ", s.message()));
    }
    cc->Outputs().Tag(kRenderDataTag).Add(rd.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  Options options_;
};

REGISTER_CALCULATOR(DetectionsToRenderDataCalculator);

}  // namespace sluice
