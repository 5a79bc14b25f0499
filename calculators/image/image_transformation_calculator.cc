// ImageTransformationCalculator (CPU): rotates by multiples of 90 degrees
// (counterclockwise), scales to output dimensions and flips, MediaPipe-compatible.
//
// Inputs:
//   IMAGE              ImageFrame or Image (any 8-bit, 16-bit or float format);
//                      the output has the same type and format.
//   OUTPUT_DIMENSIONS  std::pair<int, int> (width, height), optional stream;
//                      an empty packet skips the timestamp.
//   ROTATION_DEGREES   int, optional stream (0, 90, 180, 270).
//   FLIP_HORIZONTALLY / FLIP_VERTICALLY  bool, optional streams.
// Input side packets (overridden by the streams): OUTPUT_DIMENSIONS
//   (std::array<int, 2> or std::pair<int, int>), ROTATION_DEGREES (int),
//   FLIP_HORIZONTALLY, FLIP_VERTICALLY (bool).
// Outputs:
//   IMAGE              the transformed image.
//   LETTERBOX_PADDING  std::array<float, 4> {left, top, right, bottom} as
//                      fractions of the output size, non-zero for FIT only.
//
// Scale modes (default STRETCH): STRETCH resizes to the output size; FIT keeps
// the aspect ratio and pads (padding_color, or replicated edges when
// constant_padding is false); FILL_AND_CROP, like MediaPipe's CPU and GPU
// paths, keeps the aspect ratio and outputs the fitted size without padding.
// Rotation is exact (cv::rotate); MediaPipe's CPU path instead rotates
// square results with a warp about (w/2, h/2), which shifts them by a pixel.
//
// GPU path (builds with the GPU layer, SLUICE_HAVE_GPU): an `Image` whose GPU
// side is a CUDA GpuBuffer of 8-bit pixels (1 to 4 channels) is transformed
// by a CUDA kernel (gpu/kernels/image_transformation.h, the CPU path's
// geometry and sampling) on the stream of the image's own GpuResources, into
// an `Image` that stays on the GPU; chosen per packet, same options and
// LETTERBOX_PADDING. Its maths repeats OpenCV's 8-bit resampling arithmetic
// and matched this path bit for bit in all cases of
// image_transformation_gpu_math_test. Other GPU images (16-bit, float) are
// read through their CPU view (one download) and take the CPU path.
//
//   node {
//     calculator: "ImageTransformationCalculator"
//     input_stream: "IMAGE:frame"
//     output_stream: "IMAGE:rotated"
//     options { [mediapipe.ImageTransformationCalculatorOptions.ext] {
//       rotation_mode: ROTATION_90 flip_horizontally: true } }
//   }
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/image/image_transformation_calculator.pb.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_frame_opencv.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "opencv2/core.hpp"
#include "opencv2/imgproc.hpp"

#if SLUICE_HAVE_GPU
#include "calculators/image/image_transformation_gpu.h"
#include "calculators/image/image_transformation_gpu_params.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#endif

namespace sluice {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kImageGpuTag[] = "IMAGE_GPU";
constexpr char kDimsTag[] = "OUTPUT_DIMENSIONS";
constexpr char kRotationTag[] = "ROTATION_DEGREES";
constexpr char kFlipHTag[] = "FLIP_HORIZONTALLY";
constexpr char kFlipVTag[] = "FLIP_VERTICALLY";
constexpr char kPaddingTag[] = "LETTERBOX_PADDING";

using mediapipe::ImageTransformationCalculatorOptions;
using mediapipe::ScaleMode;

absl::StatusOr<int> NormalizeDegrees(int degrees) {
  const int d = ((degrees % 360) + 360) % 360;
  if (d % 90 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ROTATION_DEGREES must be a multiple of 90, got ", degrees));
  }
  return d;
}

int ModeToDegrees(mediapipe::RotationMode::Mode mode) {
  switch (mode) {
    case mediapipe::RotationMode::ROTATION_90:
      return 90;
    case mediapipe::RotationMode::ROTATION_180:
      return 180;
    case mediapipe::RotationMode::ROTATION_270:
      return 270;
    default:
      return 0;
  }
}

}  // namespace

class ImageTransformationCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string prefix =
        absl::StrCat("ImageTransformationCalculator \"", cc->GetNodeName(), "\": ");
    if (cc->Inputs().HasTag(kImageGpuTag) || cc->Outputs().HasTag(kImageGpuTag)) {
      return absl::UnimplementedError(prefix + "IMAGE_GPU is not supported; use IMAGE");
    }
    if (!cc->Inputs().HasTag(kImageTag) || !cc->Outputs().HasTag(kImageTag)) {
      return absl::InvalidArgumentError(prefix + "needs an IMAGE input and an IMAGE output");
    }
    cc->Inputs().Tag(kImageTag).SetOneOf<ImageFrame, Image>();
    cc->Outputs().Tag(kImageTag).SetOneOf<ImageFrame, Image>();
    if (cc->Inputs().HasTag(kDimsTag)) cc->Inputs().Tag(kDimsTag).Set<std::pair<int, int>>();
    if (cc->Inputs().HasTag(kRotationTag)) cc->Inputs().Tag(kRotationTag).Set<int>();
    for (const char* tag : {kFlipHTag, kFlipVTag}) {
      if (cc->Inputs().HasTag(tag)) cc->Inputs().Tag(tag).Set<bool>();
      if (cc->InputSidePackets().HasTag(tag)) cc->InputSidePackets().Tag(tag).Set<bool>();
    }
    if (cc->InputSidePackets().HasTag(kDimsTag)) {
      cc->InputSidePackets().Tag(kDimsTag).SetOneOf<std::array<int, 2>, std::pair<int, int>>();
    }
    if (cc->InputSidePackets().HasTag(kRotationTag)) {
      cc->InputSidePackets().Tag(kRotationTag).Set<int>();
    }
    if (cc->Outputs().HasTag(kPaddingTag)) {
      cc->Outputs().Tag(kPaddingTag).Set<std::array<float, 4>>();
    }
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<ImageTransformationCalculatorOptions>();
    out_width_ = options_.output_width();
    out_height_ = options_.output_height();
    const PacketSet& side = cc->InputSidePackets();
    if (side.HasTag(kDimsTag) && !side.Tag(kDimsTag).IsEmpty()) {
      const Packet& p = side.Tag(kDimsTag);
      if (p.ValidateAsType<std::pair<int, int>>().ok()) {
        std::tie(out_width_, out_height_) = p.Get<std::pair<int, int>>();
      } else {
        out_width_ = p.Get<std::array<int, 2>>()[0];
        out_height_ = p.Get<std::array<int, 2>>()[1];
      }
    }
    degrees_ = ModeToDegrees(options_.rotation_mode());
    if (side.HasTag(kRotationTag) && !side.Tag(kRotationTag).IsEmpty()) {
      absl::StatusOr<int> d = NormalizeDegrees(side.Tag(kRotationTag).Get<int>());
      if (!d.ok()) return d.status();
      degrees_ = *d;
    }
    flip_h_ = options_.flip_horizontally();
    flip_v_ = options_.flip_vertically();
    if (side.HasTag(kFlipHTag) && !side.Tag(kFlipHTag).IsEmpty()) {
      flip_h_ = side.Tag(kFlipHTag).Get<bool>();
    }
    if (side.HasTag(kFlipVTag) && !side.Tag(kFlipVTag).IsEmpty()) {
      flip_v_ = side.Tag(kFlipVTag).Get<bool>();
    }
    scale_mode_ =
        options_.scale_mode() == ScaleMode::DEFAULT ? ScaleMode::STRETCH : options_.scale_mode();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().HasTag(kRotationTag) && !cc->Inputs().Tag(kRotationTag).IsEmpty()) {
      absl::StatusOr<int> d = NormalizeDegrees(cc->Inputs().Tag(kRotationTag).Get<int>());
      if (!d.ok()) return d.status();
      degrees_ = *d;
    }
    if (cc->Inputs().HasTag(kFlipHTag) && !cc->Inputs().Tag(kFlipHTag).IsEmpty()) {
      flip_h_ = cc->Inputs().Tag(kFlipHTag).Get<bool>();
    }
    if (cc->Inputs().HasTag(kFlipVTag) && !cc->Inputs().Tag(kFlipVTag).IsEmpty()) {
      flip_v_ = cc->Inputs().Tag(kFlipVTag).Get<bool>();
    }
    if (cc->Inputs().HasTag(kDimsTag)) {
      if (cc->Inputs().Tag(kDimsTag).IsEmpty()) return absl::OkStatus();
      std::tie(out_width_, out_height_) = cc->Inputs().Tag(kDimsTag).Get<std::pair<int, int>>();
    }
    const Packet& in = cc->Inputs().Tag(kImageTag).Value();
    if (in.IsEmpty()) return absl::OkStatus();
    const bool is_image = in.ValidateAsType<Image>().ok();
    if (out_width_ < 0 || out_height_ < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid output dimensions ", out_width_, "x", out_height_));
    }
