// Per-output maths of AVERAGE_POOL_2D and MAX_POOL_2D for the cuda backend
// (host compiler and nvcc): NHWC, TF padding, average divides by the taps
// inside the input, then the fused activation, as
// inference/reference/kernels_conv.cc does.
#ifndef SLUICE_INFERENCE_CUDA_KERNELS_POOL_H_
#define SLUICE_INFERENCE_CUDA_KERNELS_POOL_H_

#include <stdint.h>

#include "gpu/kernels/host_device.h"
#include "inference/cuda/kernels/conv.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {

struct PoolParams {
  int n, ih, iw, c, oh, ow, kh, kw, sh, sw, pt, pl;
  int is_max;  // 1: MAX_POOL_2D, 0: AVERAGE_POOL_2D
  int act;     // ConvActivationCode
};

SLUICE_HOST_DEVICE float PoolOutput(const float* in, const PoolParams& p, int n, int oy, int ox,
                                    int ch) {
  float acc = p.is_max ? -INFINITY : 0.0f;
  int count = 0;
  for (int ky = 0; ky < p.kh; ++ky) {
    const int iy = oy * p.sh - p.pt + ky;
    if (iy < 0 || iy >= p.ih) continue;
    for (int kx = 0; kx < p.kw; ++kx) {
      const int ix = ox * p.sw - p.pl + kx;
      if (ix < 0 || ix >= p.iw) continue;
      const float v = in[((static_cast<int64_t>(n) * p.ih + iy) * p.iw + ix) * p.c + ch];
      if (p.is_max) {
        acc = acc < v ? v : acc;  // std::max(acc, v)
      } else {
        acc += v;
      }
      ++count;
    }
  }
  if (!p.is_max) acc = count > 0 ? acc / count : 0.0f;
  return ConvActivate(acc, p.act);
}

SLUICE_HOST_DEVICE bool PoolParamsValid(const PoolParams& p) {
  return p.n > 0 && p.ih > 0 && p.iw > 0 && p.c > 0 && p.oh > 0 && p.ow > 0 && p.kh > 0 &&
         p.kw > 0 && p.sh > 0 && p.sw > 0;
}

// One output pixel whose window is exactly the unpadded input.
SLUICE_HOST_DEVICE bool IsGlobalPool(const PoolParams& p) {
  return p.oh == 1 && p.ow == 1 && p.kh == p.ih && p.kw == p.iw && p.pt == 0 && p.pl == 0;
}

// Global pools (IsGlobalPool) as a block reduction: kGlobalPoolLanes threads
// per channel each reduce every kGlobalPoolLanes-th pixel (phase 1), then one
// combines the lanes in order, divides and activates (phase 2). A different
// summation order than PoolOutput's raster order: float rounding only.
constexpr int kGlobalPoolLanes = 32;  // blocks of 32 x 32 threads

SLUICE_HOST_DEVICE float GlobalPoolPartial(const float* in, const PoolParams& p, int n, int ch,
                                           int lane) {
  const int pixels = p.ih * p.iw;
  const float* base = in + static_cast<int64_t>(n) * pixels * p.c + ch;
  float acc = p.is_max ? -INFINITY : 0.0f;
  for (int q = lane; q < pixels; q += kGlobalPoolLanes) {
    const float v = base[static_cast<int64_t>(q) * p.c];
    acc = p.is_max ? (acc < v ? v : acc) : acc + v;
  }
  return acc;
}

// `part` holds the lanes' partials of one channel, kGlobalPoolLanes apart.
SLUICE_HOST_DEVICE float GlobalPoolFinish(const float* part, int stride, const PoolParams& p) {
  float acc = part[0];
  for (int l = 1; l < kGlobalPoolLanes; ++l) {
    const float v = part[l * stride];
    acc = p.is_max ? (acc < v ? v : acc) : acc + v;
  }
  if (!p.is_max) acc /= p.ih * p.iw;
  return ConvActivate(acc, p.act);
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice

#endif  // SLUICE_INFERENCE_CUDA_KERNELS_POOL_H_
