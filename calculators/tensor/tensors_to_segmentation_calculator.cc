// TensorsToSegmentationCalculator: turns a segmentation model's output tensor
// into a float mask (probability per pixel, ImageFrame VEC32F1 in an Image),
// resized to OUTPUT_SIZE when given, as MediaPipe's CPU path does.
//
//   node {
//     calculator: "TensorsToSegmentationCalculator"
//     input_stream: "TENSORS:output_tensors"   # std::vector<Tensor>; [0] is
//                                              # [1,]H x W x C float32, C = 1 or 2
//     input_stream: "OUTPUT_SIZE:input_size"   # std::pair<int,int> (w, h), optional
//     output_stream: "MASK:mask_image"         # Image (VEC32F1)
//     options { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] {
//       activation: SIGMOID
//     } }
//   }
//
// The mask is first computed at the tensor's resolution, then resized with
// bilinear interpolation (pixel centres aligned), like cv::resize's default.
#include <algorithm>
#include <cmath>
#include <memory>
#include <opencv2/imgproc.hpp>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_segmentation_calculator.pb.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_frame_opencv.h"
#include "formats/tensor.h"
#include "util/status_macros.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kTensorsTag[] = "TENSORS";
constexpr char kOutputSizeTag[] = "OUTPUT_SIZE";
constexpr char kMaskTag[] = "MASK";

using Options = mediapipe::TensorsToSegmentationCalculatorOptions;

absl::Status Error(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("TensorsToSegmentationCalculator: ", what));
}

}  // namespace

class TensorsToSegmentationCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kTensorsTag) || !cc->Outputs().HasTag(kMaskTag)) {
      return Error("needs a TENSORS input and a MASK output");
    }
    cc->Inputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    if (cc->Inputs().HasTag(kOutputSizeTag)) {
      cc->Inputs().Tag(kOutputSizeTag).Set<std::pair<int, int>>();
    }
    cc->Outputs().Tag(kMaskTag).Set<Image>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    options_ = cc->Options<Options>();
    if (options_.activation() == Options::SOFTMAX &&
        (options_.output_layer_index() < 0 || options_.output_layer_index() > 1)) {
      return Error(absl::StrCat("output_layer_index must be 0 or 1 with SOFTMAX, got ",
                                options_.output_layer_index()));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kTensorsTag).IsEmpty()) return absl::OkStatus();
    const auto& tensors = cc->Inputs().Tag(kTensorsTag).Get<std::vector<Tensor>>();
    RETURN_IF_ERROR(SyncToCpu(tensors));
    if (tensors.empty()) return Error("the TENSORS vector is empty");
    const Tensor& tensor = tensors[0];
    if (tensor.element_type() != Tensor::ElementType::kFloat32) {
      return Error("the mask tensor must be float32");
    }
    // [H, W, C] or [1, H, W, C].
    const std::vector<int>& dims = tensor.shape().dims;
    if (!(dims.size() == 3 || (dims.size() == 4 && dims[0] == 1))) {
      return Error(absl::StrCat("expects a [1,]HxWxC tensor, got ", dims.size(), " dims"));
    }
    const int h = dims[dims.size() - 3], w = dims[dims.size() - 2], c = dims[dims.size() - 1];
    if (h <= 0 || w <= 0) return Error("the mask tensor is empty");
    if (c != 1 && c != 2) return Error(absl::StrCat("expects 1 or 2 channels, got ", c));
    if (options_.activation() == Options::SOFTMAX && c != 2) {
      return Error("SOFTMAX needs a 2-channel tensor");
    }

    int out_w = w, out_h = h;
    if (cc->Inputs().HasTag(kOutputSizeTag)) {
      if (cc->Inputs().Tag(kOutputSizeTag).IsEmpty()) return Error("OUTPUT_SIZE is missing");
      std::tie(out_w, out_h) = cc->Inputs().Tag(kOutputSizeTag).Get<std::pair<int, int>>();
      if (out_w <= 0 || out_h <= 0) {
        return Error(absl::StrCat("bad OUTPUT_SIZE ", out_w, "x", out_h));
      }
    }

    auto view = tensor.GetCpuReadView();
    const float* in = view.buffer<float>();
    cv::Mat small(h, w, CV_32FC1);
    for (int y = 0; y < h; ++y) {
      float* row = small.ptr<float>(y);
      const float* src = in + static_cast<size_t>(y) * w * c;
      for (int x = 0; x < w; ++x) row[x] = Activate(src + x * c);
    }

    auto frame = ImageFrame::Create(ImageFormat::VEC32F1, out_w, out_h);
    if (!frame.ok()) return frame.status();
    cv::Mat out = MatView(&*frame);
    if (out_w == w && out_h == h) {
      small.copyTo(out);
    } else {
      cv::resize(small, out, cv::Size(out_w, out_h), 0, 0, cv::INTER_LINEAR);
    }
    cc->Outputs().Tag(kMaskTag).Add(new Image(std::move(*frame)), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  float Activate(const float* v) const {
    switch (options_.activation()) {
      case Options::SIGMOID:
        return 1.0f / (1.0f + std::exp(-v[0]));
      case Options::SOFTMAX: {
        // Two classes, shifted by the larger logit for stability.
        const float hi = std::max(v[0], v[1]);
        const float e0 = std::exp(v[0] - hi), e1 = std::exp(v[1] - hi);
        return (options_.output_layer_index() == 0 ? e0 : e1) / (e0 + e1);
      }
      case Options::NONE:
      default:
        return v[0];
    }
  }

  Options options_;
};
REGISTER_CALCULATOR(TensorsToSegmentationCalculator);

}  // namespace sluice
