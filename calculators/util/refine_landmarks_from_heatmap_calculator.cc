// RefineLandmarksFromHeatmapCalculator: moves each landmark to the
// confidence-weighted centre of its heatmap channel around the landmark.
//
//   node {
//     calculator: "RefineLandmarksFromHeatmapCalculator"
//     input_stream: "NORM_LANDMARKS:raw_landmarks"
//     input_stream: "TENSORS:heatmap_tensor"     # vector<Tensor>; [0] = heatmap
//     output_stream: "NORM_LANDMARKS:all_landmarks"
//     options: { [mediapipe.RefineLandmarksFromHeatmapCalculatorOptions.ext] {
//       kernel_size: 7 } }
//   }
//
// The heatmap is float32 NHWC [1, H, W, C] or [H, W, C], with one channel
// (logits) per landmark. For landmark k, the cell (int(x*W), int(y*H)) and the
// kernel_size window around it (clipped to the map) are read; conf =
// sigmoid(logit). If the window's max conf >= min_confidence_to_refine,
// x = sum(col*conf) / sum(conf) / W and y likewise: the cell index, not its
// centre (MediaPipe's convention, kept). Landmarks outside the map stay.
// Without a TENSORS packet the landmarks pass through unchanged.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "calculators/util/refine_landmarks_from_heatmap_calculator.pb.h"
#include "formats/landmark.pb.h"
#include "formats/tensor.h"
#include "util/status_macros.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kTensorsTag[] = "TENSORS";

using mediapipe::NormalizedLandmarkList;
using mediapipe::RefineLandmarksFromHeatmapCalculatorOptions;

absl::Status Error(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("RefineLandmarksFromHeatmapCalculator: ", what));
}

inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

}  // namespace

class RefineLandmarksFromHeatmapCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kLandmarksTag) || !cc->Inputs().HasTag(kTensorsTag) ||
        !cc->Outputs().HasTag(kLandmarksTag)) {
      return Error("needs NORM_LANDMARKS and TENSORS inputs and a NORM_LANDMARKS output");
    }
    cc->Inputs().Tag(kLandmarksTag).Set<NormalizedLandmarkList>();
    cc->Inputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    cc->Outputs().Tag(kLandmarksTag).Set<NormalizedLandmarkList>();
    if (cc->Options<RefineLandmarksFromHeatmapCalculatorOptions>().kernel_size() < 1) {
      return Error("kernel_size must be >= 1");
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    options_ = cc->Options<RefineLandmarksFromHeatmapCalculatorOptions>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kLandmarksTag).IsEmpty()) return absl::OkStatus();
    const auto& in = cc->Inputs().Tag(kLandmarksTag).Get<NormalizedLandmarkList>();
    if (cc->Inputs().Tag(kTensorsTag).IsEmpty()) {
      cc->Outputs().Tag(kLandmarksTag).AddPacket(cc->Inputs().Tag(kLandmarksTag).Value());
      return absl::OkStatus();
    }
    const auto& tensors = cc->Inputs().Tag(kTensorsTag).Get<std::vector<Tensor>>();
    RETURN_IF_ERROR(SyncToCpu(tensors));
    if (tensors.empty()) return Error("TENSORS is empty; its first tensor must be the heatmap");
    const Tensor& heatmap = tensors[0];
    const std::vector<int>& dims = heatmap.shape().dims;
    int h = 0, w = 0, c = 0;
    if (dims.size() == 3) {
      h = dims[0], w = dims[1], c = dims[2];
    } else if (dims.size() == 4 && dims[0] == 1) {
      h = dims[1], w = dims[2], c = dims[3];
    } else {
      return Error(absl::StrCat("heatmap must be [1, H, W, C] or [H, W, C], got [",
                                absl::StrJoin(dims, ", "), "]"));
    }
    if (c != in.landmark_size()) {
      return Error(absl::StrCat("heatmap has ", c, " channels but there are ", in.landmark_size(),
                                " landmarks"));
    }
    auto view = heatmap.GetCpuReadView();
    const float* data = view.buffer<float>();
    if (data == nullptr) {
      return Error(absl::StrCat("heatmap must be float32, got ",
                                Tensor::ElementTypeName(heatmap.element_type())));
    }
    auto out = std::make_unique<NormalizedLandmarkList>(in);
    const int offset = (options_.kernel_size() - 1) / 2;
    for (int k = 0; k < out->landmark_size(); ++k) {
      auto* lm = out->mutable_landmark(k);
      // Truncation toward zero, as MediaPipe's int conversion.
      const int center_col = static_cast<int>(lm->x() * w);
      const int center_row = static_cast<int>(lm->y() * h);
      if (center_col < 0 || center_col >= w || center_row < 0 || center_row >= h) continue;
      const int col0 = std::max(0, center_col - offset),
                col1 = std::min(w, center_col + offset + 1);
      const int row0 = std::max(0, center_row - offset),
                row1 = std::min(h, center_row + offset + 1);
      float sum = 0, weighted_col = 0, weighted_row = 0, max_conf = 0;
      for (int row = row0; row < row1; ++row) {
        for (int col = col0; col < col1; ++col) {
          const float conf = Sigmoid(data[(row * w + col) * c + k]);
          sum += conf;
          max_conf = std::max(max_conf, conf);
          weighted_col += col * conf;
          weighted_row += row * conf;
        }
      }
      if (max_conf >= options_.min_confidence_to_refine() && sum > 0) {
        lm->set_x(weighted_col / w / sum);
        lm->set_y(weighted_row / h / sum);
      }
      if (options_.refine_presence() && sum > 0 && lm->has_presence()) {
        lm->set_presence(std::min(lm->presence(), max_conf));
      }
      if (options_.refine_visibility() && sum > 0 && lm->has_visibility()) {
        lm->set_visibility(std::min(lm->visibility(), max_conf));
      }
    }
    cc->Outputs().Tag(kLandmarksTag).Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  RefineLandmarksFromHeatmapCalculatorOptions options_;
};
REGISTER_CALCULATOR(RefineLandmarksFromHeatmapCalculator);

}  // namespace sluice
