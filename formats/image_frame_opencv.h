// cv::Mat views of ImageFrames and back, without copying pixels. Only code
// that uses OpenCV includes this (target sluice_formats_opencv).
#ifndef SLUICE_FORMATS_IMAGE_FRAME_OPENCV_H_
#define SLUICE_FORMATS_IMAGE_FRAME_OPENCV_H_

#include "absl/status/statusor.h"
#include "formats/image_frame.h"
#include "opencv2/core.hpp"

namespace sluice {

// OpenCV type (e.g. CV_8UC3) of a format's pixels.
absl::StatusOr<int> CvTypeForFormat(ImageFormat::Format format);

// A Mat header over the frame's pixels (no copy; the frame must outlive it).
// Empty Mat for an empty frame. The const overload's Mat must not be written.
cv::Mat MatView(const ImageFrame& frame);
cv::Mat MatView(ImageFrame* frame);

// An ImageFrame sharing `mat`'s pixels (no copy; the frame keeps a reference
// to the Mat's buffer). `mat`'s type must match `format`.
absl::StatusOr<ImageFrame> ImageFrameFromMat(const cv::Mat& mat, ImageFormat::Format format);

}  // namespace sluice

#endif  // SLUICE_FORMATS_IMAGE_FRAME_OPENCV_H_
