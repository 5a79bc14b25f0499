// Register transposes shared by our AVX-512 kernels (include only inside the
// code they guard with their own x86 / AVX-512 checks).
#ifndef SLUICE_INFERENCE_XNNPACK_AVX512_TRANSPOSE_H_
#define SLUICE_INFERENCE_XNNPACK_AVX512_TRANSPOSE_H_

#include <immintrin.h>

namespace sluice::inference::xnn {

// Four registers r[0..3] (rows) of 16 lanes to u[q] = lane q, q + 4, q + 8,
// q + 12 of the four rows (one column per 128-bit block).
__attribute__((target("avx512f"), always_inline)) inline void TransposeQuad(const __m512* r,
                                                                            __m512* u) {
  const __m512d a0 = _mm512_castps_pd(_mm512_unpacklo_ps(r[0], r[1]));
  const __m512d a1 = _mm512_castps_pd(_mm512_unpackhi_ps(r[0], r[1]));
  const __m512d a2 = _mm512_castps_pd(_mm512_unpacklo_ps(r[2], r[3]));
  const __m512d a3 = _mm512_castps_pd(_mm512_unpackhi_ps(r[2], r[3]));
  u[0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
  u[1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
  u[2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
  u[3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
}

// 16 registers of 16 floats transposed: x[j] lane i = r[i] lane j (e.g. 16
// pixels of 16 channels to 16 channels of 16 pixels), by 64 in-register
// shuffles instead of 16 gathers.
__attribute__((target("avx512f"), always_inline)) inline void Transpose16x16(const __m512* r,
                                                                             __m512* x) {
  __m512 u[16];
  for (int k = 0; k < 4; ++k) TransposeQuad(r + 4 * k, u + 4 * k);
  for (int q = 0; q < 4; ++q) {
    const __m512 v = _mm512_shuffle_f32x4(u[q], u[4 + q], 0x44);
    const __m512 v2 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0xEE);
    const __m512 w = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0x44);
    const __m512 w2 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0xEE);
    x[q] = _mm512_shuffle_f32x4(v, w, 0x88);
    x[q + 4] = _mm512_shuffle_f32x4(v, w, 0xDD);
    x[q + 8] = _mm512_shuffle_f32x4(v2, w2, 0x88);
    x[q + 12] = _mm512_shuffle_f32x4(v2, w2, 0xDD);
  }
}

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_AVX512_TRANSPOSE_H_
