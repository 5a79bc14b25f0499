// Our own AVX-512 kernel for the residual block
//   y = [PRELU](ADD(x, CONV_1x1(DEPTHWISE_3x3_SAME(x))))
// C -> C channels, C <= 16, 32 or 64: the pose landmark models' segmentation
// branch (128x128x8 and 256x256x8), face_landmark's backbone (96x96x16,
// 48x48x32, 24x24x64, each with a PRELU after the ADD). Run op by op, these
// are memory bound (the depthwise output and the 1x1 output each go to
// memory and come back). Here one output row is computed at once from three
// input rows, x read once and y written once:
//  - C <= 15: the depthwise result of a register (two 8-channel pixels when
//    C <= 8, one pixel otherwise) stays in that register, the 1x1 takes each
//    input channel by a lane permute;
//  - C = 16, 32, 64 (C / 16 registers a pixel): 12 pixels a step at C = 16,
//    24 / (C / 16) above, each input column loaded once for its taps, the
//    depthwise results to a small buffer, then the 1x1 as a GEMM tile
//    (input channel broadcast from memory times a weight row); pixels with
//    taps outside the image gather into their own tiles.
// The residual is the depthwise's centre tap.
//
// Same float operations in the same order as the unfused path (XNNPACK's
// and our depthwise_conv.h / pointwise_conv.h): depthwise = bias, taps
// column by column (taps outside the image skipped), clamp; 1x1 = bias, input
// channels in order (FMA), clamp; then + x, clamp; PRELU by the sign bit.
// So the same bits.
#ifndef SLUICE_INFERENCE_XNNPACK_DW_PW_BLOCK_H_
#define SLUICE_INFERENCE_XNNPACK_DW_PW_BLOCK_H_

#include <cstddef>
#include <vector>

#include "inference/xnnpack/huge_pages.h"

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
  const float* prelu_slope = nullptr;  // C slopes of a PRELU after the ADD, or nullptr
};

class DwPwBlock {
 public:
  static constexpr int kMaxChannels = 16;  // and 32, 64
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
  bool pw_free_ = false;  // C = 8 and the 1x1's clamp unbounded: skipped
  bool prelu_ = false;
  HugeFloats storage_;
  // 64-byte aligned in storage_. C < 16: 16 lanes each (lane = pixel slot * (16 /
  // pixels_) + channel, repeated per slot, 0 past C): dw bias, 9 dw taps
  // (ky * 3 + kx), pw bias, C pw weight rows (input channel i: W[c][i]),
  // C permute indices (int32: the lane of input channel i in the same slot),
  // PRELU slopes. C >= 16: WideRows' layout (dw_pw_block.cc).
  float* packed_ = nullptr;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_DW_PW_BLOCK_H_
