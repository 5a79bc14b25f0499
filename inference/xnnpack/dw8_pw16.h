// Our own AVX-512 kernel for hand_recrop's 64x64 block
//   y = ADD(PAD_channels(r), CONV_1x1_8->16(DEPTHWISE_3x3_SAME_s1(x)))
// x: 8 channels, r: 8 channels (the padded residual: channels 8-15 add 0).
// Streamed as DEPTHWISE -> 1x1 (stream_conv.h) it ran at ~36 GFLOP/s: the
// depthwise on 8 channels fills half a register. Here a row's depthwise runs
// two pixels a register into a stack row, then the 1x1 takes 8 pixels a step
// (weights in registers, the input broadcast from memory).
// Same float operations in the same order as depthwise_conv.h (bias, taps
// column by column, outside taps skipped, clamp) and pointwise_conv.h (bias,
// input channels in order by FMA, clamp, + residual (0 past 8), clamp): the
// same bits.
#ifndef SLUICE_INFERENCE_XNNPACK_DW8_PW16_H_
#define SLUICE_INFERENCE_XNNPACK_DW8_PW16_H_

#include <cstddef>
#include <vector>

#include "inference/xnnpack/huge_pages.h"

namespace sluice::inference::xnn {

class Dw8Pw16 {
 public:
  static constexpr int kMaxWidth = 256;
  // dw_weights [1,3,3,8], pw_weights [16,8] (OHWI); biases may be nullptr.
  Dw8Pw16(int h, int w, const float* dw_weights, const float* dw_bias, float dw_min,
          float dw_max, const float* pw_weights, const float* pw_bias, float pw_min,
          float pw_max, float add_min, float add_max);
  static bool Supports(int h, int w);
  int rows() const { return h_; }
  static constexpr int kBandsPerThread = 2;
  size_t ScratchFloats() const { return 0; }
  // Output rows [row_begin, row_end); `residual` rows of w x 8 floats.
  void Run(const float* in, const float* residual, float* out, int row_begin, int row_end,
           float* scratch) const;

 private:
  int h_, w_;
  float clamp_[6];
  HugeFloats storage_;
  float* packed_ = nullptr;  // dw bias [8|8], 9 taps [8|8], pw bias 16, 8 pw rows of 16
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_DW8_PW16_H_
