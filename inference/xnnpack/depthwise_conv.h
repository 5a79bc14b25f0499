// Our own AVX-512 kernel for 3x3 and 5x5 depthwise convolutions (multiplier
// 1, any stride, explicit padding), for the xnnpack backend. XNNPACK 2022's
// depthwise kernels load every tap's input through an indirection buffer and
// every tap's weights from memory for each output pixel, one pixel's FMA
// chain at a time; this one walks an output row 8 pixels at a time with one
// accumulator each, loading a tap's 16 weights once for the 8, so the FMA
// chains overlap (14x14x384 5x5: 0.123 -> 0.081 ms). Same float operations
// in the same order as XNNPACK's (bias first, taps column by column, then
// clamp), so the same sums (taps in the padding are skipped where XNNPACK
// adds 0 * w). Faster paths with the same sums (SLUICE_XNNPACK_DW16=0: not):
// rows of exactly 16 channels with constant offsets and plain loads; edge
// pixels of several whole channel groups side by side (one FMA chain each,
// not one chain at a time); whole-group interior blocks with plain loads.
#ifndef SLUICE_INFERENCE_XNNPACK_DEPTHWISE_CONV_H_
#define SLUICE_INFERENCE_XNNPACK_DEPTHWISE_CONV_H_

#include <cstddef>
#include <vector>

#include "inference/xnnpack/huge_pages.h"

namespace sluice::inference::xnn {

struct DepthwiseShape {
  int in_h = 0, in_w = 0, channels = 0;
  int out_h = 0, out_w = 0;
  int kernel = 3;  // 3 or 5 (square)
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0;
};

// out[i] = clamp(out[i] + r[i], lo, hi) for n floats: the ADD epilogue
// (XNNPACK's separate ADD: the sum rounded, then clamped), for one row.
void ClampAddRow(const float* r, float lo, float hi, size_t n, float* out);

class DepthwiseConv {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const DepthwiseShape& s);
  // `weights`: [1, K, K, C] (TFLite); `bias`: C floats or nullptr.
  DepthwiseConv(const DepthwiseShape& s, const float* weights, const float* bias, float out_min,
                float out_max);
  const DepthwiseShape& shape() const { return s_; }
  // Output rows [row_begin, row_end) of one image (batch 1).
  void Run(const float* in, float* out, int row_begin, int row_end) const;
  // Epilogue: out = clamp(out + residual, add_min, add_max), the ADD after
  // the depthwise (a residual of the output's shape), so that DEPTHWISE ->
  // ADD(x, .) is one pass over memory: each output row gets the ADD while
  // still in L1. Same operations as XNNPACK's separate ADD (the depthwise
  // result clamped, rounded, then added), so the same bits.
  void SetResidualAdd(float add_min, float add_max);
  // Run with the epilogue (`residual`: out_h * out_w * channels floats).
  void Run(const float* in, const float* residual, float* out, int row_begin, int row_end) const;
  // Output row `y` from input rows given one by one: rows[ky] is input row
  // y * stride_h - pad_top + ky (K pointers; those outside the image are not
  // read but must be non-null), each in_w * channels floats.
  void RunRow(const float* const* rows, int y, float* out_row) const;
  // RunRow's rows for output row `y` of the image `in` (K pointers; rows
  // outside the image clamped to its edge, not read).
  void InputRows(const float* in, int y, const float** rows) const;
  // RunRow with the ADD epilogue (SetResidualAdd): `residual_row`, the
  // residual's row y.
  void RunRowAdd(const float* const* rows, const float* residual_row, int y, float* out_row) const;

 private:
  DepthwiseShape s_;
  float min_, max_;
  bool has_residual_ = false;
  float add_min_ = 0, add_max_ = 0;
  HugeFloats storage_;
  float* packed_ = nullptr;  // per 16-channel group: 16 biases, then K*K x 16 weights
  // channels = 8 mod 16 (8, 24, 40), stride_w 1: the row's interior is one
  // flat array of channels-periodic floats, two pixels = phases_ full
  // registers (no half-empty 8-channel group). Per tap (bias first) and
  // phase j: 16 floats for channels (16 j + lane) mod C. Empty: not used.
  HugeFloats flat_;
  int phases_ = 0;
  // 16 channels at stride 1 or 2: Interior16's constant-offset rows; and a
  // last interior block of 4 pixels before single ones (depthwise_conv.cc).
  // SLUICE_XNNPACK_DW16=0 (read at construction) keeps the general path.
  bool fast_ = true;
  // Rows whose taps reach above or below the image (the top and bottom K / 2
  // rows: 4 of 16 at 16x16 5x5, all their pixels edge pixels before): their
  // interior columns in blocks of 8 whole-group pixels with those taps
  // skipped, the edge pixels' order (SLUICE_XNNPACK_DW_KY_BLOCKS=0: not).
  bool ky_blocks_ = true;
  // Whole-group interior blocks two groups at a time (depthwise_conv.cc
  // PixelsPair, PairBlock); SLUICE_XNNPACK_DW_PAIRS=0 (read at construction): one.
  bool pairs_ = true;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_DEPTHWISE_CONV_H_
