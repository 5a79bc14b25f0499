// HARD_SWISH in place, as an epilogue of our own DEPTHWISE and 1x1 kernels:
//   x = x * min(max(x / 6 + 1/2, 0), 1)
// with XNNPACK's f32-vhswish avx512f arithmetic (fma(x, 1/6, 1/2), max, min,
// product), so the same bits as its separate HARD_SWISH node. Why: the
// selfie models' blocks are 1x1 -> HARD_SWISH -> DEPTHWISE -> HARD_SWISH;
// XNNPACK ran each HARD_SWISH as a step of its own (one more parallel call and
// pass over memory); here it runs on rows the kernel has just written (in L1).
#ifndef SLUICE_INFERENCE_XNNPACK_HARD_SWISH_H_
#define SLUICE_INFERENCE_XNNPACK_HARD_SWISH_H_

#include <cstddef>

namespace sluice::inference::xnn {

// True when this CPU (and this build) has the AVX-512 kernel.
bool HardSwishAvailable();
// x[0, n) in place.
void HardSwishInPlace(float* x, size_t n);
// `rows` runs of `cols` floats, `stride` floats apart, in place (a channel
// block of a 1x1's output rows).
void HardSwishInPlace(float* x, size_t rows, size_t stride, size_t cols);

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_HARD_SWISH_H_
