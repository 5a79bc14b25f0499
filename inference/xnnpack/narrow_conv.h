// Our own AVX-512 kernel for convolutions with one output channel and few
// input channels (the 3x3, 8 -> 1 segmentation head of the pose landmark
// models: 256x256 outputs). XNNPACK 2022 runs it as a GEMM whose 16-wide
// output tile holds one useful channel, at ~7 GFLOP/s (1.4 ms, 15 % of
// pose_landmark_lite). Here the input is transposed into zero-bordered
// channel planes, then 16 output pixels are one register: per tap and input
// channel one load and one FMA. Run streams it: per output row it stages the
// one input row that row newly needs into a ring of kernel_h plane rows per
// channel (26 KB for the 3x3 8-channel head), so the staged data stays in L1
// instead of a 2.3 MB whole-image round trip through L3. Same float
// operations in the same order as XNNPACK's (bias first, taps row by row,
// input channels inner, padding taps as 0 * w, then the clamp), so the same
// bits.
#ifndef SLUICE_INFERENCE_XNNPACK_NARROW_CONV_H_
#define SLUICE_INFERENCE_XNNPACK_NARROW_CONV_H_

#include <cstddef>
#include <vector>

#include "inference/xnnpack/huge_pages.h"

namespace sluice::inference::xnn {

struct NarrowConvShape {
  int in_h = 0, in_w = 0, channels = 0;  // input [1, in_h, in_w, channels]
  int out_h = 0, out_w = 0;              // output [1, out_h, out_w, 1]
  int kernel_h = 3, kernel_w = 3;
  int pad_top = 0, pad_left = 0;  // stride 1, no dilation
};

class NarrowConv {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const NarrowConvShape& s);
  // `weights`: [1, KH, KW, C] (TFLite OHWI); `bias`: 1 float or nullptr.
  // `whole_planes`: allocate the whole-image planes Stage/Compute need
  // (false when only Run is used).
  NarrowConv(const NarrowConvShape& s, const float* weights, const float* bias, float out_min,
             float out_max, bool whole_planes = true);
  const NarrowConvShape& shape() const { return s_; }
  // Stage: input rows [begin, end) into the planes. Compute: output rows
  // [begin, end) from the planes (after all of Stage). Not reentrant: one
  // scratch per kernel (one compiled model runs one Invoke at a time).
  void Stage(const float* in, int row_begin, int row_end) const;
  void Compute(float* out, int row_begin, int row_end) const;
  // Streamed (the backend's band runner, like stream_conv.h): output rows
  // [begin, end) straight from `in`, staging through `ring` (ScratchFloats()
  // floats, any contents; one per concurrent call). `residual` is unused.
  int rows() const { return s_.out_h; }
  static constexpr int kBandsPerThread = 2;  // halo of kernel_h - 1 rows per band
  size_t ScratchFloats() const;
  void Run(const float* in, const float* residual, float* out, int row_begin, int row_end,
           float* ring) const;

 private:
  NarrowConvShape s_;
  float min_, max_, bias_ = 0.0f;
  HugeFloats weights_;  // KH * KW * C, tap-major
  size_t plane_stride_ = 0;     // floats per plane row
  size_t plane_floats_ = 0;     // floats per plane
  // One input row into channel planes (`chan_stride` floats apart), at
  // column pad_left; `transpose`: in registers where the channel count has
  // one (8), else per-channel gathers.
  void StageRow(const float* row, float* dst, size_t chan_stride, bool transpose) const;
  // One output row from the kernel_h plane rows `rows[ky]`.
  void ComputeRow(const float* const* rows, size_t chan_stride, float* out) const;
  mutable HugeFloats planes_;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_NARROW_CONV_H_
