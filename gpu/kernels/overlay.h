// Per-pixel maths of the annotation overlay's GPU path, shared by the CUDA
// kernel (overlay.cu), its host stand-in for the fake runtime and a CPU loop
// that the CI tests against the CPU drawing (render/drawing.h).
//
// The annotations are drawn on the CPU, with the CPU path's own drawing code,
// onto a transparent SRGBA layer (render/overlay_layer.h). OpenCV's
// antialiased drawing blends each colour into the canvas as
// `v += ((c - v) * a + 127) >> 8` on every channel, alpha included, so a layer
// that starts at (0, 0, 0, 0) holds premultiplied colour (L) and coverage (A).
// The image pixel d then becomes L + d * (255 - A) / 255 ("over" with
// premultiplied alpha), rounded to nearest. Pixels the drawing overwrites
// (fills, the inside of thick strokes) have A = 255 and come out exactly;
// antialiased edges, where the CPU path rounds once per blend into the image
// and the layer rounds into itself first, may differ by a level or two
// (overlay_gpu_math_test measures it).
#ifndef SLUICE_GPU_KERNELS_OVERLAY_H_
#define SLUICE_GPU_KERNELS_OVERLAY_H_

#include <stdint.h>

#include "gpu/kernels/host_device.h"

namespace sluice {
namespace gpu_kernels {

// Everything one launch needs. The layer is always 4 channels (premultiplied
// RGBA); the image has 3 (SRGB) or 4 (SRGBA, whose alpha is composited like
// a colour channel, as the CPU drawing does).
struct OverlayParams {
  int width;
  int height;
  int channels;    // of src and dst: 3 or 4
  long src_pitch;  // bytes per row
  long layer_pitch;
  long dst_pitch;
};

SLUICE_HOST_DEVICE bool OverlayParamsValid(const OverlayParams& p) {
  return p.width > 0 && p.height > 0 && (p.channels == 3 || p.channels == 4) &&
         p.src_pitch >= static_cast<long>(p.width) * p.channels &&
         p.dst_pitch >= static_cast<long>(p.width) * p.channels &&
         p.layer_pitch >= static_cast<long>(p.width) * 4;
}

// One channel: premultiplied layer value `l` with coverage `a` over `d`.
SLUICE_HOST_DEVICE uint8_t OverlayChannelU8(int d, int l, int a) {
  const int v = l + (d * (255 - a) + 127) / 255;
  return static_cast<uint8_t>(v > 255 ? 255 : v);
}

// Pixel (x, y): src -> dst (may be the same memory).
SLUICE_HOST_DEVICE void OverlayPixelU8(const uint8_t* src, const uint8_t* layer, uint8_t* dst,
                                       const OverlayParams& p, int x, int y) {
  const uint8_t* s = src + y * p.src_pitch + static_cast<long>(x) * p.channels;
  const uint8_t* l = layer + y * p.layer_pitch + static_cast<long>(x) * 4;
  uint8_t* o = dst + y * p.dst_pitch + static_cast<long>(x) * p.channels;
  const int a = l[3];
  for (int k = 0; k < p.channels; ++k) o[k] = OverlayChannelU8(s[k], l[k], a);
}

// The CPU loop over every pixel.
SLUICE_HOST_DEVICE void OverlayLoopU8(const uint8_t* src, const uint8_t* layer, uint8_t* dst,
                                      const OverlayParams& p) {
  for (int y = 0; y < p.height; ++y) {
    for (int x = 0; x < p.width; ++x) OverlayPixelU8(src, layer, dst, p, x, y);
  }
}

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_OVERLAY_H_
