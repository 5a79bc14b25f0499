// WarpAffineCalculator: resamples an image through an affine transform, e.g.
// the pose segmentation mask from the model's ROI back onto the full image.
//
//   node {
//     calculator: "WarpAffineCalculator"
//     input_stream: "IMAGE:roi_segmentation_mask"         # Image or ImageFrame
//     input_stream: "MATRIX:inverse_transformation_matrix" # std::array<float, 16>
//     input_stream: "OUTPUT_SIZE:image_size"              # std::pair<int,int> (w, h)
//     output_stream: "IMAGE:segmentation_mask"            # same type and format as IMAGE
//     options: { [mediapipe.WarpAffineCalculatorOptions.ext] {
//       border_mode: BORDER_ZERO gpu_origin: TOP_LEFT } }
//   }
//
// MATRIX (4x4 row-major, only its 2D affine part is used) maps normalized
// output coordinates to normalized input coordinates. As MediaPipe's CPU
// runner does, it is scaled to pixels without half-pixel offsets
// (diag(W_in, H_in) * M * diag(1/W_out, 1/H_out)) and applied with OpenCV's
// warpAffine as an inverse map. WarpAffineCalculatorCpu is the same node
// (MediaPipe's ImageFrame-only variant). Formats: any with an OpenCV type
// (VEC32F1 masks, SRGB, SRGBA, GRAY8, ...). No output unless all three inputs
// have a packet.
#include <array>
#include <memory>
#include <opencv2/imgproc.hpp>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/image/warp_affine_calculator.pb.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_frame_opencv.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kMatrixTag[] = "MATRIX";
constexpr char kOutputSizeTag[] = "OUTPUT_SIZE";

using mediapipe::WarpAffineCalculatorOptions;
using Matrix = std::array<float, 16>;

absl::Status Error(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("WarpAffineCalculator: ", what));
}

// a * b for 4x4 row-major float matrices, summing k = 0..3 in float (as
// cv::Matx44f does, so the pixel matrix matches MediaPipe's bit for bit).
Matrix Multiply(const Matrix& a, const Matrix& b) {
  Matrix c{};
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      float s = 0.0f;
      for (int k = 0; k < 4; ++k) s += a[i * 4 + k] * b[k * 4 + j];
      c[i * 4 + j] = s;
    }
  }
  return c;
}

}  // namespace

class WarpAffineCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    for (const char* tag : {kImageTag, kMatrixTag, kOutputSizeTag}) {
      if (!cc->Inputs().HasTag(tag)) return Error(absl::StrCat("needs a ", tag, " input stream"));
    }
    if (!cc->Outputs().HasTag(kImageTag)) return Error("needs an IMAGE output stream");
    cc->Inputs().Tag(kImageTag).SetOneOf<Image, ImageFrame>();
    cc->Inputs().Tag(kMatrixTag).Set<Matrix>();
    cc->Inputs().Tag(kOutputSizeTag).Set<std::pair<int, int>>();
    cc->Outputs().Tag(kImageTag).SetSameAs(&cc->Inputs().Tag(kImageTag));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    const auto& options = cc->Options<WarpAffineCalculatorOptions>();
    border_ = options.border_mode() == WarpAffineCalculatorOptions::BORDER_ZERO
                  ? cv::BORDER_CONSTANT
                  : cv::BORDER_REPLICATE;
    switch (options.interpolation()) {
      case WarpAffineCalculatorOptions::INTER_CUBIC:
        interpolation_ = cv::INTER_CUBIC;
        break;
      case WarpAffineCalculatorOptions::INTER_NEAREST:
        interpolation_ = cv::INTER_NEAREST;
        break;
      default:
        interpolation_ = cv::INTER_LINEAR;
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const auto& in = cc->Inputs();
    if (in.Tag(kImageTag).IsEmpty() || in.Tag(kMatrixTag).IsEmpty() ||
        in.Tag(kOutputSizeTag).IsEmpty()) {
      return absl::OkStatus();
    }
    const Packet& packet = in.Tag(kImageTag).Value();
    const bool is_image = packet.TryGet<Image>().ok();
    std::shared_ptr<const ImageFrame> frame;
    if (is_image) {
      auto view = packet.Get<Image>().CpuView();
      if (!view.ok())
        return Error(absl::StrCat("IMAGE has no CPU pixels: ", view.status().message()));
      frame = *view;
    } else {
      auto shared = packet.Share<ImageFrame>();
      if (!shared.ok()) return shared.status();
      frame = *shared;
    }
    const auto [out_width, out_height] = in.Tag(kOutputSizeTag).Get<std::pair<int, int>>();
    if (out_width <= 0 || out_height <= 0) {
      return Error(absl::StrCat("OUTPUT_SIZE must be positive, got ", out_width, "x", out_height));
    }
    if (frame->Width() <= 0 || frame->Height() <= 0) return Error("IMAGE is empty");
    if (!CvTypeForFormat(frame->Format()).ok()) {
      return Error(absl::StrCat("IMAGE format ", ImageFormat::Format_Name(frame->Format()),
                                " is not supported on CPU"));
    }

    // Normalized -> pixel coordinates on both sides, no half-pixel shift.
    const Matrix& m = in.Tag(kMatrixTag).Get<Matrix>();
    // clang-format off
    const Matrix scale_src = {static_cast<float>(frame->Width()), 0, 0, 0,
                              0, static_cast<float>(frame->Height()), 0, 0,
                              0, 0, 1, 0,
                              0, 0, 0, 1};
    const Matrix normalize_dst = {1.0f / out_width, 0, 0, 0,
                                  0, 1.0f / out_height, 0, 0,
                                  0, 0, 1, 0,
                                  0, 0, 0, 1};
    // clang-format on
    const Matrix t = Multiply(Multiply(scale_src, m), normalize_dst);
    cv::Mat affine(2, 3, CV_32F);
    affine.at<float>(0, 0) = t[0];
    affine.at<float>(0, 1) = t[1];
    affine.at<float>(0, 2) = t[3];
    affine.at<float>(1, 0) = t[4];
    affine.at<float>(1, 1) = t[5];
    affine.at<float>(1, 2) = t[7];

    auto out = ImageFrame::Create(frame->Format(), out_width, out_height);
    if (!out.ok()) return out.status();
    cv::Mat out_mat = MatView(&*out);
    cv::warpAffine(MatView(*frame), out_mat, affine, out_mat.size(),
                   interpolation_ | cv::WARP_INVERSE_MAP, border_, cv::Scalar::all(0));
    if (is_image) {
      cc->Outputs().Tag(kImageTag).Add(new Image(std::move(*out)), cc->InputTimestamp());
    } else {
      cc->Outputs().Tag(kImageTag).Add(new ImageFrame(std::move(*out)), cc->InputTimestamp());
    }
    return absl::OkStatus();
  }

 private:
  int border_ = cv::BORDER_REPLICATE;
  int interpolation_ = cv::INTER_LINEAR;
};
REGISTER_CALCULATOR(WarpAffineCalculator);

// MediaPipe's ImageFrame-only name for the same CPU node.
class WarpAffineCalculatorCpu : public WarpAffineCalculator {};
REGISTER_CALCULATOR(WarpAffineCalculatorCpu);

}  // namespace sluice
