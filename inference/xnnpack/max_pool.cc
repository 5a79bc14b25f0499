#include "inference/xnnpack/max_pool.h"

#include <cstddef>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_MAXPOOL_AVX512 1
#else
#define SLUICE_MAXPOOL_AVX512 0
#endif

namespace sluice::inference::xnn {

bool MaxPool2x2::Supports(const MaxPool2x2Shape& s) {
  return PointwiseConvAvailable() && s.channels > 0 && s.out_h > 0 && s.out_w > 0 &&
         s.out_h == s.in_h / 2 && s.out_w == s.in_w / 2;
}

#if SLUICE_MAXPOOL_AVX512
namespace {
// The 9p8x kernel's maxes for one 2x2 window (i0 = (2i, 2j), i1 = (2i + 1,
// 2j), i2 = (2i, 2j + 1), i3 = (2i + 1, 2j + 1)), as stem_conv.cc PoolRow8.
__attribute__((target("avx512f"), always_inline)) inline __m512 Window(__m512 i0, __m512 i1,
                                                                        __m512 i2, __m512 i3,
                                                                        __m512 lo, __m512 hi) {
  const __m512 m018 = _mm512_max_ps(_mm512_max_ps(i0, i1), i0);
  const __m512 m23 = _mm512_max_ps(i2, i3);
  const __m512 m2345 = _mm512_max_ps(m23, _mm512_max_ps(i0, i0));
  const __m512 m01678 = _mm512_max_ps(m018, _mm512_max_ps(i0, i0));
  const __m512 m = _mm512_max_ps(m2345, m01678);
  return _mm512_max_ps(_mm512_min_ps(m, hi), lo);
}

__attribute__((target("avx512f"))) void Rows(const MaxPool2x2Shape& s, const float* in, float* out,
                                             float lo_f, float hi_f, int row_begin, int row_end) {
  const int c = s.channels;
  const __m512 lo = _mm512_set1_ps(lo_f), hi = _mm512_set1_ps(hi_f);
  const size_t in_row = static_cast<size_t>(s.in_w) * c;
  for (int i = row_begin; i < row_end; ++i) {
    const float* r0 = in + static_cast<size_t>(2 * i) * in_row;
    const float* r1 = r0 + in_row;
    float* o = out + static_cast<size_t>(i) * s.out_w * c;
    for (int j = 0; j < s.out_w; ++j, r0 += 2 * c, r1 += 2 * c, o += c) {
      int k = 0;
      for (; k + 16 <= c; k += 16) {
        _mm512_storeu_ps(o + k, Window(_mm512_loadu_ps(r0 + k), _mm512_loadu_ps(r1 + k),
                                       _mm512_loadu_ps(r0 + c + k), _mm512_loadu_ps(r1 + c + k),
                                       lo, hi));
      }
      if (k < c) {
        const __mmask16 m = static_cast<__mmask16>((1u << (c - k)) - 1);
        _mm512_mask_storeu_ps(
            o + k, m,
            Window(_mm512_maskz_loadu_ps(m, r0 + k), _mm512_maskz_loadu_ps(m, r1 + k),
                   _mm512_maskz_loadu_ps(m, r0 + c + k), _mm512_maskz_loadu_ps(m, r1 + c + k),
                   lo, hi));
      }
    }
  }
}
}  // namespace
#endif

void MaxPool2x2::Run(const float* in, float* out, int row_begin, int row_end) const {
#if SLUICE_MAXPOOL_AVX512
  Rows(s_, in, out, lo_, hi_, row_begin, row_end);
#else
  (void)in, (void)out, (void)row_begin, (void)row_end;
#endif
}

}  // namespace sluice::inference::xnn
