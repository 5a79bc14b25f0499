// Our own AVX-512 kernel for 1x1, stride-1 convolutions: a GEMM
// [M, K] x [K, N] + bias, clamped, on 7x32 register tiles, with an optional
// epilogue that adds a residual tensor (the ADD after the convolution, clamped
// by its activation) and applies a per-channel PRELU, so that a
// CONV_2D 1x1 -> ADD -> PRELU chain is one pass over memory instead of three.
//
// Why: Debian's libxnnpack (2022) only has a 7x16 AVX-512 GEMM tile, bound by
// loads (8 loads per 7 FMAs) and by FMA latency (7 independent accumulators
// for 2 FMA ports x 4 cycles); a 7x32 tile does 14 FMAs per 9 loads with 14
// accumulators. The float operations and their order are XNNPACK's (bias as
// the initial sum, taps in input-channel order, clamp, then the ADD, then
// PRELU), so results are the same bits as the unfused XNNPACK nodes.
// Selected at run time on CPUs with AVX-512F; elsewhere the ops stay with
// XNNPACK (PointwiseConvAvailable() is false).
//
// N <= 8 output channels (pose_landmark's 24 -> 8 layers): a 32-channel
// block would leave 24 of 32 lanes idle, so a "narrow" tile puts two rows in
// each register (lane 2c + p: channel c of row p), 14 accumulators = 28 rows,
// from a copy of the tile's inputs with the two rows interleaved (one 64-bit
// broadcast per pair per input channel). Same float operations, same order.
// SLUICE_XNNPACK_PW_NARROW=0 (read at construction) keeps the 7x16 tile.
//
// 8 < N <= 16 with K = 16 or 24 (the selfie decoders' 16 -> 16 layers at
// 128x128, 92 GFLOP/s on Tile<1>): the block's weights stay in 16 registers
// for all rows, 12-row tiles, one broadcast per FMA (~150 GFLOP/s); the
// same float operations per output. SLUICE_XNNPACK_PW_REGS=0 keeps Tile<1>.
#ifndef SLUICE_INFERENCE_XNNPACK_POINTWISE_CONV_H_
#define SLUICE_INFERENCE_XNNPACK_POINTWISE_CONV_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "inference/xnnpack/huge_pages.h"

namespace sluice::inference::xnn {

// True when this CPU (and this build) has the AVX-512 kernel.
bool PointwiseConvAvailable();

class PointwiseConv {
 public:
  // `weights`: [N, K] row-major (TFLite's OHWI with H = W = 1); `bias`: N
  // floats or nullptr; the output is clamped to [out_min, out_max].
  PointwiseConv(int k, int n, const float* weights, const float* bias, float out_min,
                float out_max);
  // Epilogue: out = clamp(out + residual, add_min, add_max), residual of the
  // output's shape (passed to Run) except that it may have fewer channels
  // (`residual_channels`, rows of that many floats): the ADD of a residual
  // zero-padded on channels (BlazeFace blocks: PAD + ADD), without the PAD.
  void SetResidualAdd(float add_min, float add_max, int residual_channels = 0);
  // Epilogue, last: out = out < 0 ? out * slope[c] : out (N slopes).
  void SetPrelu(const float* slope);

  int k() const { return k_; }
  int n() const { return n_; }
  // Rows [row_begin, row_end) of out[m, :] (rows of K and N floats), output
  // channel blocks of 32 [block_begin, block_end) (default: all);
  // `residual` is read iff SetResidualAdd was called.
  void Run(const float* in, const float* residual, float* out, size_t row_begin, size_t row_end,
           size_t block_begin = 0, size_t block_end = SIZE_MAX) const;
  // Whether Run walks channel blocks outer, rows inner (weights larger than
  // L2 can hold next to the rows); threads then split by block first too.
  bool BlocksOuter() const;
  // Output channels per block and rows per tile (for splitting across threads).
  static constexpr int kBlockChannels = 32;
  static constexpr int kTileRows = 7;
  size_t blocks() const { return (static_cast<size_t>(n_) + kBlockChannels - 1) / kBlockChannels; }

 private:
  int k_, n_;
  float min_, max_;
  bool has_residual_ = false, has_prelu_ = false;
  float add_min_ = 0, add_max_ = 0;
  int residual_channels_ = 0;
  HugeFloats storage_;
  float* packed_ = nullptr;  // 64-byte aligned in storage_: per 32-channel block,
                             // 32 biases then K rows of 32 weights (zero-padded)
  HugeFloats slope_storage_;
  float* slope_ = nullptr;  // 64-byte aligned, padded to whole blocks
  // The narrow tile (N <= 8): 16 biases then K rows of 16 weights, lane
  // 2c + p = channel c (zero past N); slopes likewise as [8 | same 8].
  bool narrow_ = false;
  // 1, or 3 for 16 < N <= 24 (the selfie's 24-channel 1x1s, Tile<2> with a
  // quarter of its lanes idle; SLUICE_XNNPACK_PW_NARROW24=0 keeps that).
  int narrow_regs_ = 1;
  HugeFloats narrow_slope_storage_;
  float* narrow_slope_ = nullptr;  // [8 | same 8] slopes per register
  // N <= 16, K = 16 or 24: RegTiles (pointwise_conv.cc), weights in registers.
  // SLUICE_XNNPACK_PW_REGS=0 (read at construction) keeps Tile<1>.
  bool regs_ = false;
  // N > 32 whose last block has <= 16 channels, K = 16 or 24: that block on
  // RegTiles. SLUICE_XNNPACK_PW_REGS_TAIL=0 (read at construction) keeps Tile<1>.
  bool regs_tail_ = false;
  // K = 8, 16 < N <= 32, no residual / PRELU: RegTilesK8 (SLUICE_XNNPACK_PW_K8).
  bool k8_ = false;
  // Run's rows as tiles of 7 or 8 rows that cover them exactly where they
  // can (pointwise_conv.cc, TileRows): the last <= 64 rows of a range (64
  // rows in 8 tiles, not 10 with one holding a single row), every row for
  // N <= 16 (8 accumulators hide the FMA latency). Same operations per row:
  // same bits.
  // SLUICE_XNNPACK_PW_TILE8=0 (read at construction) keeps 7-row tiles.
  bool tile_plan_ = false;
  HugeFloats narrow_storage_;
  float* narrow_packed_ = nullptr;
  void RunNarrow(const float* in, const float* residual, float* out, size_t row_begin,
                 size_t row_end) const;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_POINTWISE_CONV_H_
