// Our own AVX-512 kernel for the residual block
//   y = ADD(x, CONV_1x1(DEPTHWISE_3x3_SAME(x)))
// on narrow tensors (C <= 16 channels, C -> C): the pose landmark models'
// segmentation branch (128x128x8 and 256x256x8, twice each). Run op by op,
// these three are memory bound (the 8-channel depthwise output and the 1x1
// output each go to memory and come back) with half or three quarters of
// the 16-lane registers idle. Here one output row is computed at once from
// three input rows: the depthwise result of a register (two 8-channel pixels
// when C <= 8, one pixel otherwise) stays in that register, the 1x1 takes
// each input channel by a lane permute, the residual is the depthwise's
// centre tap. The only memory traffic is x read once and y written once.
//
// Same float operations in the same order as the unfused path (XNNPACK's
// and our depthwise_conv.h / pointwise_conv.h): depthwise = bias, taps
// column by column (taps outside the image skipped), clamp; 1x1 = bias, input
// channels in order (FMA), clamp; then + x, clamp. So the same bits.
#ifndef SLUICE_INFERENCE_XNNPACK_DW_PW_BLOCK_H_
#define SLUICE_INFERENCE_XNNPACK_DW_PW_BLOCK_H_

#include <cstddef>
#include <vector>

namespace sluice::inference::xnn {

struct DwPwShape {
  int h = 0, w = 0, channels = 0;  // x and y: [1, h, w, channels]
};

struct DwPwParams {
  const float* dw_weights = nullptr;  // [1, 3, 3, C] (TFLite)
  const float* dw_bias = nullptr;     // C floats or nullptr
  float dw_min = 0, dw_max = 0;       // the depthwise's activation clamp
  const float* pw_weights = nullptr;  // [C, 1, 1, C] (OHWI)
  const float* pw_bias = nullptr;     // C floats or nullptr
  float pw_min = 0, pw_max = 0;       // the 1x1's
  float add_min = 0, add_max = 0;     // the ADD's
};

class DwPwBlock {
 public:
  static constexpr int kMaxChannels = 16;
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const DwPwShape& s);
  DwPwBlock(const DwPwShape& s, const DwPwParams& p);
  const DwPwShape& shape() const { return s_; }
  // Output rows [row_begin, row_end); reads input rows row_begin - 1 ..
  // row_end. `in` and `out` must not overlap.
  void Run(const float* in, float* out, int row_begin, int row_end) const;

 private:
  DwPwShape s_;
  int pixels_ = 1;  // pixels per register: 2 when C <= 8 (8 lanes each), else 1
  float clamp_[6];  // dw, pw, add: min, max
  std::vector<float> storage_;
  // 64-byte aligned in storage_, 16 lanes each (lane = pixel slot * (16 /
  // pixels_) + channel, repeated per slot, 0 past C): dw bias, 9 dw taps
  // (ky * 3 + kx), pw bias, C pw weight rows (input channel i: W[c][i]),
  // C permute indices (int32: the lane of input channel i in the same slot).
  float* packed_ = nullptr;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_DW_PW_BLOCK_H_
