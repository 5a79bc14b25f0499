// Our own AVX-512 kernel for convolutions with few input channels (at most
// 4): the first layer of every MediaPipe model (3x3 or 5x5, stride 2, RGB
// in, 16-64 channels out), where XNNPACK 2022's GEMM runs at ~60 GFLOP/s
// (K = 27 is too short to hide its per-tile costs). Here the input is copied
// once into a zero-bordered buffer, then 4 output pixels x all output
// channels sit in registers while the K*K*C taps stream past: per tap one
// broadcast per pixel and one weight load per 16 channels. Same float
// operations in the same order as XNNPACK's IGEMM (bias first, taps row by
// row, input channels inner, padding taps as 0 * w, then the clamp), so the
// same bits.
//
// With 8, 16 or 24 output channels (wider measured no faster) a second
// variant puts 16 output pixels of one row in the lanes of a register and
// each output channel in its own accumulator: the input is staged as
// per-channel planes split by column stride phase, so a tap's 16 inputs are
// one load, followed by one FMA per output channel with the weight
// broadcast from memory (few channels no longer leave lanes idle or cost a
// broadcast per pixel); the accumulators are transposed back to NHWC in
// registers. Same operations per output, so the same bits.
// SLUICE_XNNPACK_STEM_LANES=0 keeps the first variant everywhere (for A/B).
//
// 3 -> 8 (hand_recrop's stem) and hand_recrop's 2x2 stride-2 8 -> 8 run a
// pair variant (pairs_): two adjacent output pixels' 8 channels in one zmm,
// a tap's two inputs one 64-bit broadcast from input rows staged per call
// as interleaved pairs, so the FMAs run 16 lanes wide instead of the ymm
// variant's 8. The stem computes two rows at a time and takes the MAX_POOL
// from the registers. SLUICE_XNNPACK_STEM_PAIRS=0: the ymm variant.
// The 3 -> 8 stem stages 9 entries (18 floats) a pair, runs a Compute call
// in strips of 32 pairs (all its rows, then the next strip: the staged rows
// stay in L1; SLUICE_XNNPACK_STEM_STRIP=N pairs, 0: whole rows) and can run
// the 2x2 8 -> 8 conv reading its second output from the registers
// (SetNext; SLUICE_XNNPACK_STEM_NEXT=0: not).
// The 16-channel direct variant (the selfie and face_landmark stems) runs
// its FMAs in inline asm with the input broadcast from memory (GCC shared
// the broadcasts of neighbouring pixels and spilled;
// SLUICE_XNNPACK_STEM_MEMFMA=0: intrinsics), skips an all-infinite clamp
// (SLUICE_XNNPACK_STEM_UNBOUNDED=0: not) and runs border rows and the last
// column in whole blocks reading zeros for the outside taps
// (SLUICE_XNNPACK_STEM_ZERO_TAPS=0: guarded pixels). Same bits.
#ifndef SLUICE_INFERENCE_XNNPACK_STEM_CONV_H_
#define SLUICE_INFERENCE_XNNPACK_STEM_CONV_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "inference/xnnpack/huge_pages.h"

