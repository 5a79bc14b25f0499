// Our own AVX-512 kernel for an ADD of two float tensors of the same shape,
//   y = clamp(a + b)
// split across threads by rows. XNNPACK 2022 collapses such an ADD to one
// contiguous run and hands the pool one item, so it ran on one thread (the
// pose landmark models' [1,128,128,8] segmentation ADD: 0.04 ms on one
// thread, no faster on two). Same operations as XNNPACK's vadd (the sum,
// then max with the low and min with the high bound): the same bits.
#ifndef SLUICE_INFERENCE_XNNPACK_ELEMENTWISE_ADD_H_
#define SLUICE_INFERENCE_XNNPACK_ELEMENTWISE_ADD_H_

#include <cstddef>

namespace sluice::inference::xnn {

struct PlainAddShape {
  int rows = 0;  // a, b, y: rows x row_floats floats
  size_t row_floats = 0;
};

class PlainAdd {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const PlainAddShape& s);
  PlainAdd(const PlainAddShape& s, float lo, float hi) : s_(s), lo_(lo), hi_(hi) {}
  const PlainAddShape& shape() const { return s_; }
  // Rows [row_begin, row_end). `out` may be `a` or `b` (element by element).
  void Run(const float* a, const float* b, float* out, int row_begin, int row_end) const;

 private:
  PlainAddShape s_;
  float lo_, hi_;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_ELEMENTWISE_ADD_H_
