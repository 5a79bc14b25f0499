#include "inference/xnnpack/stream_conv.h"

#include <algorithm>
#include <utility>

namespace sluice::inference::xnn {

ExpandDepthwise::ExpandDepthwise(std::shared_ptr<const PointwiseConv> expand,
                                 std::shared_ptr<const DepthwiseConv> dw)
    : pw_(std::move(expand)), dw_(std::move(dw)) {}

size_t ExpandDepthwise::ScratchFloats() const {
  const DepthwiseShape& s = dw_->shape();
  return static_cast<size_t>(s.kernel) * s.in_w * s.channels;
}

void ExpandDepthwise::Run(const float* in, const float*, float* out, int row_begin, int row_end,
                          float* scratch) const {
  const DepthwiseShape& s = dw_->shape();
  const size_t in_row = static_cast<size_t>(s.in_w) * pw_->k();
  const size_t ring_row = static_cast<size_t>(s.in_w) * s.channels;
  const size_t out_row = static_cast<size_t>(s.out_w) * s.channels;
  const int k = s.kernel;
  // Expanded input row iy lives in ring slot iy % K: the K rows an output
  // row reads are consecutive, so they never share a slot, and the window
  // only moves down (by the stride, < K), so a slot is overwritten only once
  // its row is behind the window.
  int next = -1;  // the first expanded row not computed yet (none yet)
  const float* rows[5];
  for (int y = row_begin; y < row_end; ++y) {
    const int iy0 = y * s.stride_h - s.pad_top;
    const int lo = std::max(iy0, 0), hi = std::min(iy0 + k, s.in_h);
    if (next < lo) next = lo;
    for (; next < hi; ++next) {
      pw_->Run(in + static_cast<size_t>(next) * in_row, nullptr, scratch + (next % k) * ring_row, 0,
               static_cast<size_t>(s.in_w));
    }
    for (int ky = 0; ky < k; ++ky) {
      // Rows outside the image are not read; any valid pointer will do.
      const int iy = hi > lo ? std::min(std::max(iy0 + ky, lo), hi - 1) : 0;
      rows[ky] = scratch + (iy % k) * ring_row;
    }
    dw_->RunRow(rows, y, out + static_cast<size_t>(y) * out_row);
  }
}

DepthwisePointwise::DepthwisePointwise(std::shared_ptr<const DepthwiseConv> dw,
                                       std::shared_ptr<const PointwiseConv> project,
                                       int residual_channels)
    : dw_(std::move(dw)), pw_(std::move(project)), residual_channels_(residual_channels) {}

// Depthwise output rows per 1x1 call: the 1x1 works on 7-pixel tiles, so
// one call per narrow row (24 pixels: 28 computed) would waste a part tile
// each time; a few rows at once keep that waste small.
int DepthwisePointwise::RowsPerChunk() const {
  constexpr int kPixels = 112;
  const DepthwiseShape& s = dw_->shape();
  return std::max(1, std::min(s.out_h, (kPixels + s.out_w - 1) / s.out_w));
}

size_t DepthwisePointwise::ScratchFloats() const {
  const DepthwiseShape& s = dw_->shape();
  return static_cast<size_t>(RowsPerChunk()) * s.out_w * s.channels;
}

void DepthwisePointwise::Run(const float* in, const float* residual, float* out, int row_begin,
                             int row_end, float* scratch) const {
  const DepthwiseShape& s = dw_->shape();
  const size_t in_row = static_cast<size_t>(s.in_w) * s.channels;
  const size_t w = static_cast<size_t>(s.out_w);
  const int chunk = RowsPerChunk();
  const float* rows[5];
  for (int y0 = row_begin; y0 < row_end; y0 += chunk) {
    const int y1 = std::min(row_end, y0 + chunk);
    for (int y = y0; y < y1; ++y) {
      const int iy0 = y * s.stride_h - s.pad_top;
      for (int ky = 0; ky < s.kernel; ++ky) {
        const int iy = std::min(std::max(iy0 + ky, 0), s.in_h - 1);  // clamped; unused if out
        rows[ky] = in + static_cast<size_t>(iy) * in_row;
      }
      dw_->RunRow(rows, y, scratch + static_cast<size_t>(y - y0) * w * s.channels);
    }
    const size_t px = static_cast<size_t>(y0) * w;
    pw_->Run(scratch, residual ? residual + px * residual_channels_ : nullptr,
             out + px * pw_->n(), 0, static_cast<size_t>(y1 - y0) * w);
  }
}

}  // namespace sluice::inference::xnn
