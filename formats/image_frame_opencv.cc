#include "formats/image_frame_opencv.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice {

absl::StatusOr<int> CvTypeForFormat(ImageFormat::Format format) {
  absl::StatusOr<int> channels = ImageFrame::NumberOfChannelsForFormat(format);
  if (!channels.ok()) return channels.status();
  absl::StatusOr<int> depth = ImageFrame::ByteDepthForFormat(format);
  if (!depth.ok()) return depth.status();
  const int cv_depth = *depth == 1 ? CV_8U : *depth == 2 ? CV_16U : CV_32F;
  return CV_MAKETYPE(cv_depth, *channels);
}

cv::Mat MatView(const ImageFrame& frame) { return MatView(const_cast<ImageFrame*>(&frame)); }

cv::Mat MatView(ImageFrame* frame) {
  if (frame == nullptr || frame->IsEmpty()) return cv::Mat();
  absl::StatusOr<int> type = CvTypeForFormat(frame->Format());
  if (!type.ok()) return cv::Mat();
  return cv::Mat(frame->Height(), frame->Width(), *type, frame->MutablePixelData(),
                 static_cast<size_t>(frame->WidthStep()));
}

absl::StatusOr<ImageFrame> ImageFrameFromMat(const cv::Mat& mat, ImageFormat::Format format) {
  absl::StatusOr<int> type = CvTypeForFormat(format);
  if (!type.ok()) return type.status();
  if (mat.empty() || mat.dims != 2) {
    return absl::InvalidArgumentError("ImageFrameFromMat: the Mat is empty or not 2-D");
  }
  if (mat.type() != *type) {
    return absl::InvalidArgumentError(
        absl::StrCat("ImageFrameFromMat: Mat type ", mat.type(), " does not match ",
                     ImageFormat::Format_Name(format), " (", *type, ")"));
  }
  // The deleter owns a Mat header, which holds the buffer's reference count.
  auto keep = std::make_shared<cv::Mat>(mat);
  return ImageFrame::Adopt(format, mat.cols, mat.rows, static_cast<int>(mat.step[0]), mat.data,
                           [keep](uint8_t*) mutable { keep.reset(); });
}

}  // namespace sluice