namespace sluice::inference::xnn {

struct StemConvShape {
  int in_h = 0, in_w = 0, channels = 0;  // input [1, in_h, in_w, channels]
  int out_h = 0, out_w = 0, out_channels = 0;
  int kernel_h = 3, kernel_w = 3;
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0;
};

class StemConv {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const StemConvShape& s);
  // True when the 16-pixel-lane variant runs this shape (reads the switch).
  static bool UsesLanes(const StemConvShape& s);
  // True when the direct variant (direct_) runs it (reads the switches).
  static bool UsesDirect(const StemConvShape& s);
  // True when the pair variant (pairs_) runs it (reads the switches).
  static bool UsesPairs(const StemConvShape& s);
  // `weights`: [OC, KH, KW, C] (TFLite OHWI); `bias`: OC floats or nullptr.
  StemConv(const StemConvShape& s, const float* weights, const float* bias, float out_min,
           float out_max);
  const StemConvShape& shape() const { return s_; }
  bool lanes() const { return lanes_; }  // runs the 16-pixel-lane variant
  bool direct() const { return direct_; }  // runs the direct variant (direct_)
  bool pairs() const { return pairs_; }    // runs the pair variant (pairs_)
  // Stage: input rows [begin, end) into the zero-bordered buffer. Compute:
  // output rows [begin, end) (after all of Stage). Not reentrant: one
  // buffer per kernel (a compiled model runs one Invoke at a time).
  void Stage(const float* in, int row_begin, int row_end) const;
  void Compute(float* out, int row_begin, int row_end) const;
  // The activation op after the convolution, as its epilogue (the lanes
  // variant only: call when UsesLanes), with XNNPACK 2022's arithmetic:
  // HARD_SWISH, or PRELU with one slope per output channel.
  void SetHardSwish();
  void SetPrelu(const float* slope);
  // True when the kernel takes the DEPTHWISE tail below (the 8-channel
  // direct variant).
  static bool TakesTail(const StemConvShape& s);
  // Only where TakesTail: DEPTHWISE 1x1 ops after the activation, per
  // channel clamp(x * scale + bias, lo, hi) with XNNPACK 2022's arithmetic
  // (its vmulcaddc kernel: the product rounded, then the add). SetScale: one on the output. SetSecondOutput: PRELU(slope), then
  // one, of the output, written to `out2` too (out_h * out_w * out_channels
  // floats). hand_recrop's ops 0-4 in one pass over memory, not four.
  // `bias` may be nullptr (zeros).
  void SetScale(const float* scale, const float* bias, float lo, float hi);
  void SetSecondOutput(float* out2, const float* slope, const float* scale, const float* bias,
                       float lo, float hi);
  // Where TakesNext(shape(), next->shape()), after SetSecondOutput (its
  // out2 then nullptr): the conv that alone reads the second output
  // (hand_recrop's op 5: 2x2 stride 2, 8 -> 8, with its PRELU and
  // DEPTHWISE 1x1 set on `next`: SetPrelu, SetScale) runs inside Compute
  // from the second output's registers, into `out`; the second output is
  // never stored (hand_recrop: 512 KB written, then read back and staged
  // again by op 5). Compute ranges: whole row pairs. Not reentrant either.
  // SLUICE_XNNPACK_STEM_NEXT=0: TakesNext false.
  static bool TakesNext(const StemConvShape& s, const StemConvShape& next);
  void SetNext(std::shared_ptr<const StemConv> next, float* out);
  // Only where TakesTail: a MAX_POOL 2x2 stride 2 (VALID) of the output
  // (after SetScale), clamped to [lo, hi], written to `out3` (out_h / 2 *
  // out_w / 2 * out_channels floats) with XNNPACK 2022's max order. Compute
  // then writes pool row i with output row 2i + 1 when its range holds row
  // 2i too: call it with ranges of whole row pairs (compute_rows()).
  void SetMaxPool(float* out3, float lo, float hi);
  // Output rows a Compute call should cover (its ranges start at multiples).
  // (The 3x3 pair variant: 8, so a task stages 17 input rows for 8 output
  // rows, not 5 for 2: hand_recrop two threads 0.204 -> 0.194-0.201 ms min.)
  int compute_rows() const { return pairs_ && s_.kernel_h == 3 ? 8 : tail_.out3 ? 2 : 1; }
  // After SetMaxPool, where nothing reads the output but the tail and the
  // pool (the caller checked): the pair variant then stores no output rows
  // it computes in pairs (whole pool rows; an odd last row is still
  // written). The other variants read the output back for the pool: no-op.
  void SetOutputUnread() { tail_.out_unread = pairs_; }

