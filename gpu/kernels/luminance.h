// Luminance of an RGB(A) pixel, kept as RGB: MediaPipe's LuminanceCalculator
// (fragment shader: dot(rgb, (0.2125, 0.7154, 0.0721)) written to r, g and b,
// alpha copied). Shared by the CPU path and the CUDA kernel.
#ifndef SLUICE_GPU_KERNELS_LUMINANCE_H_
#define SLUICE_GPU_KERNELS_LUMINANCE_H_

#include "gpu/kernels/host_device.h"

namespace sluice {
namespace gpu_kernels {

// The Rec. 709 luma weights MediaPipe's shader uses (on non-linearised values).
constexpr float kLumaR = 0.2125f;
constexpr float kLumaG = 0.7154f;
constexpr float kLumaB = 0.0721f;

SLUICE_HOST_DEVICE float Luminance(float r, float g, float b) {
  return kLumaR * r + kLumaG * g + kLumaB * b;
}

// One 8-bit pixel of `channels` (3 = RGB, 4 = RGBA) interleaved bytes.
// `src` and `dst` may alias.
SLUICE_HOST_DEVICE void LuminancePixelU8(const uint8_t* src, uint8_t* dst, int channels) {
  const float l = Luminance(src[0] * (1.f / 255.f), src[1] * (1.f / 255.f), src[2] * (1.f / 255.f));
  const uint8_t a = channels == 4 ? src[3] : 0;
  const uint8_t v = UnitToByte(l);
  dst[0] = v;
  dst[1] = v;
  dst[2] = v;
  if (channels == 4) dst[3] = a;
}

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_LUMINANCE_H_
