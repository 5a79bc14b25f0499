// Our own AVX-512 kernel for a PRELU whose output only a DEPTHWISE 1x1 reads
// (hand_recrop's blocks: PRELU, then per channel x * w + b):
//   y = clamp(PRELU(x) * w + b)
// one pass instead of two XNNPACK ops and the PRELU's tensor never written.
// Same operations as XNNPACK's: the PRELU by the sign bit (-0.0 included),
// then vmulcaddc's product rounded, the add, max with lo, min with hi (built
// with -ffp-contract=off): the same bits.
#ifndef SLUICE_INFERENCE_XNNPACK_PRELU_SCALE_H_
#define SLUICE_INFERENCE_XNNPACK_PRELU_SCALE_H_

#include <cstddef>
#include <vector>

namespace sluice::inference::xnn {

struct PreluScaleShape {
  int rows = 0;        // x, y: rows x row_pixels x channels floats
  int row_pixels = 0;
  int channels = 0;    // 8, or a multiple of 16
};

class PreluScale {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const PreluScaleShape& s);
  // slope, scale: `channels` floats; bias: the same or nullptr (zeros).
  PreluScale(const PreluScaleShape& s, const float* slope, const float* scale, const float* bias,
             float lo, float hi);
  const PreluScaleShape& shape() const { return s_; }
  // Rows [row_begin, row_end). `out` may be `in`.
  void Run(const float* in, float* out, int row_begin, int row_end) const;

 private:
  PreluScaleShape s_;
  // Per channel, repeated to a multiple of 16 floats (8 channels: twice).
  std::vector<float> slope_, scale_, bias_;
  float lo_, hi_;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_PRELU_SCALE_H_
