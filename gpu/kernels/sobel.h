// Sobel edge magnitude, MediaPipe's SobelEdgesCalculator: reads the first
// channel of each neighbour (the input is expected to be a luminance image
// stored as RGB), samples outside the image clamp to the edge (GL's
// CLAMP_TO_EDGE), and writes length(gx, gy) to r, g and b with alpha 1.
// Shared by the CPU path and the CUDA kernel.
#ifndef SLUICE_GPU_KERNELS_SOBEL_H_
#define SLUICE_GPU_KERNELS_SOBEL_H_

#include <math.h>

#include "gpu/kernels/host_device.h"

namespace sluice {
namespace gpu_kernels {

// Gradient magnitude from the 3x3 neighbourhood `n` (row-major, n[4] is the
// centre, which Sobel does not use), values in [0, 1].
SLUICE_HOST_DEVICE float SobelMagnitude(const float n[9]) {
  const float gx = -n[0] - 2.f * n[3] - n[6] + n[2] + 2.f * n[5] + n[8];
  const float gy = -n[0] - 2.f * n[1] - n[2] + n[6] + 2.f * n[7] + n[8];
  return sqrtf(gx * gx + gy * gy);
}

// First channel at (x, y) of an 8-bit image with rows `pitch` bytes apart and
// `channels` bytes per pixel, clamped to the image, in [0, 1].
SLUICE_HOST_DEVICE float SampleClampedU8(const uint8_t* base, long pitch, int width, int height,
                                         int channels, int x, int y) {
  x = ClampInt(x, 0, width - 1);
  y = ClampInt(y, 0, height - 1);
  return base[y * pitch + static_cast<long>(x) * channels] * (1.f / 255.f);
}

// Writes the output pixel (x, y): magnitude in the colour channels, alpha
// (when `channels` is 4) opaque.
SLUICE_HOST_DEVICE void SobelPixelU8(const uint8_t* src, long src_pitch, uint8_t* dst, int width,
                                     int height, int channels, int x, int y) {
  float n[9];
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      n[(dy + 1) * 3 + (dx + 1)] =
          SampleClampedU8(src, src_pitch, width, height, channels, x + dx, y + dy);
    }
  }
  const uint8_t v = UnitToByte(SobelMagnitude(n));
  for (int c = 0; c < channels && c < 3; ++c) dst[c] = v;
  if (channels == 4) dst[3] = 255;
}

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_SOBEL_H_
