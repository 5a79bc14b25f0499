#include "calculators/tensor/image_to_tensor_cpu.h"

#include "absl/strings/str_cat.h"
#include "formats/image_frame_opencv.h"
#include "opencv2/core.hpp"
#include "opencv2/imgproc.hpp"

namespace sluice {
namespace image_to_tensor {

absl::Status ConvertImageToTensor(const ImageFrame& image, const RotatedRect& roi, float range_min,
                                  float range_max, BorderMode border, Interpolation interpolation,
                                  Tensor* tensor) {
  const ImageFormat::Format format = image.Format();
  if (format != ImageFormat::SRGB && format != ImageFormat::SRGBA && format != ImageFormat::GRAY8) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported image format ", ImageFormat::Format_Name(format), " (",
                     static_cast<int>(format), "); expected SRGB, SRGBA or GRAY8"));
  }
  if (image.IsEmpty()) return absl::InvalidArgumentError("the input image is empty");
  if (!(range_min < range_max)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid output range [", range_min, ", ", range_max, "]"));
  }
  const std::vector<int>& dims = tensor->shape().dims;
  const int want_channels = format == ImageFormat::GRAY8 ? 1 : 3;
  if (dims.size() != 4 || dims[0] != 1 || dims[1] <= 0 || dims[2] <= 0 ||
      dims[3] != want_channels) {
    return absl::InvalidArgumentError(absl::StrCat("output tensor ", tensor->DebugString(),
                                                   " is not [1, H, W, ", want_channels, "]"));
  }
  int depth = -1;
  switch (tensor->element_type()) {
    case Tensor::ElementType::kFloat32:
      depth = CV_32F;
      break;
    case Tensor::ElementType::kUInt8:
      depth = CV_8U;
      break;
    case Tensor::ElementType::kInt8:
      depth = CV_8S;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "unsupported output tensor type ", Tensor::ElementTypeName(tensor->element_type())));
  }
  const int height = dims[1];
  const int width = dims[2];

  // The image -> tensor map is built the way MediaPipe's OpenCV converter
  // builds it: the ROI's corners as OpenCV computes them in float (angle in
  // degrees), solved against the tensor's corners in double, then inverted by
  // warpPerspective itself. The warp samples at 1/32-pixel fixed-point
  // positions, so a map that differs only by float rounding (as the direct
  // tensor -> image map does) moves some samples to the neighbouring 1/32
  // step: on large rotated crops (pose, most of it border) that changed a few
  // pixels by up to 3 levels and the pose landmarks by up to 0.04% of the
  // image (issue 9).
  const float angle_degrees =
      static_cast<float>(static_cast<double>(roi.rotation * 180.0f) / CV_PI);
  const cv::RotatedRect rotated(cv::Point2f(roi.center_x, roi.center_y),
                                cv::Size2f(roi.width, roi.height), angle_degrees);
  // Bottom-left, top-left, top-right, bottom-right: OpenCV's corner order.
  cv::Point2f roi_corners[4];
  rotated.points(roi_corners);
  const float w = static_cast<float>(width), h = static_cast<float>(height);
  const cv::Point2f tensor_corners[4] = {{0.0f, h}, {0.0f, 0.0f}, {w, 0.0f}, {w, h}};
  const int flags = interpolation == Interpolation::kCubic ? cv::INTER_CUBIC : cv::INTER_LINEAR;
  const int cv_border = border == BorderMode::kZero ? cv::BORDER_CONSTANT : cv::BORDER_REPLICATE;

  cv::Mat warped;
  try {
    // The warp runs on the 8-bit pixels (so results are quantized to 8 bits
    // like MediaPipe's), then the value mapping converts to the tensor type.
    const cv::Mat to_tensor = cv::getPerspectiveTransform(roi_corners, tensor_corners);
    cv::warpPerspective(MatView(image), warped, to_tensor, cv::Size(width, height), flags,
                        cv_border, cv::Scalar::all(0));
    if (warped.channels() == 4) cv::cvtColor(warped, warped, cv::COLOR_RGBA2RGB);
    const ValueTransform t = ByteToRange(range_min, range_max);
    Tensor::CpuWriteView view = tensor->GetCpuWriteView();
    cv::Mat dst(height, width, CV_MAKETYPE(depth, want_channels), view.data());
    warped.convertTo(dst, dst.type(), t.scale, t.offset);
  } catch (const cv::Exception& e) {
    return absl::InternalError(absl::StrCat("OpenCV failed: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace image_to_tensor
}  // namespace sluice
