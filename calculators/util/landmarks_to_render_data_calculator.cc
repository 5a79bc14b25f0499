// LandmarksToRenderDataCalculator: landmarks and their connections as a
// RenderData of points and lines, for AnnotationOverlayCalculator.
// MediaPipe's name, tags, options (LandmarksToRenderDataCalculatorOptions)
// and output: connections first (in option order), then one point per
// landmark (scene_tag KEYPOINT). With visualize_landmark_depth and a z
// spread above 1e-3, connections are gradient lines from
// min_depth_line_color (black by default) towards max_depth_line_color
// (white) by each end's z, and points go grey and shrink with z; otherwise
// lines in connection_color. Landmarks below the visibility / presence
// thresholds (when used) are skipped with their connections; connections
// naming landmarks the list lacks are skipped, as in MediaPipe.
//
// Inputs: LANDMARKS (LandmarkList, pixel coordinates) or NORM_LANDMARKS
//   (NormalizedLandmarkList); optional RENDER_SCALE (float) multiplies the
//   thickness. An empty landmark packet gives no output.
// Output: RENDER_DATA (RenderData).
//
//   node {
//     calculator: "LandmarksToRenderDataCalculator"
//     input_stream: "NORM_LANDMARKS:landmarks"
//     output_stream: "RENDER_DATA:landmark_render_data"
//     options { [mediapipe.LandmarksToRenderDataCalculatorOptions.ext] {
//       landmark_connections: [0, 1, 1, 2]
//       landmark_color { r: 255 g: 0 b: 0 } connection_color { r: 0 g: 255 b: 0 }
//       thickness: 4.0 } }
//   }
#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/core/end_loop_calculator.h"
#include "calculators/util/landmarks_to_render_data_calculator.pb.h"
#include "formats/color.pb.h"
#include "formats/landmark.pb.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kNormLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kRenderScaleTag[] = "RENDER_SCALE";
constexpr char kRenderDataTag[] = "RENDER_DATA";

using mediapipe::Color;
using mediapipe::LandmarksToRenderDataCalculatorOptions;
using mediapipe::RenderAnnotation;
using mediapipe::RenderData;
using Options = LandmarksToRenderDataCalculatorOptions;

Color MakeColor(int r, int g, int b) {
  Color c;
  c.set_r(r);
  c.set_g(g);
  c.set_b(b);
  return c;
}

// The float arithmetic below is MediaPipe's, so that colours and
// thicknesses come out the same.
Color MixColors(const Color& c1, const Color& c2, float w1) {
  return MakeColor(static_cast<int>(c1.r() * w1 + c2.r() * (1.f - w1)),
                   static_cast<int>(c1.g() * w1 + c2.g() * (1.f - w1)),
                   static_cast<int>(c1.b() * w1 + c2.b() * (1.f - w1)));
}

float Remap(float x, float lo, float hi, float scale) {
  return (x - lo) / (hi - lo + 1e-6) * scale;
}

void SetColor(RenderAnnotation* a, const Color& c) {
  a->mutable_color()->set_r(c.r());
  a->mutable_color()->set_g(c.g());
  a->mutable_color()->set_b(c.b());
}

template <typename LandmarkT>
bool VisibleAndPresent(const LandmarkT& lm, const Options& o) {
  if (o.utilize_visibility() && lm.has_visibility() &&
      lm.visibility() < static_cast<float>(o.visibility_threshold())) {
    return false;
  }
  if (o.utilize_presence() && lm.has_presence() &&
      lm.presence() < static_cast<float>(o.presence_threshold())) {
    return false;
  }
  return true;
}

