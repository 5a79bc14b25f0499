// The (n, y, x, c) position of element `i` of a dense NHWC tensor with the
// given H, W and C: how the cuda backend's one-thread-per-output kernels find
// their output.
#ifndef SLUICE_INFERENCE_CUDA_KERNELS_NHWC_INDEX_H_
#define SLUICE_INFERENCE_CUDA_KERNELS_NHWC_INDEX_H_

#include <stdint.h>

#include "gpu/kernels/host_device.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {

struct NhwcIndex {
  int n, y, x, c;
};

SLUICE_HOST_DEVICE NhwcIndex SplitNhwc(int64_t i, int h, int w, int c) {
  NhwcIndex r;
  r.c = static_cast<int>(i % c);
  i /= c;
  r.x = static_cast<int>(i % w);
  i /= w;
  r.y = static_cast<int>(i % h);
  r.n = static_cast<int>(i / h);
  return r;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice

#endif  // SLUICE_INFERENCE_CUDA_KERNELS_NHWC_INDEX_H_
