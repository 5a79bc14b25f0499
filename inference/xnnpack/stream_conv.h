// Two convolutions run as one, row by row, so that the tensor between them
// never goes to memory (the 1-3 MB early layers of the MobileNet-like models
// otherwise write it to L3/DRAM and read it back, the two threads sharing
// that bandwidth):
//  - ExpandDepthwise: CONV 1x1 (expand) -> DEPTHWISE (inverted residual
//    blocks). A band of output rows computes the expanded rows it needs into
//    a ring of K rows (in_w x channels floats each, stays in L2) and runs the
//    depthwise on pointers into the ring. Halo rows are recomputed per band.
//  - DepthwisePointwise: DEPTHWISE -> CONV 1x1 (+ the ADD / PRELU the 1x1
//    absorbs; BlazeBlocks, projection layers). A few depthwise output rows go
//    to a small buffer and the 1x1 runs on their pixels.
// Both call the per-op kernels (pointwise_conv.h, depthwise_conv.h) on the
// same pixels with the same float operations, so the results are the same
// bits as the two ops run one after the other.
#ifndef SLUICE_INFERENCE_XNNPACK_STREAM_CONV_H_
#define SLUICE_INFERENCE_XNNPACK_STREAM_CONV_H_

#include <cstddef>
#include <memory>

#include "inference/xnnpack/depthwise_conv.h"
#include "inference/xnnpack/pointwise_conv.h"

namespace sluice::inference::xnn {

class ExpandDepthwise {
 public:
  // `expand`: k = the input's channels, n = dw's channels; its input is an
  // image of dw's in_h x in_w pixels. Neither may absorb an ADD or PRELU.
  ExpandDepthwise(std::shared_ptr<const PointwiseConv> expand,
                  std::shared_ptr<const DepthwiseConv> dw);
  int rows() const { return dw_->shape().out_h; }
  // Threads split the output rows into bands; each band recomputes K - 1
  // (stride 1) halo rows, so one band per thread.
  static constexpr int kBandsPerThread = 1;
  // Floats of scratch one band needs (the ring of K expanded rows).
  size_t ScratchFloats() const;
  // Depthwise output rows [row_begin, row_end) from the 1x1's input `in`;
  // `residual` is unused (same signature as DepthwisePointwise).
  void Run(const float* in, const float* residual, float* out, int row_begin, int row_end,
           float* scratch) const;

 private:
  std::shared_ptr<const PointwiseConv> pw_;
  std::shared_ptr<const DepthwiseConv> dw_;
};

class DepthwisePointwise {
 public:
  // `project`: k = dw's channels; its residual (if SetResidualAdd was
  // called) has rows of `residual_channels` floats.
  DepthwisePointwise(std::shared_ptr<const DepthwiseConv> dw,
                     std::shared_ptr<const PointwiseConv> project, int residual_channels);
  int rows() const { return dw_->shape().out_h; }
  static constexpr int kBandsPerThread = 2;  // no halo: two for balance
  size_t ScratchFloats() const;  // RowsPerChunk() depthwise output rows
  // Output rows [row_begin, row_end) (the depthwise's output rows) from the
  // depthwise's input `in`.
  void Run(const float* in, const float* residual, float* out, int row_begin, int row_end,
           float* scratch) const;

 private:
  int RowsPerChunk() const;

  std::shared_ptr<const DepthwiseConv> dw_;
  std::shared_ptr<const PointwiseConv> pw_;
  int residual_channels_;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_STREAM_CONV_H_
