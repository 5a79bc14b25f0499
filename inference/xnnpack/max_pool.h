// Our own AVX-512 kernel for MAX_POOL_2D 2x2 stride 2 without padding (the
// hand models' downsampling pools: hand_recrop's 64x64x16 one took 0.013 ms
// on XNNPACK 2022, its SSE 9p8x kernel). Per output pixel the four inputs
// go through that kernel's tree of maxes in its operand order (which of
// +-0 survives depends on it: window column by column, i4..i8 = i0), then
// the clamp: the same bits. Rows split across threads.
#ifndef SLUICE_INFERENCE_XNNPACK_MAX_POOL_H_
#define SLUICE_INFERENCE_XNNPACK_MAX_POOL_H_

namespace sluice::inference::xnn {

struct MaxPool2x2Shape {
  int in_h = 0, in_w = 0, channels = 0;  // input [1, in_h, in_w, channels]
  int out_h = 0, out_w = 0;              // in_h / 2, in_w / 2 (odd: the last row / column dropped)
};

class MaxPool2x2 {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const MaxPool2x2Shape& s);
  MaxPool2x2(const MaxPool2x2Shape& s, float lo, float hi) : s_(s), lo_(lo), hi_(hi) {}
  const MaxPool2x2Shape& shape() const { return s_; }
  // Output rows [row_begin, row_end).
  void Run(const float* in, float* out, int row_begin, int row_end) const;

 private:
  MaxPool2x2Shape s_;
  float lo_, hi_;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_MAX_POOL_H_
