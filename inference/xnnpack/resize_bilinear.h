// RESIZE_BILINEAR computed on the fly, pixel by pixel, as the input of a 1x1
// convolution (xnnpack_backend.cc stages a few rows of it in L1 for the
// GEMM), so the upsampled tensor never goes to memory: the selfie
// segmentation decoders upsample x2 to 64x64 and 128x128 (16-24 channels)
// and convolve right after, 0.11 ms + 0.10 ms at 128x128 run one by one.
//
// Same bits as XNNPACK 2022's resize: the same source pixels and weights
// (its indirection set-up: scale = in / out, or (in - 1) / (out - 1) with
// align_corners; half-pixel centres offset and clamp the source
// coordinate; TensorFlow's legacy mode does not), and its f32-ibilinear
// kernel's operations in order: top = tl + (tr - tl) * ax, bottom likewise,
// out = top + (bottom - top) * ay, each product and sum rounded (no FMA; the
// file is built with -ffp-contract=off).
#ifndef SLUICE_INFERENCE_XNNPACK_RESIZE_BILINEAR_H_
#define SLUICE_INFERENCE_XNNPACK_RESIZE_BILINEAR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::inference::xnn {

struct ResizeShape {
  int in_h = 0, in_w = 0, out_h = 0, out_w = 0, channels = 0;  // batch 1, NHWC
  bool align_corners = false, half_pixel_centers = false;      // TFLite's options
};

class ResizeBilinear {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const ResizeShape& s);
  explicit ResizeBilinear(const ResizeShape& s);
  const ResizeShape& shape() const { return s_; }
  // Output pixels [first, first + pixels) (row-major over out_h x out_w),
  // written to `out` packed (pixels x channels floats).
  void Fill(const float* in, size_t first, size_t pixels, float* out) const;
  // Where a Fill from `first` of about `step` pixels (at most `most`) best
  // ends: at a row whose source rows differ from the row before's, so that
  // Fill computes rows sharing their source rows together; first + step if
  // none (or SLUICE_XNNPACK_RESIZE_ROWS=0).
  size_t ChunkEnd(size_t first, size_t step, size_t most) const;

 private:
  ResizeShape s_;
  // Per output row / column: the two source rows / columns and the weight.
  std::vector<int32_t> y0_, y1_, x0_, x1_;
  std::vector<float> ay_, ax_;
  // 8 channels: two pixels a register (resize_bilinear.cc);
  // SLUICE_XNNPACK_RESIZE_PAIRS=0 (read at construction) keeps one.
  bool pairs_ = true;
  // Two rows with the same source rows: their columns' horizontal lerps
  // once (x2 upsampling); SLUICE_XNNPACK_RESIZE_ROWS=0 keeps one row at a time.
  bool rows_ = true;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_RESIZE_BILINEAR_H_
