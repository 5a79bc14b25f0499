#include "inference/xnnpack/dw8_pw16.h"

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_DW8PW16_AVX512 1
#else
#define SLUICE_DW8PW16_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {
constexpr int kL = 16;
constexpr int kDwBias = 0, kDwTaps = 1, kPwBias = 10, kPwRows = 11, kRegs = 19;

#if SLUICE_DW8PW16_AVX512
// Pixels xb, xb + 1 (or xb alone at the end): only the taps inside the image.
__attribute__((target("avx512f"), always_inline)) inline void Edge(
    int w, const float* const* rows, int ky_lo, int ky_hi, const __m512* t, __m512 bias,
    __m512 dlo, __m512 dhi, float* d, int xb) {
  const int n = std::min(2, w - xb);
  __m512 acc = bias;
  for (int kx = 0; kx < 3; ++kx) {
    const int p_lo = std::max(0, 1 - kx - xb), p_hi = std::min(n, w - xb - kx + 1);
    if (p_lo >= p_hi) continue;
    __mmask16 m = 0;
    for (int p = p_lo; p < p_hi; ++p) m |= static_cast<__mmask16>(0xFFu << (p * 8));
    const size_t off = static_cast<size_t>(xb + p_lo + kx - 1) * 8;
    for (int ky = ky_lo; ky < ky_hi; ++ky) {
      acc = _mm512_mask3_fmadd_ps(_mm512_maskz_expandloadu_ps(m, rows[ky] + off), t[ky * 3 + kx],
                                  acc, m);
    }
  }
  _mm512_store_ps(d + xb * 8, _mm512_min_ps(_mm512_max_ps(acc, dlo), dhi));
}

// One output row. Depthwise two pixels a register (lanes 8p + c) into d,
// then the 1x1 8 pixels at a time.
__attribute__((target("avx512f"))) void Row(int h, int w, const float* packed,
                                            const float* clamp, const float* in,
                                            const float* res, float* out, int y) {
  alignas(64) float d[Dw8Pw16::kMaxWidth * 8];
  const size_t rf = static_cast<size_t>(w) * 8;
  const float* rows[3];
  for (int ky = 0; ky < 3; ++ky) {
    rows[ky] = in + static_cast<size_t>(std::min(std::max(y - 1 + ky, 0), h - 1)) * rf;
  }
  const int ky_lo = y == 0 ? 1 : 0, ky_hi = y == h - 1 ? 2 : 3;
  const bool full = ky_lo == 0 && ky_hi == 3;
  const __m512 bias = _mm512_load_ps(packed + kL * kDwBias);
  __m512 t[9];
  for (int i = 0; i < 9; ++i) t[i] = _mm512_load_ps(packed + kL * (kDwTaps + i));
  const __m512 dlo = _mm512_set1_ps(clamp[0]), dhi = _mm512_set1_ps(clamp[1]);
  int x0 = 0;
  // Interior: three registers (6 pixels) a step, taps column by column.
  if (full) {
    for (x0 = 2; x0 + 6 < w; x0 += 6) {
      __m512 a[3] = {bias, bias, bias};
#pragma GCC unroll 3
      for (int kx = 0; kx < 3; ++kx) {
        const size_t off = static_cast<size_t>(x0 + kx - 1) * 8;
#pragma GCC unroll 3
        for (int ky = 0; ky < 3; ++ky) {
#pragma GCC unroll 3
          for (int j = 0; j < 3; ++j) {
            a[j] = _mm512_fmadd_ps(_mm512_loadu_ps(rows[ky] + off + kL * j), t[ky * 3 + kx], a[j]);
          }
        }
      }
#pragma GCC unroll 3
      for (int j = 0; j < 3; ++j) {
        _mm512_store_ps(d + x0 * 8 + kL * j, _mm512_min_ps(_mm512_max_ps(a[j], dlo), dhi));
      }
    }
  }
  // The rest (pixels 0-1 and the tail, or all of a top / bottom row).
  if (full) {
    Edge(w, rows, ky_lo, ky_hi, t, bias, dlo, dhi, d, 0);
    for (int xb = x0; xb < w; xb += 2) Edge(w, rows, ky_lo, ky_hi, t, bias, dlo, dhi, d, xb);
  } else {
    for (int xb = 0; xb < w; xb += 2) Edge(w, rows, ky_lo, ky_hi, t, bias, dlo, dhi, d, xb);
  }
  // The 1x1: bias, channels in order (FMA), clamp, + residual (0 past 8), clamp.
  const __m512 pb = _mm512_load_ps(packed + kL * kPwBias);
  __m512 wr[8];
  for (int i = 0; i < 8; ++i) wr[i] = _mm512_load_ps(packed + kL * (kPwRows + i));
  const __m512 plo = _mm512_set1_ps(clamp[2]), phi = _mm512_set1_ps(clamp[3]);
  const __m512 alo = _mm512_set1_ps(clamp[4]), ahi = _mm512_set1_ps(clamp[5]);
  const float* rr = res + static_cast<size_t>(y) * rf;
  float* o = out + static_cast<size_t>(y) * w * 16;
  constexpr int kP = 8;
  for (int xb = 0; xb < w; xb += kP) {
    const int n = std::min(kP, w - xb);
    __m512 v[kP];
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) v[p] = pb;
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
#pragma GCC unroll 8
      for (int p = 0; p < kP; ++p) {
        v[p] = _mm512_fmadd_ps(_mm512_set1_ps(d[(xb + p) * 8 + i]), wr[i], v[p]);
      }
    }
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) {
      if (p >= n) break;
      __m512 u = _mm512_min_ps(_mm512_max_ps(v[p], plo), phi);
      u = _mm512_add_ps(u, _mm512_maskz_loadu_ps(0xFF, rr + (xb + p) * 8));
      u = _mm512_min_ps(_mm512_max_ps(u, alo), ahi);
      _mm512_storeu_ps(o + (xb + p) * 16, u);
    }
  }
}
#endif
}  // namespace