#if SLUICE_HAVE_GPU
    if (is_image && in.Get<Image>().UsesGpu()) {
      auto buffer = std::dynamic_pointer_cast<GpuBuffer>(in.Get<Image>().GpuStorage());
      if (buffer != nullptr && image_transformation::GpuTransformSupports(*buffer)) {
        return ProcessGpu(cc, *buffer);
      }
    }
#endif
    std::shared_ptr<const ImageFrame> frame;
    if (is_image) {
      absl::StatusOr<std::shared_ptr<const ImageFrame>> v = in.Get<Image>().CpuView();
      if (!v.ok()) return v.status();
      frame = *v;
    } else {
      frame = *in.Share<ImageFrame>();
    }
    absl::StatusOr<int> cv_type = CvTypeForFormat(frame->Format());
    if (!cv_type.ok()) return cv_type.status();

    std::array<float, 4> padding = {0, 0, 0, 0};
    cv::Mat result;
    try {
      result = Transform(MatView(*frame), &padding);
    } catch (const cv::Exception& e) {
      return absl::InternalError(absl::StrCat("OpenCV failed: ", e.what()));
    }
    absl::StatusOr<ImageFrame> out = ImageFrame::Create(frame->Format(), result.cols, result.rows);
    if (!out.ok()) return out.status();
    result.copyTo(MatView(&*out));

    const Timestamp ts = cc->InputTimestamp();
    if (cc->Outputs().HasTag(kPaddingTag)) {
      cc->Outputs().Tag(kPaddingTag).AddPacket(MakePacket<std::array<float, 4>>(padding).At(ts));
    }
    if (is_image) {
      cc->Outputs().Tag(kImageTag).AddPacket(MakePacket<Image>(std::move(*out)).At(ts));
    } else {
      cc->Outputs().Tag(kImageTag).Add(new ImageFrame(std::move(*out)), ts);
    }
    return absl::OkStatus();
  }

 private:
#if SLUICE_HAVE_GPU
  // The CUDA path (see the header comment): output stays on the GPU.
  absl::Status ProcessGpu(CalculatorContext* cc, GpuBuffer& image) {
    image_transformation::TransformSpec spec;
    spec.degrees = degrees_;
    spec.out_width = out_width_;
    spec.out_height = out_height_;
    using image_transformation::FitMode;
    spec.mode = scale_mode_ == ScaleMode::FIT             ? FitMode::kFit
                : scale_mode_ == ScaleMode::FILL_AND_CROP ? FitMode::kFillAndCrop
                                                          : FitMode::kStretch;
    spec.nearest =
        options_.interpolation_mode() == ImageTransformationCalculatorOptions::NEAREST;
    spec.flip_h = flip_h_;
    spec.flip_v = flip_v_;
    spec.constant_padding = options_.constant_padding();
    spec.pad_rgb[0] = options_.padding_color().red();
    spec.pad_rgb[1] = options_.padding_color().green();
    spec.pad_rgb[2] = options_.padding_color().blue();
    gpu_kernels::ImageTransformParams params;
    std::array<float, 4> padding;
    if (!image_transformation::PlanImageTransform(image.width(), image.height(), image.channels(),
                                                  spec, &params, &padding)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ImageTransformationCalculator \"", cc->NodeName(), "\": scaling ", image.width(), "x",
          image.height(), " to ", out_width_, "x", out_height_, " leaves no pixels"));
    }
    // The image's resources (the graph's service when a converter made it).
    const std::shared_ptr<GpuResources>& gpu = image.shared_resources();
    if (absl::Status s = gpu->Activate(); !s.ok()) return s;
    absl::StatusOr<GpuContext*> ctx = gpu->Context();
    if (!ctx.ok()) return ctx.status();
    absl::StatusOr<std::shared_ptr<GpuBuffer>> out =
        image_transformation::TransformImageGpu(image, params, gpu, (*ctx)->stream());
    if (!out.ok()) return out.status();
    const Timestamp ts = cc->InputTimestamp();
    if (cc->Outputs().HasTag(kPaddingTag)) {
      cc->Outputs().Tag(kPaddingTag).AddPacket(MakePacket<std::array<float, 4>>(padding).At(ts));
    }
    cc->Outputs().Tag(kImageTag).AddPacket(MakePacket<Image>(MakeGpuImage(*std::move(out))).At(ts));
    return absl::OkStatus();
  }
