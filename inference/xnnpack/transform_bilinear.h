// MediaPipe's TransformTensorBilinear (version 2, the face-mesh attention
// model's custom op) on AVX-512: each output pixel samples a [H, W, C] map
// at an affine image of its coordinates, vectorised over channels (C = 32:
// two registers a sample). The reference kernel (kernels_custom.cc) runs it
// one channel at a time.
//
// Same bits as the reference: the sample point sx = a*ox + b*oy + t (the
// pixel-centre shifted matrix, computed as there), zeros outside
// [0, W-1] x [0, H-1], neighbours past the last row / column read as zero,
// and per channel upper = (1-fx)*v00 + fx*v01, lower likewise,
// out = fy*lower + (1-fy)*upper, each product and sum rounded (no FMA; the
// file is built with -ffp-contract=off). One difference: a NaN sample point
// gives zeros here (the reference converts NaN to int, undefined).
#ifndef SLUICE_INFERENCE_XNNPACK_TRANSFORM_BILINEAR_H_
#define SLUICE_INFERENCE_XNNPACK_TRANSFORM_BILINEAR_H_

#include <vector>

namespace sluice::inference::xnn {

struct TransformBilinearShape {
  int in_h = 0, in_w = 0, out_h = 0, out_w = 0, channels = 0;  // batch 1, NHWC
};

class TransformBilinear {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const TransformBilinearShape& s);
  explicit TransformBilinear(const TransformBilinearShape& s);
  const TransformBilinearShape& shape() const { return s_; }
  // Output rows [row_begin, row_end); `matrix` is the op's row-major [1,4,4]
  // matrix mapping output (x, y) to input coordinates.
  void Run(const float* in, const float* matrix, float* out, int row_begin, int row_end) const;

 private:
  TransformBilinearShape s_;
  std::vector<float> zeros_;  // a pixel of zeros: neighbours outside the map
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_TRANSFORM_BILINEAR_H_
