#include "inference/xnnpack/narrow_conv.h"

#include <algorithm>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_NARROW_AVX512 1
#else
#define SLUICE_NARROW_AVX512 0
#endif

namespace sluice::inference::xnn {

constexpr int kMaxChannels = 16;
constexpr int kMaxKernel = 7;
constexpr int kLanes = 16;

bool NarrowConv::Supports(const NarrowConvShape& s) {
  return PointwiseConvAvailable() && s.channels >= 1 && s.channels <= kMaxChannels &&
         s.kernel_h >= 1 && s.kernel_h <= kMaxKernel && s.kernel_w >= 1 &&
         s.kernel_w <= kMaxKernel && s.pad_top >= 0 && s.pad_left >= 0 &&
         s.pad_top < s.kernel_h && s.pad_left < s.kernel_w && s.out_h > 0 && s.out_w > 0 &&
         s.out_h + s.kernel_h - 1 >= s.in_h + s.pad_top &&
         s.out_w + s.kernel_w - 1 >= s.in_w + s.pad_left;
}

NarrowConv::NarrowConv(const NarrowConvShape& s, const float* weights, const float* bias,
                       float out_min, float out_max)
    : s_(s), min_(out_min), max_(out_max), bias_(bias ? bias[0] : 0.0f) {
  weights_.assign(weights, weights + static_cast<size_t>(s.kernel_h) * s.kernel_w * s.channels);
  // A plane covers every position a tap reads: out + kernel - 1 in each
  // direction, plus a register's width so the last masked load stays inside.
  plane_stride_ = static_cast<size_t>(s.out_w + s.kernel_w - 1 + kLanes);
  plane_floats_ = plane_stride_ * (s.out_h + s.kernel_h - 1);
  planes_.assign(plane_floats_ * s.channels, 0.0f);  // borders stay zero
}

#if SLUICE_NARROW_AVX512
__attribute__((target("avx512f"))) void NarrowConv::Stage(const float* in, int row_begin,
                                                              int row_end) const {
  const int c = s_.channels;
  const __m512i index = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(c));
  for (int y = row_begin; y < row_end; ++y) {
    const float* row = in + static_cast<size_t>(y) * s_.in_w * c;
    for (int x = 0; x < s_.in_w; x += kLanes) {
      const int n = std::min(kLanes, s_.in_w - x);
      const __mmask16 m = static_cast<__mmask16>((1u << n) - 1);
      for (int ch = 0; ch < c; ++ch) {
        const __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, index,
                                                  row + static_cast<size_t>(x) * c + ch, 4);
        float* dst = planes_.data() + ch * plane_floats_ + (y + s_.pad_top) * plane_stride_ +
                     s_.pad_left + x;
        _mm512_mask_storeu_ps(dst, m, v);
      }
    }
  }
}

__attribute__((target("avx512f"))) void NarrowConv::Compute(float* out, int row_begin,
                                                            int row_end) const {
  const int c = s_.channels, kh = s_.kernel_h, kw = s_.kernel_w;
  const __m512 lo = _mm512_set1_ps(min_), hi = _mm512_set1_ps(max_);
  for (int y = row_begin; y < row_end; ++y) {
    for (int x = 0; x < s_.out_w; x += kLanes) {
      const int n = std::min(kLanes, s_.out_w - x);
      const __mmask16 m = static_cast<__mmask16>((1u << n) - 1);
      __m512 acc = _mm512_set1_ps(bias_);
      const float* w = weights_.data();
      for (int ky = 0; ky < kh; ++ky) {
        const float* base = planes_.data() + (y + ky) * plane_stride_ + x;
        for (int kx = 0; kx < kw; ++kx) {
          for (int ch = 0; ch < c; ++ch) {
            const __m512 v = _mm512_loadu_ps(base + ch * plane_floats_ + kx);
            acc = _mm512_fmadd_ps(v, _mm512_set1_ps(*w++), acc);
          }
        }
      }
      acc = _mm512_min_ps(_mm512_max_ps(acc, lo), hi);
      _mm512_mask_storeu_ps(out + static_cast<size_t>(y) * s_.out_w + x, m, acc);
    }
  }
}
#else
void NarrowConv::Stage(const float*, int, int) const {}
void NarrowConv::Compute(float*, int, int) const {}
#endif

}  // namespace sluice::inference::xnn
