#include "inference/xnnpack/prelu_scale.h"

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_PRELUSCALE_AVX512 1
#else
#define SLUICE_PRELUSCALE_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

#if SLUICE_PRELUSCALE_AVX512
// n floats from a pixel boundary; the parameters repeat every `period`
// floats (a multiple of 16).
__attribute__((target("avx512f"))) void PreluScaleRange(const float* x, float* y, size_t n,
                                                        const float* slope, const float* scale,
                                                        const float* bias, size_t period,
                                                        float lo, float hi) {
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  size_t i = 0, k = 0;
  for (; i < n; i += 16) {
    const size_t left = n - i;
    const __mmask16 m =
        left >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << left) - 1);
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    const __mmask16 neg = _mm512_test_epi32_mask(_mm512_castps_si512(v), sign);
    v = _mm512_mask_mul_ps(v, neg, v, _mm512_loadu_ps(slope + k));
    v = _mm512_add_ps(_mm512_mul_ps(v, _mm512_loadu_ps(scale + k)), _mm512_loadu_ps(bias + k));
    v = _mm512_min_ps(_mm512_max_ps(v, vlo), vhi);
    _mm512_mask_storeu_ps(y + i, m, v);
    k += 16;
    if (k == period) k = 0;
  }
}
#endif

std::vector<float> Repeat(const float* p, int channels, size_t period) {
  std::vector<float> r(period);
  for (size_t i = 0; i < period; ++i) r[i] = p ? p[i % channels] : 0.0f;
  return r;
}

}  // namespace

bool PreluScale::Supports(const PreluScaleShape& s) {
  return PointwiseConvAvailable() && s.rows > 0 && s.row_pixels > 0 &&
         (s.channels == 8 || (s.channels > 0 && s.channels % 16 == 0));
}

PreluScale::PreluScale(const PreluScaleShape& s, const float* slope, const float* scale,
                       const float* bias, float lo, float hi)
    : s_(s), lo_(lo), hi_(hi) {
  const size_t period = s.channels == 8 ? 16 : static_cast<size_t>(s.channels);
  slope_ = Repeat(slope, s.channels, period);
  scale_ = Repeat(scale, s.channels, period);
  bias_ = Repeat(bias, s.channels, period);
}

void PreluScale::Run(const float* in, float* out, int row_begin, int row_end) const {
#if SLUICE_PRELUSCALE_AVX512
  const size_t row_floats = static_cast<size_t>(s_.row_pixels) * s_.channels;
  const size_t off = static_cast<size_t>(row_begin) * row_floats;
  PreluScaleRange(in + off, out + off, static_cast<size_t>(row_end - row_begin) * row_floats,
                  slope_.data(), scale_.data(), bias_.data(), slope_.size(), lo_, hi_);
#else
  (void)in, (void)out, (void)row_begin, (void)row_end;
#endif
}

}  // namespace sluice::inference::xnn