 private:
  bool PairUnbounded() const;  // the pair stem may skip its clamps (all infinite)
  bool unbounded_ = true;  // SLUICE_XNNPACK_STEM_UNBOUNDED (not 0), read at construction
  bool K2Unbounded() const;  // PairUnbounded for the 2x2 pair stem
  bool k2_unbounded_ = true;  // SLUICE_XNNPACK_STEM_K2_UNBOUNDED (not 0), at construction
  // The 3x3 pair stem's strips: all rows of a call for this many pixel
  // pairs, then the next (rounded down to a multiple of 8; 0: whole rows).
  // SLUICE_XNNPACK_STEM_STRIP, read at construction.
  int strip_ = 32;
  // The 16-channel direct variant's unguarded FMAs in inline asm, each
  // broadcasting its input from memory (stem_conv.cc, Zmm16Mem).
  // SLUICE_XNNPACK_STEM_MEMFMA (not 0), read at construction.
  bool mem_fma_ = true;
  // With mem_fma_: border rows and the last column in whole blocks, their
  // outside taps read from zeros (stem_conv.cc, DirectTaps16Rows).
  // SLUICE_XNNPACK_STEM_ZERO_TAPS (not 0), read at construction.
  bool zero_taps_ = true;
  std::shared_ptr<const StemConv> next_;  // SetNext
  float* next_out_ = nullptr;
  StemConvShape s_;
  float min_, max_;
  bool lanes_ = false;          // the 16-pixel-lane variant
  // Stage's stride-2 RGB rows with compile-time shapes (stem_conv.cc);
  // SLUICE_XNNPACK_STEM_SPLIT=0 (read at construction) keeps the general loop.
  bool fixed_split_ = true;
  // 3x3, stride 2, 3 -> 16 or 8 channels (the selfie and hand_recrop stems):
  // no staging, Compute reads the input (recorded by Stage) in NHWC, one
  // register a pixel (zmm, or ymm with AVX-512VL for 8; stem_conv.cc,
  // DirectPixels16, DirectPixels8). Also hand_recrop's 2x2 stride-2 8 -> 8
  // conv (8 input channels: Supports takes it on this variant alone,
  // SLUICE_XNNPACK_STEM_C8; DirectRows8K2). SLUICE_XNNPACK_STEM_DIRECT=0: the
  // lanes variant as before. Same bits either way.
  bool direct_ = false;
  // The 3x3 stride-2 3 -> 8 stem on zmm: two adjacent output pixels a
  // register, the input staged per row so that a tap's two inputs are one
  // 64-bit broadcast (stem_conv.cc, PairRows8; SLUICE_XNNPACK_STEM_PAIRS=0:
  // DirectRows8). pair_w_: bias and per tap the weights, each twice.
  bool pairs_ = false;
  HugeFloats pair_w_;
  mutable const float* in_ = nullptr;
  int epilogue_ = 0;            // 0 none, 1 HARD_SWISH, 2 PRELU (slope_)
  std::vector<float> slope_;
  struct Tail {  // SetScale (scale empty: none), SetSecondOutput (out2 null: none)
    std::vector<float> scale, bias, slope2, scale2, bias2;
    float lo = 0, hi = 0, lo2 = 0, hi2 = 0;
    float* out2 = nullptr;
    float* out3 = nullptr;  // SetMaxPool (null: none)
    float lo3 = 0, hi3 = 0;
    bool out_unread = false;  // SetOutputUnread
  } tail_;
  int blocks_ = 0;              // 16-channel output blocks
  // blocks_*16 biases, then per tap and channel blocks_*16 weights (lanes_:
  // out_channels instead of blocks_*16).
  HugeFloats packed_;
  size_t padded_w_ = 0, padded_h_ = 0;
  // lanes_: floats per plane row (columns of one stride phase, room for a
  // full 16-pixel load past the last output).
  size_t plane_w_ = 0;
  // lanes_: the permutes that split 16 * stride input pixels by phase and
  // channel (Stage): per phase, channel and register pair 16 indices and a
  // mask of the lanes that pair supplies.
  std::vector<int> split_idx_;
  std::vector<unsigned short> split_mask_;
  // Zero-bordered input: NHWC, or (lanes_) planes [channel][phase][row][column].
  mutable HugeFloats padded_;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_STEM_CONV_H_
