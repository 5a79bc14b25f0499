// Per-pixel maths of ImageToTensorCalculator's GPU path, shared by the CUDA
// kernel (image_to_tensor.cu), its host stand-in for the fake runtime and a
// CPU loop the CI tests against the CPU path and MediaPipe's goldens.
//
// Each output pixel is sampled at the source position the transform `m`
// gives (the calculator passes the CPU path's positions, so that `--device
// cuda` agrees with `--device cpu`; PixelCentreTransform gives MediaPipe's GL
// converter's pixel-centre positions instead), bilinearly, with a replicate
// border (clamp to edge) or a zero border (the edge blends into 0 over one
// pixel, as GL_CLAMP_TO_BORDER with a zero colour), then
// `alpha * colour + beta` on colours in [0, 1], written as float. Unlike the
// CPU (OpenCV) path there is no 8-bit rounding of the warped pixels and no
// 1/32-pixel fixed-point position, so the two differ by small amounts (see
// the tests for measured bounds).
#ifndef SLUICE_GPU_KERNELS_IMAGE_TO_TENSOR_H_
#define SLUICE_GPU_KERNELS_IMAGE_TO_TENSOR_H_

#include <math.h>
#include <stdint.h>

#include "gpu/kernels/host_device.h"

namespace sluice {
namespace gpu_kernels {

enum ImageToTensorBorder : int { kImageToTensorBorderZero = 0, kImageToTensorBorderReplicate = 1 };

// Everything one launch needs, passed by value to the kernel.
struct ImageToTensorParams {
  // Source position of tensor pixel (u, v), in source pixel indices (pixel i
  // covers [i - 0.5, i + 0.5]): x = m[0]*u + m[1]*v + m[2],
  // y = m[3]*u + m[4]*v + m[5]. Build it with PixelCentreTransform.
  float m[6];
  int src_width;
  int src_height;
  int src_channels;  // 1 (GRAY8), 3 (SRGB) or 4 (SRGBA; alpha is dropped)
  long src_pitch;    // bytes from one source row to the next
  int dst_width;
  int dst_height;
  int dst_channels;  // 1 for a 1-channel source, else 3
  float alpha;       // output = alpha * sample + beta, sample in [0, 1]
  float beta;
  int border;  // ImageToTensorBorder
};

// From the corner-convention map of calculators/tensor/image_to_tensor_math.h
// (TensorToImagePixelTransform: tensor (0,0) is the ROI's top-left corner,
// continuous image coordinates with pixel i covering [i, i+1]) to the map of
// ImageToTensorParams::m: sample at the tensor pixel's centre (u + 0.5,
// v + 0.5), and express the result in pixel indices (minus 0.5).
SLUICE_HOST_DEVICE void PixelCentreTransform(const float corner[6], float centre[6]) {
  centre[0] = corner[0];
  centre[1] = corner[1];
  centre[2] = corner[2] + 0.5f * (corner[0] + corner[1]) - 0.5f;
  centre[3] = corner[3];
  centre[4] = corner[4];
  centre[5] = corner[5] + 0.5f * (corner[3] + corner[4]) - 0.5f;
}

// One source byte of channel `c` at pixel (x, y), with the border rule for
// pixels outside the image.
SLUICE_HOST_DEVICE float ImageToTensorTexel(const uint8_t* src, const ImageToTensorParams& p, int x,
                                            int y, int c) {
  if (p.border == kImageToTensorBorderReplicate) {
    x = ClampInt(x, 0, p.src_width - 1);
    y = ClampInt(y, 0, p.src_height - 1);
  } else if (x < 0 || y < 0 || x >= p.src_width || y >= p.src_height) {
    return 0.f;
  }
  return static_cast<float>(src[y * p.src_pitch + static_cast<long>(x) * p.src_channels + c]);
}

// Writes the dst_channels values of tensor pixel (u, v) to `out`.
SLUICE_HOST_DEVICE void ImageToTensorPixel(const uint8_t* src, const ImageToTensorParams& p, int u,
                                           int v, float* out) {
  float x = p.m[0] * u + p.m[1] * v + p.m[2];
  float y = p.m[3] * u + p.m[4] * v + p.m[5];
  // Far outside, every tap is border: clamp so the integer casts stay in
  // range (fmaxf also maps NaN to the lower bound).
  x = fminf(fmaxf(x, -2.f), static_cast<float>(p.src_width) + 1.f);
  y = fminf(fmaxf(y, -2.f), static_cast<float>(p.src_height) + 1.f);
  const float fx = floorf(x);
  const float fy = floorf(y);
  const int x0 = static_cast<int>(fx);
  const int y0 = static_cast<int>(fy);
  const float ax = x - fx;
  const float ay = y - fy;
  const float scale = p.alpha * (1.f / 255.f);
  for (int c = 0; c < p.dst_channels; ++c) {
    const float t00 = ImageToTensorTexel(src, p, x0, y0, c);
    const float t10 = ImageToTensorTexel(src, p, x0 + 1, y0, c);
    const float t01 = ImageToTensorTexel(src, p, x0, y0 + 1, c);
    const float t11 = ImageToTensorTexel(src, p, x0 + 1, y0 + 1, c);
    const float top = t00 + ax * (t10 - t00);
    const float bottom = t01 + ax * (t11 - t01);
    const float value = top + ay * (bottom - top);
    out[c] = scale * value + p.beta;
  }
}

// The whole tensor on the calling thread: dense NHWC float, dst_width *
// dst_channels floats per row. The CPU loop the tests run, and the fake
// runtime's "kernel".
SLUICE_HOST_DEVICE void ImageToTensorLoopF32(const uint8_t* src, const ImageToTensorParams& p,
                                             float* dst) {
  for (int v = 0; v < p.dst_height; ++v) {
    for (int u = 0; u < p.dst_width; ++u) {
      ImageToTensorPixel(src, p, u, v,
                         dst + (static_cast<long>(v) * p.dst_width + u) * p.dst_channels);
    }
  }
}

// Whether the launch parameters describe something the kernel handles.
SLUICE_HOST_DEVICE bool ImageToTensorParamsValid(const ImageToTensorParams& p) {
  const bool src_ok = p.src_width > 0 && p.src_height > 0 &&
                      (p.src_channels == 1 || p.src_channels == 3 || p.src_channels == 4) &&
                      p.src_pitch >= static_cast<long>(p.src_width) * p.src_channels;
  const bool dst_ok =
      p.dst_width > 0 && p.dst_height > 0 && p.dst_channels == (p.src_channels == 1 ? 1 : 3);
  const bool border_ok =
      p.border == kImageToTensorBorderZero || p.border == kImageToTensorBorderReplicate;
  return src_ok && dst_ok && border_ok;
}

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_IMAGE_TO_TENSOR_H_
