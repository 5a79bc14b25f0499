// Our own AVX-512 kernel for a convolution with one output pixel whose
// filter covers its whole input (face_landmark's last layer: 3x3x32 ->
// 1x1x1404): a GEMV, out[n] = clamp(bias[n] + sum_k in[k] * W[n][k]), bound
// by reading the weights (1.6 MB in fp32, larger than L2 after the rest of the
// model ran). The models store such weights as fp16 behind a DEQUANTIZE;
// when every weight is exact in fp16 we keep them so and widen them on the
// fly (vcvtph2ps, exact): half the bytes, the same values.
//
// Same float operations in the same order as XNNPACK's GEMM for it: bias as
// the initial sum, k in order (filter position, then input channel: the
// input's memory order) by FMA, then the clamp. So the same bits.
#ifndef SLUICE_INFERENCE_XNNPACK_GEMV_CONV_H_
#define SLUICE_INFERENCE_XNNPACK_GEMV_CONV_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "inference/xnnpack/huge_pages.h"

namespace sluice::inference::xnn {

class GemvConv {
 public:
  // Outputs per block (the unit threads split).
  static constexpr int kBlock = 128;
  // True when the kernel runs on this CPU and all `count` weights are exact
  // in fp16 (not NaN).
  static bool Supports(const float* weights, size_t count);
  // `weights`: [N, K] row-major (OHWI flattened); `bias`: N floats or nullptr.
  GemvConv(int k, int n, const float* weights, const float* bias, float out_min, float out_max);
  int blocks() const { return (n_ + kBlock - 1) / kBlock; }
  // Outputs of blocks [block_begin, block_end) from `in` (K floats).
  void Run(const float* in, float* out, int block_begin, int block_end) const;

 private:
  int k_, n_;
  float min_, max_;
  // Per 16 outputs j: K rows of 16 fp16 weights ((j * K + k) * 16), zero past N.
  std::vector<uint16_t, HugePageAllocator<uint16_t>> w16_;
  std::vector<float> bias_;  // padded to whole blocks
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_GEMV_CONV_H_
