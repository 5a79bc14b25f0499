#include "inference/xnnpack/transform_bilinear.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_TRANSFORM_AVX512 1
#else
#define SLUICE_TRANSFORM_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

#if SLUICE_TRANSFORM_AVX512
constexpr int kLanes = 16;
constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// p * a + q * b, each product rounded on its own (the reference's order).
__attribute__((target("avx512f"), always_inline)) inline __m512 Blend(__m512 p, __m512 a,
                                                                     __m512 q, __m512 b) {
  return _mm512_add_ps(_mm512_mul_round_ps(p, a, kRound), _mm512_mul_round_ps(q, b, kRound));
}

__attribute__((target("avx512f"))) void Rows(const TransformBilinearShape& s, const float* zeros,
                                             const float* in, const float* mat, float* out,
                                             int row_begin, int row_end) {
  const int ih = s.in_h, iw = s.in_w, ow = s.out_w;
  const size_t c = static_cast<size_t>(s.channels);
  // Version 2 samples pixel centres: T' = shift(-0.5) * T * shift(+0.5).
  const float ax = mat[0], bx = mat[1], tx = mat[3] + 0.5f * (mat[0] + mat[1]) - 0.5f;
  const float ay = mat[4], by = mat[5], ty = mat[7] + 0.5f * (mat[4] + mat[5]) - 0.5f;
  const float xmax = static_cast<float>(iw - 1), ymax = static_cast<float>(ih - 1);
  for (int oy = row_begin; oy < row_end; ++oy) {
    float* op = out + static_cast<size_t>(oy) * ow * c;
    for (int ox = 0; ox < ow; ++ox, op += c) {
      const float sx = ax * ox + bx * oy + tx, sy = ay * ox + by * oy + ty;
      if (!(sx >= 0.0f && sx <= xmax && sy >= 0.0f && sy <= ymax)) {  // NaN too
        std::fill(op, op + c, 0.0f);
        continue;
      }
      const int x0 = static_cast<int>(std::floor(sx)), y0 = static_cast<int>(std::floor(sy));
      const float fx = sx - x0, fy = sy - y0;
      const float* r0 = in + static_cast<size_t>(y0) * iw * c;
      const float* r1 = r0 + static_cast<size_t>(iw) * c;
      const bool down = y0 + 1 < ih, right = x0 + 1 < iw;
      const float* p00 = r0 + x0 * c;
      const float* p01 = right ? p00 + c : zeros;
      const float* p10 = down ? r1 + x0 * c : zeros;
      const float* p11 = down && right ? p10 + c : zeros;
      const __m512 vfx = _mm512_set1_ps(fx), vgx = _mm512_set1_ps(1 - fx);
      const __m512 vfy = _mm512_set1_ps(fy), vgy = _mm512_set1_ps(1 - fy);
      for (size_t k = 0; k < c; k += kLanes) {
        const size_t left = c - k;
        const __mmask16 m = left >= static_cast<size_t>(kLanes)
                                ? static_cast<__mmask16>(0xffff)
                                : static_cast<__mmask16>((1u << left) - 1);
        const __m512 upper = Blend(vgx, _mm512_maskz_loadu_ps(m, p00 + k), vfx,
                                   _mm512_maskz_loadu_ps(m, p01 + k));
        const __m512 lower = Blend(vgx, _mm512_maskz_loadu_ps(m, p10 + k), vfx,
                                   _mm512_maskz_loadu_ps(m, p11 + k));
        _mm512_mask_storeu_ps(op + k, m, Blend(vfy, lower, vgy, upper));
      }
    }
  }
}
#endif

}  // namespace

bool TransformBilinear::Supports(const TransformBilinearShape& s) {
  return SLUICE_TRANSFORM_AVX512 && PointwiseConvAvailable() && s.in_h > 0 && s.in_w > 0 &&
         s.out_h > 0 && s.out_w > 0 && s.channels > 0 && s.in_h < (1 << 24) &&
         s.in_w < (1 << 24) && s.out_h < (1 << 24) && s.out_w < (1 << 24);
}

TransformBilinear::TransformBilinear(const TransformBilinearShape& s)
    : s_(s), zeros_(static_cast<size_t>(s.channels), 0.0f) {}

void TransformBilinear::Run(const float* in, const float* matrix, float* out, int row_begin,
                            int row_end) const {
#if SLUICE_TRANSFORM_AVX512
  Rows(s_, zeros_.data(), in, matrix, out, row_begin, row_end);
#else
  (void)in, (void)matrix, (void)out, (void)row_begin, (void)row_end;
#endif
}

}  // namespace sluice::inference::xnn
