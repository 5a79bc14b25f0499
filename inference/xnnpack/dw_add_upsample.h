// The selfie segmentation decoders' last stage as one row kernel: DEPTHWISE
// 3x3 -> ADD(x, .) -> Convolution2DTransposeBias 2x2 stride 2 to one channel
// (128x128x16 -> 256x256x1; 72x128 on the landscape model). Separately the
// depthwise wrote its 1 MB sum, which only the upsample read back; here each
// input row's depthwise + ADD goes to a small buffer still in L1, and the
// upsample's two output rows are computed from it at once. The depthwise
// reads its input's halo rows itself (DepthwiseConv::RunRow). The same float
// operations per output as the two kernels (depthwise_conv.h, then the ADD
// rounded and clamped as its epilogue, then upsample_conv.h): the same bits.
#ifndef SLUICE_INFERENCE_XNNPACK_DW_ADD_UPSAMPLE_H_
#define SLUICE_INFERENCE_XNNPACK_DW_ADD_UPSAMPLE_H_

#include <memory>
#include <vector>

#include "inference/xnnpack/depthwise_conv.h"
#include "inference/xnnpack/upsample_conv.h"

struct xnn_operator;  // (xnnpack.h's, kept out of this header)

namespace sluice::inference::xnn {

class DepthwiseAddUpsample {
 public:
  // The most floats of one depthwise output row (its L1 buffer, on the stack).
  static constexpr int kMaxRowFloats = 4096;
  // True when `dw` (stride 1, multiplier 1) feeds `up` row for row and a row fits.
  static bool Supports(const DepthwiseShape& dw, const UpsampleConvShape& up);
  // `residual`: the ADD's other input (dw.out_h * out_w * channels floats),
  // the sum clamped to [add_min, add_max] (here: dw's own epilogue is unused).
  DepthwiseAddUpsample(std::shared_ptr<const DepthwiseConv> dw,
                       std::shared_ptr<const UpsampleConv> up, const float* residual,
                       float add_min, float add_max);
  ~DepthwiseAddUpsample();
  DepthwiseAddUpsample(const DepthwiseAddUpsample&) = delete;
  DepthwiseAddUpsample& operator=(const DepthwiseAddUpsample&) = delete;
  // The LOGISTIC after the upsample: XNNPACK's own f32 sigmoid operator (so
  // its bits, not a reimplementation) on each band's output rows, in place
  // while they are in L1: a step, its dispatch and a 256 KB pass fewer. One
  // operator per band (a setup writes into it). False if XNNPACK fails.
  bool SetSigmoid();
  // Input rows a band takes with the sigmoid (8 output rows of 256: 8 KB).
  static constexpr int kSigmoidBandRows = 4;
  // What Run's [begin, end) count: input rows, or with the sigmoid, bands.
  int units() const;
  // Depthwise rows [row_begin, row_end) of `in`, i.e. output rows
  // [2 * row_begin, 2 * row_end) of `out` (2 * out_h x 2 * out_w x 1); with
  // the sigmoid, bands [begin, end) of kSigmoidBandRows rows.
  void Run(const float* in, float* out, int begin, int end) const;
  // Depthwise row `y` alone from its input rows given one by one (rows[ky]:
  // DepthwiseConv::RunRow's), the ADD's other input row `residual_row` (the
  // constructor's `residual` unread): output rows 2y, 2y + 1 of `out`. For a
  // caller that computes the input rows as it goes (no sigmoid).
  void RunRow(const float* const* rows, const float* residual_row, float* out, int y) const;
  const DepthwiseShape& depthwise_shape() const { return dw_->shape(); }

 private:
  std::shared_ptr<const DepthwiseConv> dw_;
  std::shared_ptr<const UpsampleConv> up_;
  const float* residual_;
  float add_min_, add_max_;
  std::vector<xnn_operator*> sigmoid_;  // one per band; empty: no sigmoid
  void RunRows(const float* in, float* out, int row_begin, int row_end) const;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_DW_ADD_UPSAMPLE_H_
