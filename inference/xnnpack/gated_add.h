// Our own AVX-512 kernel for the gated residual
//   y = ADD(MUL(a, gate), b),  a, b, y: [.., H, W, C], gate: C floats
// (a squeeze-excite gate broadcast over the pixels): one pass instead of two.
// XNNPACK 2022 runs the broadcast MUL and the ADD one by one, so the product
// goes to memory and comes back (the selfie segmentation decoders,
// 128x128x16: 0.14 + 0.10 ms). Same float operations in the same order as the
// two nodes: a * gate rounded, clamped by the MUL's activation, + b,
// clamped by the ADD's; no FMA contraction (the file is built with
// -ffp-contract=off), so the same bits.
#ifndef SLUICE_INFERENCE_XNNPACK_GATED_ADD_H_
#define SLUICE_INFERENCE_XNNPACK_GATED_ADD_H_

#include <cstddef>

namespace sluice::inference::xnn {

struct GatedAddShape {
  int rows = 0, w = 0, channels = 0;  // a, b, y: rows x w pixels of C floats
};

class GatedAdd {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const GatedAddShape& s);
  GatedAdd(const GatedAddShape& s, float mul_min, float mul_max, float add_min, float add_max);
  const GatedAddShape& shape() const { return s_; }
  // Rows [row_begin, row_end). `out` may be `a` or `b` (element by element).
  void Run(const float* a, const float* gate, const float* b, float* out, int row_begin,
           int row_end) const;
  // `pixels` pixels from the pointers on (a 1x1 conv's input rows, staged in
  // a buffer of at most kStageFloats: see xnnpack_backend.cc). `b` null: the
  // MUL alone, clamp(a * gate) by the MUL's activation (a MUL whose product
  // only a 1x1 conv reads).
  void RunPixels(const float* a, const float* gate, const float* b, float* out,
                 size_t pixels) const;
  static constexpr size_t kStageFloats = 16384;  // 64 KiB on the stack
  static constexpr int kMaxStagedChannels = 512;

 private:
  GatedAddShape s_;
  float clamp_[4];  // mul min, max; add min, max
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_GATED_ADD_H_
