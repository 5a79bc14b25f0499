// SsdAnchorsCalculator: generates the SSD anchor boxes a detection model's raw
// outputs are relative to, once, as an output side packet.
//
//   node {
//     calculator: "SsdAnchorsCalculator"
//     output_side_packet: "anchors"            # std::vector<mediapipe::Anchor>
//     options: { [mediapipe.SsdAnchorsCalculatorOptions.ext] {
//       num_layers: 4 min_scale: 0.1484375 max_scale: 0.75
//       input_size_width: 192 input_size_height: 192
//       strides: [8, 16, 16, 16] aspect_ratios: 1.0 fixed_anchor_size: true
//     } }
//   }
//
// Anchors are normalized (x_center, y_center, w, h). Consecutive layers with
// the same stride share one feature map; their boxes are interleaved per cell.
#include <cmath>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/ssd_anchors_calculator.pb.h"
#include "formats/anchor.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

using mediapipe::Anchor;
using mediapipe::SsdAnchorsCalculatorOptions;

// Linear interpolation between min and max scale over the strides. The
// arithmetic mixes float and double exactly like the reference so that the
// golden anchor files match bit for bit.
float LayerScale(float min_scale, float max_scale, int index, int count) {
  if (count == 1) return (min_scale + max_scale) * 0.5f;
  return min_scale + (max_scale - min_scale) * 1.0 * index / (count - 1.0f);
}

struct GridSize {
  int width;
  int height;
};

GridSize FeatureMap(const SsdAnchorsCalculatorOptions& o, int layer) {
  if (o.feature_map_height_size() > 0) {
    return {o.feature_map_width(layer), o.feature_map_height(layer)};
  }
  const int stride = o.strides(layer);
  return {static_cast<int>(std::ceil(1.0f * o.input_size_width() / stride)),
          static_cast<int>(std::ceil(1.0f * o.input_size_height() / stride))};
}

