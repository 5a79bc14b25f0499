// CPU (OpenCV) conversion of an image region into a tensor, as MediaPipe's
// ImageToTensorCalculator does it: warp the 8-bit pixels of the rotated ROI
// into the tensor grid, then map [0, 255] linearly onto the output range.
#ifndef SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_CPU_H_
#define SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_CPU_H_

#include "absl/status/status.h"
#include "calculators/tensor/image_to_tensor_math.h"
#include "formats/image_frame.h"
#include "formats/tensor.h"

namespace sluice {
namespace image_to_tensor {

enum class BorderMode { kZero, kReplicate };
enum class Interpolation { kLinear, kCubic };

// Fills `tensor` (shape [1, H, W, C], C = 1 for a GRAY8 image else 3; element
// type float32, uint8 or int8) with the ROI of `image` (SRGB, SRGBA or GRAY8;
// alpha is dropped). Pixels outside the image come from the nearest edge
// (kReplicate) or are 0 before the range mapping, i.e. range_min (kZero).
// Integer outputs round and saturate.
absl::Status ConvertImageToTensor(const ImageFrame& image, const RotatedRect& roi, float range_min,
                                  float range_max, BorderMode border, Interpolation interpolation,
                                  Tensor* tensor);

}  // namespace image_to_tensor
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_CPU_H_