#endif

  int CvInterpolation(bool shrinking) const {
    if (options_.interpolation_mode() == ImageTransformationCalculatorOptions::NEAREST) {
      return cv::INTER_NEAREST;
    }
    return shrinking ? cv::INTER_AREA : cv::INTER_LINEAR;
  }

  // Rotate, then scale to the output size, then flip.
  cv::Mat Transform(const cv::Mat& input, std::array<float, 4>* padding) const {
    cv::Mat rotated;
    if (degrees_ == 90) {
      cv::rotate(input, rotated, cv::ROTATE_90_COUNTERCLOCKWISE);
    } else if (degrees_ == 180) {
      cv::rotate(input, rotated, cv::ROTATE_180);
    } else if (degrees_ == 270) {
      cv::rotate(input, rotated, cv::ROTATE_90_CLOCKWISE);
    } else {
      rotated = input;
    }
    cv::Mat scaled = rotated;
    if (out_width_ > 0 && out_height_ > 0) {
      const int w = rotated.cols, h = rotated.rows;
      if (scale_mode_ == ScaleMode::STRETCH) {
        cv::resize(rotated, scaled, cv::Size(out_width_, out_height_), 0, 0,
                   CvInterpolation(w > out_width_ && h > out_height_));
      } else {
        const float scale =
            std::min(static_cast<float>(out_width_) / w, static_cast<float>(out_height_) / h);
        const int tw = static_cast<int>(std::round(w * scale));
        const int th = static_cast<int>(std::round(h * scale));
        cv::Mat fitted;
        cv::resize(rotated, fitted, cv::Size(tw, th), 0, 0, CvInterpolation(scale < 1.0f));
        if (scale_mode_ == ScaleMode::FIT) {
          const int top = (out_height_ - th) / 2;
          const int left = (out_width_ - tw) / 2;
          const auto& c = options_.padding_color();
          cv::copyMakeBorder(
              fitted, scaled, top, out_height_ - th - top, left, out_width_ - tw - left,
              options_.constant_padding() ? cv::BORDER_CONSTANT : cv::BORDER_REPLICATE,
              cv::Scalar(c.red(), c.green(), c.blue()));
          // Padding from the aspect ratios, as MediaPipe reports it.
          const float in_aspect = static_cast<float>(w) / h;
          const float out_aspect = static_cast<float>(out_width_) / out_height_;
          if (in_aspect < out_aspect) {
            (*padding)[0] = (*padding)[2] = (1.0f - in_aspect / out_aspect) / 2.0f;
          } else if (out_aspect < in_aspect) {
            (*padding)[1] = (*padding)[3] = (1.0f - out_aspect / in_aspect) / 2.0f;
          }
        } else {
          scaled = fitted;
        }
      }
    }
    if (!flip_h_ && !flip_v_) return scaled;
    cv::Mat flipped;
    cv::flip(scaled, flipped, flip_h_ && flip_v_ ? -1 : flip_h_ ? 1 : 0);
    return flipped;
  }

  ImageTransformationCalculatorOptions options_;
  int out_width_ = 0;
  int out_height_ = 0;
  int degrees_ = 0;
  bool flip_h_ = false;
  bool flip_v_ = false;
  ScaleMode::Mode scale_mode_ = ScaleMode::STRETCH;
};

REGISTER_CALCULATOR(ImageTransformationCalculator);

}  // namespace sluice