absl::Status MultiScaleAnchors(const SsdAnchorsCalculatorOptions& o,
                               std::vector<Anchor>* anchors) {
  if (o.scales_per_octave() <= 0) {
    return absl::InvalidArgumentError("SsdAnchorsCalculator: scales_per_octave must be > 0");
  }
  std::vector<float> octave_scales;
  for (int k = 0; k < o.scales_per_octave(); ++k) {
    octave_scales.push_back(std::pow(2.0, static_cast<double>(k) / o.scales_per_octave()));
  }
  for (int level = o.min_level(), layer = 0; level <= o.max_level(); ++level, ++layer) {
    const float stride = std::pow(2.0, level);
    const float base = stride * o.anchor_scale();
    // Cells are offset by half a stride only where the input divides evenly.
    const int denom = static_cast<int>(std::pow(2, level));
    const float off_y =
        (o.input_size_height() % denom == 0 || o.input_size_height() == 1) ? stride / 2.0 : 0.0;
    const float off_x =
        (o.input_size_width() % denom == 0 || o.input_size_width() == 1) ? stride / 2.0 : 0.0;
    const GridSize fm = FeatureMap(o, layer);
    for (int y = 0; y < fm.height; ++y) {
      for (int x = 0; x < fm.width; ++x) {
        for (float ratio : o.aspect_ratios()) {
          const float ratio_sqrt = std::sqrt(ratio);
          for (float scale : octave_scales) {
            Anchor a;
            a.set_h(scale * base / ratio_sqrt);
            a.set_w(scale * ratio_sqrt * base);
            a.set_y_center(y * stride + off_y);
            a.set_x_center(x * stride + off_x);
            if (o.normalize_coordinates()) {
              a.set_h(a.h() / static_cast<float>(o.input_size_height()));
              a.set_w(a.w() / static_cast<float>(o.input_size_width()));
              a.set_y_center(a.y_center() / static_cast<float>(o.input_size_height()));
              a.set_x_center(a.x_center() / static_cast<float>(o.input_size_width()));
            }
            anchors->push_back(a);
          }
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status SsdAnchors(const SsdAnchorsCalculatorOptions& o, std::vector<Anchor>* anchors) {
  const int n = o.strides_size();
  for (int layer = 0; layer < o.num_layers();) {
    std::vector<float> scales;
    std::vector<float> ratios;
    // Layers sharing this layer's stride are merged into one grid.
    int last = layer;
    for (; last < n && o.strides(last) == o.strides(layer); ++last) {
      const float scale = LayerScale(o.min_scale(), o.max_scale(), last, n);
      if (last == 0 && o.reduce_boxes_in_lowest_layer()) {
        ratios.insert(ratios.end(), {1.0f, 2.0f, 0.5f});
        scales.insert(scales.end(), {0.1f, scale, scale});
        continue;
      }
      for (float ratio : o.aspect_ratios()) {
        ratios.push_back(ratio);
        scales.push_back(scale);
      }
      if (o.interpolated_scale_aspect_ratio() > 0.0) {
        const float next =
            last == n - 1 ? 1.0f : LayerScale(o.min_scale(), o.max_scale(), last + 1, n);
        scales.push_back(std::sqrt(scale * next));
        ratios.push_back(o.interpolated_scale_aspect_ratio());
      }
    }
    if (last == layer) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SsdAnchorsCalculator: no stride for layer ", layer, " (num_layers ", o.num_layers(),
          ", ", n, " strides)"));
    }
    std::vector<float> widths, heights;
    for (size_t i = 0; i < ratios.size(); ++i) {
      const float ratio_sqrt = std::sqrt(ratios[i]);
      heights.push_back(scales[i] / ratio_sqrt);
      widths.push_back(scales[i] * ratio_sqrt);
    }
    const GridSize fm = FeatureMap(o, layer);
    for (int y = 0; y < fm.height; ++y) {
      for (int x = 0; x < fm.width; ++x) {
        for (size_t i = 0; i < ratios.size(); ++i) {
          Anchor a;
          a.set_x_center((x + o.anchor_offset_x()) * 1.0f / fm.width);
          a.set_y_center((y + o.anchor_offset_y()) * 1.0f / fm.height);
          a.set_w(o.fixed_anchor_size() ? 1.0f : widths[i]);
          a.set_h(o.fixed_anchor_size() ? 1.0f : heights[i]);
          anchors->push_back(a);
        }
      }
    }
    layer = last;
  }
  return absl::OkStatus();
}

}  // namespace

// Exposed for tests and for code that needs anchors without a graph.
absl::Status GenerateSsdAnchors(const SsdAnchorsCalculatorOptions& o,
                                std::vector<Anchor>* anchors) {
  anchors->clear();
  const bool generates = o.strides_size() > 0 || o.feature_map_height_size() > 0;
  if (o.fixed_anchors_size() > 0) {
    if (generates) {
      return absl::InvalidArgumentError(
          "SsdAnchorsCalculator: fixed_anchors cannot be combined with strides or feature maps");
    }
    anchors->assign(o.fixed_anchors().begin(), o.fixed_anchors().end());
    return absl::OkStatus();
  }
  if (!generates) {
    return absl::InvalidArgumentError(
        "SsdAnchorsCalculator: set strides or feature_map_width/height");
  }
  const int layers = o.multiscale_anchor_generation() ? o.max_level() - o.min_level() + 1
                                                      : o.num_layers();
  if (layers <= 0) {
    return absl::InvalidArgumentError("SsdAnchorsCalculator: no layers (num_layers or levels)");
  }
  if (o.feature_map_height_size() > 0) {
    if (o.feature_map_height_size() != layers || o.feature_map_width_size() != layers) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SsdAnchorsCalculator: feature_map_width/height need ", layers, " entries each"));
    }
  } else if (o.strides_size() != layers) {
    return absl::InvalidArgumentError(absl::StrCat("SsdAnchorsCalculator: ", o.strides_size(),
                                                   " strides for ", layers, " layers"));
  }
  if (o.feature_map_height_size() == 0) {
    for (int s : o.strides()) {
      if (s <= 0) return absl::InvalidArgumentError("SsdAnchorsCalculator: strides must be > 0");
    }
    if (o.input_size_width() <= 0 || o.input_size_height() <= 0) {
      return absl::InvalidArgumentError(
          "SsdAnchorsCalculator: input_size_width/height must be > 0");
    }
  }
  if (o.multiscale_anchor_generation()) return MultiScaleAnchors(o, anchors);
  return SsdAnchors(o, anchors);
}

class SsdAnchorsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->OutputSidePackets().NumEntries() != 1) {
      return absl::InvalidArgumentError("SsdAnchorsCalculator: needs one output side packet");
    }
    cc->OutputSidePackets().Get(0).Set<std::vector<Anchor>>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    auto anchors = std::make_unique<std::vector<Anchor>>();
    absl::Status s = GenerateSsdAnchors(cc->Options<SsdAnchorsCalculatorOptions>(), anchors.get());
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(cc->NodeName(), ": ", s.message()));
    cc->OutputSidePackets().Get(0).Set(Adopt(anchors.release()));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(SsdAnchorsCalculator);

}  // namespace sluice
