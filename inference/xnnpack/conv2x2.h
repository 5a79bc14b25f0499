// Our own AVX-512 kernel for a CONV_2D 2x2 stride 2 without padding, 16 -> 16,
// 32 -> 32, 64 -> 32 or 64 -> 16 channels (hand_recrop's downsamplings; its
// 64x64x16 -> 32x32x16 and 32x32x32 -> 16x16x32 took 0.018 / 0.016 ms on
// XNNPACK's IGEMM, one thread),
// optionally with the PRELU -> DEPTHWISE 1x1 after it (prelu_scale.h's pair)
// as its epilogue, so the conv's and the PRELU's tensors are never written;
// and the same pair in front of it computed on the fly on the rows it reads.
// Direct from NHWC: R output pixels of a row at once, per tap and input
// channel one weight load (C / 16 registers) and R FMAs with the input
// broadcast from memory. Same float operations in the same order as
// XNNPACK's IGEMM: bias, then taps row by row, column by column, input
// channels in order (FMA), max with lo, min with hi; then prelu_scale.h's
// epilogue (built with -ffp-contract=off). So the same bits.
#ifndef SLUICE_INFERENCE_XNNPACK_CONV2X2_H_
#define SLUICE_INFERENCE_XNNPACK_CONV2X2_H_

#include <vector>

#include "inference/xnnpack/huge_pages.h"

namespace sluice::inference::xnn {

struct Conv2x2Shape {
  int in_h = 0, in_w = 0, channels = 0;  // input [1, in_h, in_w, channels]
  int out_h = 0, out_w = 0;              // in_h / 2, in_w / 2 (odd: the last row / column dropped)
  int out_channels = 0;                  // 0: channels
  int OutChannels() const { return out_channels ? out_channels : channels; }
};

class Conv2x2 {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const Conv2x2Shape& s);
  // weights: [out, 2, 2, in] (OHWI); bias: out floats or nullptr.
  Conv2x2(const Conv2x2Shape& s, const float* weights, const float* bias, float lo, float hi);
  // The PRELU (slope) -> DEPTHWISE 1x1 (scale, bias or nullptr, clamp) epilogue
  // (out channels each).
  void SetPreluScale(const float* slope, const float* scale, const float* bias, float lo,
                     float hi);
  // A PRELU -> DEPTHWISE 1x1 in front (its output only this conv reads):
  // Run then reads that pair's input (channels each).
  void SetInputPreluScale(const float* slope, const float* scale, const float* bias, float lo,
                          float hi);
  const Conv2x2Shape& shape() const { return s_; }
  // Output rows [row_begin, row_end). `in` and `out` must not overlap.
  void Run(const float* in, float* out, int row_begin, int row_end) const;

 private:
  Conv2x2Shape s_;
  float lo_, hi_, lo2_ = 0, hi2_ = 0;
  bool prelu_scale_ = false;
  // bias (out), then per tap (ky * 2 + kx) and input channel `out` weights.
  HugeFloats packed_;
  std::vector<float> slope_, scale_, bias2_;  // out each (SetPreluScale)
  std::vector<float> in_slope_, in_scale_, in_bias_;  // channels each (SetInputPreluScale)
  float in_lo_ = 0, in_hi_ = 0;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_CONV2X2_H_
