// Our own AVX-512 kernel for MediaPipe's Convolution2DTransposeBias when its
// kernel equals its stride (2x2, stride 2, unpadded) and it has one output
// channel: the selfie segmentation models' last layer (128x128x16 ->
// 256x256x1). XNNPACK 2022 runs it as a deconvolution whose 16-wide output
// tiles hold one useful channel, at ~3-6 GFLOP/s (0.4-0.7 ms, the costliest
// op of selfie_segmentation). With kernel == stride every output pixel takes
// exactly one input pixel: out[2y+ky][2x+kx] = bias + sum_c in[y][x][c] *
// w[ky][kx][c]. Here 16 input pixels are one register (a channel gathered
// across them) and the two kx results are interleaved into a 32-float output
// row segment. The sums follow XNNPACK's, which runs this op on its
// two-output-channel SSE GEMM (4x2c4): four partial sums over the channels
// c = j mod 4, each product rounded before it is added (no FMA), the bias
// starting sum 0, combined as (s0 + s2) + (s1 + s3); so the same bits
// (checked against it on both selfie models). With 16 channels the 16
// pixels' channels come from a register transpose instead of 16 gathers
// (0.074 -> 0.047 ms at 128x128x16).
#ifndef SLUICE_INFERENCE_XNNPACK_UPSAMPLE_CONV_H_
#define SLUICE_INFERENCE_XNNPACK_UPSAMPLE_CONV_H_

#include <vector>

#include "inference/xnnpack/huge_pages.h"

namespace sluice::inference::xnn {

struct UpsampleConvShape {
  int in_h = 0, in_w = 0, channels = 0;  // input [1, in_h, in_w, channels]
  // Output [1, 2 * in_h, 2 * in_w, 1]: kernel 2x2, stride 2, no padding.
};

class UpsampleConv {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const UpsampleConvShape& s);
  // `weights`: [1, 2, 2, C] (MediaPipe's [OC, KH, KW, IC]); `bias`: 1 float
  // or nullptr.
  UpsampleConv(const UpsampleConvShape& s, const float* weights, const float* bias);
  const UpsampleConvShape& shape() const { return s_; }
  // Input rows [row_begin, row_end), i.e. output rows [2 * begin, 2 * end).
  void Run(const float* in, float* out, int row_begin, int row_end) const;
  // Input row `y` from `in_row` (in_w * channels floats, anywhere, e.g. a
  // row just computed into L1: dw_add_upsample.h): output rows 2y, 2y + 1.
  void RunRow(const float* in_row, float* out, int y) const;

 private:
  UpsampleConvShape s_;
  float bias_ = 0.0f;
  HugeFloats weights_;  // [ky][kx][c]
  // 16 channels: 16 pixels' channels by a register transpose, not gathers;
  // SLUICE_XNNPACK_UPSAMPLE_T=0 (read at construction) keeps the gathers.
  bool transpose_ = true;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_UPSAMPLE_CONV_H_
