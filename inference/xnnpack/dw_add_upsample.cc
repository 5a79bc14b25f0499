#include "inference/xnnpack/dw_add_upsample.h"

#include <algorithm>
#include <cstddef>
#include <utility>

#include <xnnpack.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_DW_UPSAMPLE_AVX512 1
#else
#define SLUICE_DW_UPSAMPLE_AVX512 0
#endif

namespace sluice::inference::xnn {

bool DepthwiseAddUpsample::Supports(const DepthwiseShape& dw, const UpsampleConvShape& up) {
  return SLUICE_DW_UPSAMPLE_AVX512 && DepthwiseConv::Supports(dw) && UpsampleConv::Supports(up) &&
         dw.stride_h == 1 && dw.stride_w == 1 && dw.out_h == up.in_h && dw.out_w == up.in_w &&
         dw.channels == up.channels &&
         static_cast<size_t>(dw.out_w) * dw.channels <= static_cast<size_t>(kMaxRowFloats);
}

DepthwiseAddUpsample::DepthwiseAddUpsample(std::shared_ptr<const DepthwiseConv> dw,
                                           std::shared_ptr<const UpsampleConv> up,
                                           const float* residual, float add_min, float add_max)
    : dw_(std::move(dw)),
      up_(std::move(up)),
      residual_(residual),
      add_min_(add_min),
      add_max_(add_max) {}

DepthwiseAddUpsample::~DepthwiseAddUpsample() {
  for (xnn_operator* op : sigmoid_) xnn_delete_operator(op);
}

bool DepthwiseAddUpsample::SetSigmoid() {
  const int bands = (dw_->shape().out_h + kSigmoidBandRows - 1) / kSigmoidBandRows;
  for (int b = 0; b < bands; ++b) {
    xnn_operator_t op = nullptr;
    if (xnn_create_sigmoid_nc_f32(1, 1, 1, 0, &op) != xnn_status_success) return false;
    sigmoid_.push_back(op);
  }
  return true;
}

int DepthwiseAddUpsample::units() const {
  return sigmoid_.empty() ? dw_->shape().out_h : static_cast<int>(sigmoid_.size());
}

void DepthwiseAddUpsample::Run(const float* in, float* out, int begin, int end) const {
  if (sigmoid_.empty()) {
    RunRows(in, out, begin, end);
    return;
  }
  const int h = dw_->shape().out_h;
  const size_t out_w = 2 * static_cast<size_t>(dw_->shape().out_w);
  for (int b = begin; b < end; ++b) {
    const int r0 = b * kSigmoidBandRows, r1 = std::min(h, r0 + kSigmoidBandRows);
    RunRows(in, out, r0, r1);
    float* rows = out + 2 * static_cast<size_t>(r0) * out_w;
    // (Its arguments were checked by SetSigmoid and the matcher: no failure.)
    xnn_setup_sigmoid_nc_f32(sigmoid_[b], 2 * static_cast<size_t>(r1 - r0) * out_w, rows, rows,
                             nullptr);
    xnn_run_operator(sigmoid_[b], nullptr);
  }
}

void DepthwiseAddUpsample::RunRow(const float* const* rows, const float* residual_row, float* out,
                                  int y) const {
#if SLUICE_DW_UPSAMPLE_AVX512
  const DepthwiseShape& s = dw_->shape();
  alignas(64) float buf[kMaxRowFloats];
  dw_->RunRow(rows, y, buf);
  ClampAddRow(residual_row, add_min_, add_max_, static_cast<size_t>(s.out_w) * s.channels, buf);
  up_->RunRow(buf, out, y);
#else
  (void)rows, (void)residual_row, (void)out, (void)y;
#endif
}

void DepthwiseAddUpsample::RunRows(const float* in, float* out, int row_begin,
                                   int row_end) const {
#if SLUICE_DW_UPSAMPLE_AVX512
  const DepthwiseShape& s = dw_->shape();
  const size_t out_row = static_cast<size_t>(s.out_w) * s.channels;
  const float* rows[5];
  for (int y = row_begin; y < row_end; ++y) {
    dw_->InputRows(in, y, rows);
    RunRow(rows, residual_ + static_cast<size_t>(y) * out_row, out, y);
  }
#else
  (void)in, (void)out, (void)row_begin, (void)row_end;
#endif
}

}  // namespace sluice::inference::xnn