template <typename ListT>
RenderData Build(const ListT& landmarks, bool normalized, const Options& o, float thickness) {
  RenderData rd;
  // MediaPipe starts the maximum at the smallest positive float.
  float z_min = 0.f, z_max = 0.f;
  bool depth = o.visualize_landmark_depth();
  if (depth) {
    z_min = std::numeric_limits<float>::max();
    z_max = std::numeric_limits<float>::min();
    for (const auto& lm : landmarks.landmark()) {
      z_min = std::min(lm.z(), z_min);
      z_max = std::max(lm.z(), z_max);
    }
  }
  depth = depth && (z_max - z_min) > 1e-3;
  const Color min_line =
      o.has_min_depth_line_color() ? o.min_depth_line_color() : MakeColor(0, 0, 0);
  const Color max_line =
      o.has_max_depth_line_color() ? o.max_depth_line_color() : MakeColor(255, 255, 255);
  const int n = landmarks.landmark_size();
  for (int i = 0; i + 1 < o.landmark_connections_size(); i += 2) {
    const int a = o.landmark_connections(i), b = o.landmark_connections(i + 1);
    if (a >= n || b >= n) continue;
    const auto& l0 = landmarks.landmark(a);
    const auto& l1 = landmarks.landmark(b);
    if (!VisibleAndPresent(l0, o) || !VisibleAndPresent(l1, o)) continue;
    RenderAnnotation* ann = rd.add_render_annotations();
    if (depth) {
      auto* line = ann->mutable_gradient_line();
      line->set_x_start(l0.x());
      line->set_y_start(l0.y());
      line->set_x_end(l1.x());
      line->set_y_end(l1.y());
      line->set_normalized(normalized);
      *line->mutable_color1() = MixColors(min_line, max_line, Remap(l0.z(), z_min, z_max, 1.f));
      *line->mutable_color2() = MixColors(min_line, max_line, Remap(l1.z(), z_min, z_max, 1.f));
    } else {
      auto* line = ann->mutable_line();
      line->set_x_start(l0.x());
      line->set_y_start(l0.y());
      line->set_x_end(l1.x());
      line->set_y_end(l1.y());
      line->set_normalized(normalized);
      SetColor(ann, o.connection_color());
    }
    ann->set_thickness(thickness);
  }
  if (!o.render_landmarks()) return rd;
  const float min_circle = static_cast<float>(o.min_depth_circle_thickness());
  const float max_circle = static_cast<float>(o.max_depth_circle_thickness());
  for (const auto& lm : landmarks.landmark()) {
    if (!VisibleAndPresent(lm, o)) continue;
    RenderAnnotation* ann = rd.add_render_annotations();
    ann->set_scene_tag("KEYPOINT");
    SetColor(ann, o.landmark_color());
    ann->set_thickness(thickness);
    if (depth) {
      // Nearer (smaller z) is brighter and bigger.
      const int v = 255 - static_cast<int>(Remap(lm.z(), z_min, z_max, 255));
      SetColor(ann, MakeColor(v, v, v));
      ann->set_thickness(static_cast<int>(
          min_circle + (1.f - Remap(lm.z(), z_min, z_max, 1)) * (max_circle - min_circle)));
    }
    auto* p = ann->mutable_point();
    p->set_normalized(normalized);
    p->set_x(lm.x());
    p->set_y(lm.y());
  }
  return rd;
}

}  // namespace

class LandmarksToRenderDataCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string prefix =
        absl::StrCat("LandmarksToRenderDataCalculator \"", cc->GetNodeName(), "\": ");
    if (cc->Inputs().HasTag(kLandmarksTag) == cc->Inputs().HasTag(kNormLandmarksTag)) {
      return absl::InvalidArgumentError(prefix +
                                        "needs exactly one of LANDMARKS and NORM_LANDMARKS");
    }
    if (!cc->Outputs().HasTag(kRenderDataTag)) {
      return absl::InvalidArgumentError(prefix + "needs a RENDER_DATA output");
    }
    if (cc->Inputs().HasTag(kLandmarksTag)) {
      cc->Inputs().Tag(kLandmarksTag).Set<mediapipe::LandmarkList>();
    } else {
      cc->Inputs().Tag(kNormLandmarksTag).Set<mediapipe::NormalizedLandmarkList>();
    }
    if (cc->Inputs().HasTag(kRenderScaleTag)) cc->Inputs().Tag(kRenderScaleTag).Set<float>();
    cc->Outputs().Tag(kRenderDataTag).Set<RenderData>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<Options>();
    const std::string prefix =
        absl::StrCat("LandmarksToRenderDataCalculator \"", cc->NodeName(), "\": ");
    if (options_.landmark_connections_size() % 2 != 0) {
      return absl::InvalidArgumentError(
          prefix + "landmark_connections must hold pairs (an even number of entries)");
    }
    for (int c : options_.landmark_connections()) {
      if (c < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(prefix, "landmark_connections has a negative index ", c));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const bool pixels = cc->Inputs().HasTag(kLandmarksTag);
    const auto& in = cc->Inputs().Tag(pixels ? kLandmarksTag : kNormLandmarksTag);
    if (in.IsEmpty()) return absl::OkStatus();
    // MediaPipe keeps the thickness in a float.
    float thickness = static_cast<float>(options_.thickness());
    if (cc->Inputs().HasTag(kRenderScaleTag) && !cc->Inputs().Tag(kRenderScaleTag).IsEmpty()) {
      thickness *= cc->Inputs().Tag(kRenderScaleTag).Get<float>();
    }
    RenderData rd = pixels ? Build(in.Get<mediapipe::LandmarkList>(), false, options_, thickness)
                           : Build(in.Get<mediapipe::NormalizedLandmarkList>(), true, options_,
                                   thickness);
    cc->Outputs().Tag(kRenderDataTag).Add(new RenderData(std::move(rd)), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  Options options_;
};

REGISTER_CALCULATOR(LandmarksToRenderDataCalculator);

// Collects the per-hand (per-face, ...) RenderData of a BeginLoop / EndLoop
// pair into the std::vector<RenderData> that AnnotationOverlayCalculator's
// VECTOR input takes (MediaPipe's hand and face renderer graphs).
SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopRenderDataCalculator, std::vector<RenderData>);

}  // namespace sluice