bool Dw8Pw16::Supports(int h, int w) {
#if SLUICE_DW8PW16_AVX512
  return h >= 1 && w >= 1 && w <= kMaxWidth && __builtin_cpu_supports("avx512f");
#else
  (void)h, (void)w;
  return false;
#endif
}

Dw8Pw16::Dw8Pw16(int h, int w, const float* dw_weights, const float* dw_bias, float dw_min,
                 float dw_max, const float* pw_weights, const float* pw_bias, float pw_min,
                 float pw_max, float add_min, float add_max)
    : h_(h), w_(w), clamp_{dw_min, dw_max, pw_min, pw_max, add_min, add_max} {
  storage_.assign(kRegs * kL + kL, 0.0f);
  const auto addr = reinterpret_cast<std::uintptr_t>(storage_.data());
  packed_ = storage_.data() + ((64 - addr % 64) % 64) / sizeof(float);
  for (int l = 0; l < kL; ++l) {
    const int c = l % 8;
    packed_[kL * kDwBias + l] = dw_bias ? dw_bias[c] : 0.0f;
    for (int tap = 0; tap < 9; ++tap) packed_[kL * (kDwTaps + tap) + l] = dw_weights[tap * 8 + c];
    packed_[kL * kPwBias + l] = pw_bias ? pw_bias[l] : 0.0f;
    for (int i = 0; i < 8; ++i) packed_[kL * (kPwRows + i) + l] = pw_weights[l * 8 + i];
  }
}

void Dw8Pw16::Run(const float* in, const float* residual, float* out, int row_begin,
                  int row_end, float* scratch) const {
  (void)scratch;
#if SLUICE_DW8PW16_AVX512
  for (int y = row_begin; y < row_end; ++y) Row(h_, w_, packed_, clamp_, in, residual, out, y);
#else
  (void)in, (void)residual, (void)out, (void)row_begin, (void)row_end;
#endif
}

}  // namespace sluice::inference::xnn
