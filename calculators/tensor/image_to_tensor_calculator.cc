// ImageToTensorCalculator: crops a (rotated) region of an image into a model
// input tensor, MediaPipe-compatible (names, tags, options, numerics).
//
// Inputs:
//   IMAGE      Image or ImageFrame (SRGB, SRGBA or GRAY8).
//   NORM_RECT  NormalizedRect, optional: the region; whole image without it.
//              An empty packet, or a rect with width == height == 0, gives no
//              output at that timestamp.
//   (IMAGE_GPU is MediaPipe's GL input; it is rejected here.)
//   An Image whose GPU side is a CUDA GpuBuffer runs the GPU path (CUDA
//   builds; chosen per packet): MediaPipe's GL sampling
//   (gpu/kernels/image_to_tensor.h) on the shared stream of the image's own
//   GpuResources, into a float32 tensor that stays on the GPU (a Tensor with
//   a CUDA view; the first CPU read downloads it). Its values follow the GPU
//   sampling convention, not the CPU path's (see image_to_tensor.h). Integer
//   output ranges, and every other input, run the CPU (OpenCV) path, reading
//   a GPU image's CPU view (one download).
// Outputs (one of TENSORS / TENSOR):
//   TENSORS            std::vector<Tensor> with one [1, H, W, C] tensor.
//   TENSOR             Tensor.
//   LETTERBOX_PADDING  std::array<float, 4> {left, top, right, bottom}, optional.
//   MATRIX             std::array<float, 16>, optional: row-major transform
//                      from normalized tensor to normalized image coordinates.
//
//   node {
//     calculator: "ImageToTensorCalculator"
//     input_stream: "IMAGE:image"
//     input_stream: "NORM_RECT:roi"
//     output_stream: "TENSORS:input_tensors"
//     output_stream: "LETTERBOX_PADDING:letterbox_padding"
//     options: {
//       [mediapipe.ImageToTensorCalculatorOptions.ext] {
//         output_tensor_width: 192 output_tensor_height: 192
//         keep_aspect_ratio: true
//         output_tensor_float_range { min: 0.0 max: 1.0 }
//         border_mode: BORDER_ZERO
//       }
//     }
//   }
#include <array>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/tensor/image_to_tensor_calculator.pb.h"
#include "calculators/tensor/image_to_tensor_cpu.h"
#include "calculators/tensor/image_to_tensor_math.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/rect.pb.h"
#include "formats/tensor.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

#if SLUICE_HAVE_GPU
#include "calculators/tensor/image_to_tensor_gpu.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#endif

namespace sluice {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kImageGpuTag[] = "IMAGE_GPU";
constexpr char kNormRectTag[] = "NORM_RECT";
constexpr char kTensorsTag[] = "TENSORS";
constexpr char kTensorTag[] = "TENSOR";
constexpr char kLetterboxTag[] = "LETTERBOX_PADDING";
constexpr char kMatrixTag[] = "MATRIX";

using image_to_tensor::BorderMode;
using image_to_tensor::ConvertImageToTensor;
using image_to_tensor::FullImageRoi;
using image_to_tensor::Interpolation;
using image_to_tensor::PadRoiToAspect;
using image_to_tensor::RoiFromNormalized;
using image_to_tensor::RotatedRect;
using image_to_tensor::TensorToImageMatrix;
using mediapipe::ImageToTensorCalculatorOptions;

// Output range and type, checked once (MediaPipe's rules: one range is
// required; int ranges within int8, uint ranges within uint8).
struct OutputParams {
  float range_min = 0.0f;
  float range_max = 0.0f;
  Tensor::ElementType type = Tensor::ElementType::kFloat32;
};

absl::Status ParseOptions(const ImageToTensorCalculatorOptions& o, OutputParams* p) {
  auto invalid = [](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("ImageToTensorCalculatorOptions: ", what));
  };
  if (o.has_output_tensor_float_range()) {
    p->range_min = o.output_tensor_float_range().min();
    p->range_max = o.output_tensor_float_range().max();
    p->type = Tensor::ElementType::kFloat32;
  } else if (o.has_output_tensor_int_range()) {
    const int64_t lo = o.output_tensor_int_range().min();
    const int64_t hi = o.output_tensor_int_range().max();
    if (lo < -128 || hi > 127) return invalid("output_tensor_int_range must lie in [-128, 127]");
    p->range_min = static_cast<float>(lo);
    p->range_max = static_cast<float>(hi);
    p->type = lo < 0 ? Tensor::ElementType::kInt8 : Tensor::ElementType::kUInt8;
  } else if (o.has_output_tensor_uint_range()) {
    if (o.output_tensor_uint_range().max() > 255) {
      return invalid("output_tensor_uint_range must lie in [0, 255]");
    }
    p->range_min = static_cast<float>(o.output_tensor_uint_range().min());
    p->range_max = static_cast<float>(o.output_tensor_uint_range().max());
    p->type = Tensor::ElementType::kUInt8;
  } else {
    return invalid(
        "an output range is required (output_tensor_float_range, output_tensor_int_range or "
        "output_tensor_uint_range)");
  }
  if (!(p->range_min < p->range_max)) {
    return invalid(absl::StrCat("output range min (", p->range_min, ") must be below max (",
                                p->range_max, ")"));
  }
  if ((o.has_output_tensor_width() && o.output_tensor_width() <= 0) ||
      (o.has_output_tensor_height() && o.output_tensor_height() <= 0)) {
    return invalid("output_tensor_width and output_tensor_height must be positive");
  }
  return absl::OkStatus();
}

}  // namespace

class ImageToTensorCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string& node = cc->GetNodeName();
    if (cc->Inputs().HasTag(kImageGpuTag)) {
      return absl::UnimplementedError(absl::StrCat("ImageToTensorCalculator \"", node,
                                                   "\": IMAGE_GPU (GL buffers) is not supported; ",
                                                   "feed an Image through IMAGE"));
    }
    if (!cc->Inputs().HasTag(kImageTag)) {
      return absl::InvalidArgumentError(
          absl::StrCat("ImageToTensorCalculator \"", node, "\": the IMAGE input is required"));
    }
    if (cc->Outputs().HasTag(kTensorsTag) == cc->Outputs().HasTag(kTensorTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ImageToTensorCalculator \"", node, "\": exactly one of TENSORS and TENSOR outputs"));
    }
    OutputParams params;
    absl::Status s = ParseOptions(cc->Options<ImageToTensorCalculatorOptions>(), &params);
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("ImageToTensorCalculator \"", node, "\": ", s.message()));
    }
    cc->Inputs().Tag(kImageTag).SetOneOf<Image, ImageFrame>();
    if (cc->Inputs().HasTag(kNormRectTag)) {
      cc->Inputs().Tag(kNormRectTag).Set<mediapipe::NormalizedRect>();
    }
    if (cc->Outputs().HasTag(kTensorsTag)) {
      cc->Outputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    } else {
      cc->Outputs().Tag(kTensorTag).Set<Tensor>();
    }
    if (cc->Outputs().HasTag(kLetterboxTag)) {
      cc->Outputs().Tag(kLetterboxTag).Set<std::array<float, 4>>();
    }
    if (cc->Outputs().HasTag(kMatrixTag)) {
      cc->Outputs().Tag(kMatrixTag).Set<std::array<float, 16>>();
    }
    // No kGpuService request: the framework would create the service (a CUDA
    // context) for every graph with this node, CPU-only ones included. The GPU
    // path runs on the resources the GPU image carries.
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<ImageToTensorCalculatorOptions>();
    return ParseOptions(options_, &params_);  // Already checked in GetContract.
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Packet& image_packet = cc->Inputs().Tag(kImageTag).Value();
    if (image_packet.IsEmpty()) return absl::OkStatus();
    const mediapipe::NormalizedRect* rect = nullptr;
    if (cc->Inputs().HasTag(kNormRectTag)) {
      if (cc->Inputs().Tag(kNormRectTag).IsEmpty()) return absl::OkStatus();
      rect = &cc->Inputs().Tag(kNormRectTag).Get<mediapipe::NormalizedRect>();
      // MediaPipe's sentinel for "no region": skip this timestamp.
      if (rect->width() == 0 && rect->height() == 0) return absl::OkStatus();
    }

    const Image* image =
        image_packet.ValidateAsType<Image>().ok() ? &image_packet.Get<Image>() : nullptr;
    // The CUDA path: a GPU image into a float tensor (see the header).
    std::shared_ptr<GpuBufferType> gpu_image;
#if SLUICE_HAVE_GPU
    if (image != nullptr && image->UsesGpu() && params_.type == Tensor::ElementType::kFloat32) {
      gpu_image = std::dynamic_pointer_cast<GpuBuffer>(image->GpuStorage());
    }
