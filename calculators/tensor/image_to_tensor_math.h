// Geometry of ImageToTensorCalculator as plain inline functions, shared by the
// CPU path and (later) the CUDA kernels: ROI in pixels, letterbox padding,
// the tensor-pixel -> image-pixel sampling transform and the MATRIX output.
// Compiles as C++ and as CUDA (SLUICE_HOST_DEVICE is `inline` in plain C++).
//
// Conventions (MediaPipe's): the ROI is a rectangle of `width` x `height`
// pixels centred at (center_x, center_y), rotated by `rotation` radians
// (clockwise on screen, since y points down). Tensor pixel (u, v) samples the
// image at the point the ROI's corners define, with OpenCV's pixel-index
// convention (no half-pixel shift): tensor (0,0) is the ROI's top-left corner
// and (W, H) its bottom-right one.
#ifndef SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_MATH_H_
#define SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_MATH_H_

#include <cmath>

#include "gpu/kernels/host_device.h"  // SLUICE_HOST_DEVICE (inline in plain C++)

namespace sluice {
namespace image_to_tensor {

struct RotatedRect {
  float center_x;
  float center_y;
  float width;
  float height;
  float rotation;  // Radians.
};

// ROI in pixels from a normalized rect (x_center, y_center, width, height in
// fractions of the image size).
SLUICE_HOST_DEVICE RotatedRect RoiFromNormalized(float x_center, float y_center, float width,
                                                 float height, float rotation, int image_width,
                                                 int image_height) {
  return RotatedRect{x_center * image_width, y_center * image_height, width * image_width,
                     height * image_height, rotation};
}

// The whole image, unrotated.
SLUICE_HOST_DEVICE RotatedRect FullImageRoi(int image_width, int image_height) {
  return RotatedRect{0.5f * image_width, 0.5f * image_height, static_cast<float>(image_width),
                     static_cast<float>(image_height), 0.0f};
}

// Letterboxing (keep_aspect_ratio): grows the ROI (in its own rotated frame)
// along one axis until its aspect ratio equals the tensor's, and writes the
// padding as fractions of the tensor size {left, top, right, bottom}.
// Returns false (leaving everything untouched) when a size is not positive.
SLUICE_HOST_DEVICE bool PadRoiToAspect(int tensor_width, int tensor_height, RotatedRect* roi,
                                       float padding[4]) {
  if (tensor_width <= 0 || tensor_height <= 0 || !(roi->width > 0) || !(roi->height > 0)) {
    return false;
  }
  const float tensor_aspect = static_cast<float>(tensor_height) / tensor_width;
  const float roi_aspect = roi->height / roi->width;
  float horizontal = 0.0f;
  float vertical = 0.0f;
  if (tensor_aspect > roi_aspect) {
    // Taller tensor: pad above and below.
    roi->height = roi->width * tensor_aspect;
    vertical = (1.0f - roi_aspect / tensor_aspect) / 2.0f;
  } else {
    roi->width = roi->height / tensor_aspect;
    horizontal = (1.0f - tensor_aspect / roi_aspect) / 2.0f;
  }
  padding[0] = horizontal;
  padding[1] = vertical;
  padding[2] = horizontal;
  padding[3] = vertical;
  return true;
}

// 2x3 affine map from tensor pixel (u, v) to image pixel (x, y):
//   x = m[0]*u + m[1]*v + m[2],  y = m[3]*u + m[4]*v + m[5].
// It is the ROI's local frame ((u/W - 1/2)*w, (v/H - 1/2)*h), rotated and
// moved to the ROI's centre.
SLUICE_HOST_DEVICE void TensorToImagePixelTransform(const RotatedRect& roi, int tensor_width,
                                                    int tensor_height, float m[6]) {
  const float c = cosf(roi.rotation);
  const float s = sinf(roi.rotation);
  const float sx = roi.width / tensor_width;
  const float sy = roi.height / tensor_height;
  m[0] = c * sx;
  m[1] = -s * sy;
  m[2] = roi.center_x - 0.5f * c * roi.width + 0.5f * s * roi.height;
  m[3] = s * sx;
  m[4] = c * sy;
  m[5] = roi.center_y - 0.5f * s * roi.width - 0.5f * c * roi.height;
}

// MATRIX output: 4x4 row-major transform from normalized tensor coordinates
// ([0,1]^2, z scaled like x) to normalized image coordinates; with
// `flip_horizontally` the tensor is mirrored around its vertical centre line.
SLUICE_HOST_DEVICE void TensorToImageMatrix(const RotatedRect& roi, int image_width,
                                            int image_height, bool flip_horizontally,
                                            float matrix[16]) {
  const float a = roi.width;
  const float b = roi.height;
  const float flip = flip_horizontally ? -1.0f : 1.0f;
  const float c = cosf(roi.rotation);
  const float d = sinf(roi.rotation);
  const float e = roi.center_x;
  const float f = roi.center_y;
  const float g = 1.0f / image_width;
  const float h = 1.0f / image_height;
  matrix[0] = a * c * flip * g;
  matrix[1] = -b * d * g;
  matrix[2] = 0.0f;
  matrix[3] = (-0.5f * a * c * flip + 0.5f * b * d + e) * g;
  matrix[4] = a * d * flip * h;
  matrix[5] = b * c * h;
  matrix[6] = 0.0f;
  matrix[7] = (-0.5f * b * c - 0.5f * a * d * flip + f) * h;
  matrix[8] = 0.0f;
  matrix[9] = 0.0f;
  matrix[10] = a * g;
  matrix[11] = 0.0f;
  matrix[12] = 0.0f;
  matrix[13] = 0.0f;
  matrix[14] = 0.0f;
  matrix[15] = 1.0f;
}

// Linear map of 8-bit values [0, 255] onto [range_min, range_max]:
// out = in * scale + offset.
struct ValueTransform {
  float scale;
  float offset;
};
SLUICE_HOST_DEVICE ValueTransform ByteToRange(float range_min, float range_max) {
  return ValueTransform{(range_max - range_min) / 255.0f, range_min};
}

}  // namespace image_to_tensor
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_MATH_H_
