#include "inference/xnnpack/elementwise_add.h"

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_PLAINADD_AVX512 1
#else
#define SLUICE_PLAINADD_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

#if SLUICE_PLAINADD_AVX512
__attribute__((target("avx512f"))) void AddRange(const float* a, const float* b, float* y, size_t n,
                                                 float lo, float hi) {
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 v0 = _mm512_add_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    __m512 v1 = _mm512_add_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16));
    v0 = _mm512_min_ps(_mm512_max_ps(v0, vlo), vhi);
    v1 = _mm512_min_ps(_mm512_max_ps(v1, vlo), vhi);
    _mm512_storeu_ps(y + i, v0);
    _mm512_storeu_ps(y + i + 16, v1);
  }
  for (; i < n; i += 16) {
    const size_t left = n - i;
    const __mmask16 m =
        left >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << left) - 1);
    __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i));
    v = _mm512_min_ps(_mm512_max_ps(v, vlo), vhi);
    _mm512_mask_storeu_ps(y + i, m, v);
  }
}
#endif

}  // namespace

bool PlainAdd::Supports(const PlainAddShape& s) {
  return PointwiseConvAvailable() && s.rows > 0 && s.row_floats > 0;
}

void PlainAdd::Run(const float* a, const float* b, float* out, int row_begin, int row_end) const {
#if SLUICE_PLAINADD_AVX512
  const size_t off = static_cast<size_t>(row_begin) * s_.row_floats;
  AddRange(a + off, b + off, out + off, static_cast<size_t>(row_end - row_begin) * s_.row_floats,
           lo_, hi_);
#else
  (void)a, (void)b, (void)out, (void)row_begin, (void)row_end;
#endif
}

}  // namespace sluice::inference::xnn