#endif
    std::shared_ptr<const ImageFrame> frame;
    if (gpu_image == nullptr) {
      if (image != nullptr) {
        absl::StatusOr<std::shared_ptr<const ImageFrame>> view = image->CpuView();
        if (!view.ok()) return view.status();
        frame = *view;
      } else {
        absl::StatusOr<std::shared_ptr<const ImageFrame>> shared = image_packet.Share<ImageFrame>();
        if (!shared.ok()) return shared.status();
        frame = *shared;
      }
      if (frame->IsEmpty()) return absl::InvalidArgumentError("the IMAGE packet holds no pixels");
    }
    const int image_width = frame ? frame->Width() : image->width();
    const int image_height = frame ? frame->Height() : image->height();

    RotatedRect roi =
        rect ? RoiFromNormalized(rect->x_center(), rect->y_center(), rect->width(), rect->height(),
                                 rect->rotation(), image_width, image_height)
             : FullImageRoi(image_width, image_height);
    const int tensor_width =
        options_.has_output_tensor_width() ? options_.output_tensor_width() : image_width;
    const int tensor_height =
        options_.has_output_tensor_height() ? options_.output_tensor_height() : image_height;
    std::array<float, 4> padding = {0.0f, 0.0f, 0.0f, 0.0f};
    if (options_.keep_aspect_ratio() &&
        !PadRoiToAspect(tensor_width, tensor_height, &roi, padding.data())) {
      return absl::InvalidArgumentError(
          absl::StrCat("the region must have a positive size to keep its aspect ratio (got ",
                       roi.width, "x", roi.height, " pixels)"));
    }
    const BorderMode border = options_.border_mode() == ImageToTensorCalculatorOptions::BORDER_ZERO
                                  ? BorderMode::kZero
                                  : BorderMode::kReplicate;

    absl::StatusOr<Tensor> converted = absl::UnknownError("no conversion ran");
#if SLUICE_HAVE_GPU
    if (gpu_image != nullptr) {
      converted = RunGpu(*gpu_image, roi, tensor_width, tensor_height, border);
    }
#endif
    if (gpu_image == nullptr) {
      const int channels = frame->NumberOfChannels() == 1 ? 1 : 3;
      Tensor tensor(params_.type, {1, tensor_height, tensor_width, channels});
      absl::Status s = ConvertImageToTensor(*frame, roi, params_.range_min, params_.range_max,
                                            border, Interpolation::kLinear, &tensor);
      if (!s.ok()) return s;
      converted = std::move(tensor);
    }
    if (!converted.ok()) return converted.status();
    Tensor tensor = *std::move(converted);

    const Timestamp ts = cc->InputTimestamp();
    if (cc->Outputs().HasTag(kLetterboxTag)) {
      cc->Outputs().Tag(kLetterboxTag).AddPacket(MakePacket<std::array<float, 4>>(padding).At(ts));
    }
    if (cc->Outputs().HasTag(kMatrixTag)) {
      auto matrix = std::make_unique<std::array<float, 16>>();
      TensorToImageMatrix(roi, image_width, image_height, /*flip_horizontally=*/false,
                          matrix->data());
      cc->Outputs().Tag(kMatrixTag).Add(matrix.release(), ts);
    }
    if (cc->Outputs().HasTag(kTensorsTag)) {
      auto tensors = std::make_unique<std::vector<Tensor>>();
      tensors->push_back(std::move(tensor));
      cc->Outputs().Tag(kTensorsTag).Add(tensors.release(), ts);
    } else {
      cc->Outputs().Tag(kTensorTag).Add(new Tensor(std::move(tensor)), ts);
    }
    return absl::OkStatus();
  }

 private:
#if SLUICE_HAVE_GPU
  using GpuBufferType = GpuBuffer;

  absl::StatusOr<Tensor> RunGpu(GpuBuffer& image, const RotatedRect& roi, int tensor_width,
                                int tensor_height, BorderMode border) {
    // The image's resources (the graph's service when a converter made it).
    const std::shared_ptr<GpuResources>& gpu = image.shared_resources();
    if (absl::Status s = gpu->Activate(); !s.ok()) return s;
    absl::StatusOr<GpuContext*> ctx = gpu->Context();
    if (!ctx.ok()) return ctx.status();
    return image_to_tensor::ConvertImageToTensorGpu(image, roi, tensor_width, tensor_height,
                                                    params_.range_min, params_.range_max, border,
                                                    gpu, (*ctx)->stream());
  }
#else
  struct GpuBufferType {};  // No GPU path in this build.
#endif
  ImageToTensorCalculatorOptions options_;
  OutputParams params_;
};

REGISTER_CALCULATOR(ImageToTensorCalculator);

}  // namespace sluice
