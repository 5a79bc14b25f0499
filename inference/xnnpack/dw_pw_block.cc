#include "inference/xnnpack/dw_pw_block.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_DWPW_AVX512 1
#else
#define SLUICE_DWPW_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

constexpr int kLanes = 16;
// Registers per step inside the image (C = 8): 3 measured 10 % faster than
// 2 or 4 (more dependent FMA chains in flight; 4 spills).
constexpr int kR = 3;
// Offsets (in registers of 16 floats) of the packed constants.
constexpr int kDwBias = 0, kDwTaps = 1, kPwBias = 10, kPwRows = 11;
int PermuteOffset(int c) { return kPwRows + c; }
int SlopeOffset(int c) { return kPwRows + 2 * c; }

// Input rows y - 1 .. y + 1 of a 3x3 SAME window over an image of h rows,
// clamped at the borders; only ky in [*ky_lo, *ky_hi) lie inside the image.
inline void InputRows(const float* in, int y, int h, size_t row_floats, const float* rows[3],
                      int* ky_lo, int* ky_hi) {
  *ky_lo = y == 0 ? 1 : 0;
  *ky_hi = y == h - 1 ? 2 : 3;
  for (int ky = 0; ky < 3; ++ky) {
    rows[ky] = in + static_cast<size_t>(std::min(std::max(y - 1 + ky, 0), h - 1)) * row_floats;
  }
}

#if SLUICE_DWPW_AVX512
// A register's pixels: plain when they fill it, else into their slots.
__attribute__((target("avx512f"), always_inline)) inline __m512 LoadAll(const float* p, bool plain,
                                                                       int np, __mmask16 all) {
  return plain ? _mm512_loadu_ps(p)
               : np == 1 ? _mm512_maskz_loadu_ps(all, p) : _mm512_maskz_expandloadu_ps(all, p);
}

// XNNPACK's PRELU: by the sign bit (-0.0 included), as pointwise_conv.cc.
__attribute__((target("avx512f"), always_inline)) inline __m512 Prelu(__m512 v, __m512 slope) {
  const __mmask16 neg =
      _mm512_cmp_epi32_mask(_mm512_castps_si512(v), _mm512_setzero_si512(), _MM_CMPINT_LT);
  return _mm512_mask_mul_ps(v, neg, v, slope);
}

// Output rows [y0, y1). kC = 8: the pose models' case, two pixels fill a
// register, loads and stores are plain; kC = 0: any C <= 16 (run time), a
// register's pixels loaded by expand-loads into their 8- or 16-lane slots.
// C = 8 inside the image: the steps of kR registers from pixel x0 on while
// a step's taps lie inside the row of w pixels; returns the first pixel not
// done. Its own function, so that the 9 taps, the 8 permute indices and the
// clamps stay in registers across the steps (inlined into Rows, GCC kept
// them all on the stack: 30 loads a register on 2 ports for 512 bits).
template <bool kPrelu, bool kPwClamp>
__attribute__((target("avx512f"), noinline)) int Interior8(const float* packed,
                                                          const float* clamp,
                                                          const float* const* rows, float* o,
                                                          int x0, int w) {
  constexpr int c = 8, np = 2;
  const __m512 dw_bias = _mm512_load_ps(packed + kLanes * kDwBias);
  __m512 dw[9];
#pragma GCC unroll 9
  for (int t = 0; t < 9; ++t) dw[t] = _mm512_load_ps(packed + kLanes * (kDwTaps + t));
  const __m512 pw_bias = _mm512_load_ps(packed + kLanes * kPwBias);
  __m512i perm[c];
#pragma GCC unroll 8
  for (int i = 0; i < c; ++i) {
    perm[i] = _mm512_load_si512(packed + kLanes * (PermuteOffset(c) + i));
  }
  const float* pw = packed + kLanes * kPwRows;
  const __m512 dlo = _mm512_set1_ps(clamp[0]), dhi = _mm512_set1_ps(clamp[1]);
  const __m512 plo = _mm512_set1_ps(clamp[2]), phi = _mm512_set1_ps(clamp[3]);
  const __m512 alo = _mm512_set1_ps(clamp[4]), ahi = _mm512_set1_ps(clamp[5]);
  const __m512 slope = kPrelu ? _mm512_load_ps(packed + kLanes * SlopeOffset(c)) : alo;
  for (; x0 + kR * np < w; x0 += kR * np) {
    // kR registers at a time: kR independent chains of dependent FMAs.
    __m512 a[kR];
#pragma GCC unroll 4
    for (int j = 0; j < kR; ++j) a[j] = dw_bias;
#pragma GCC unroll 3
    for (int kx = 0; kx < 3; ++kx) {
      const size_t off = static_cast<size_t>(x0 + kx - 1) * c;
#pragma GCC unroll 3
      for (int ky = 0; ky < 3; ++ky) {
#pragma GCC unroll 4
        for (int j = 0; j < kR; ++j) {
          a[j] = _mm512_fmadd_ps(_mm512_loadu_ps(rows[ky] + off + kLanes * j), dw[ky * 3 + kx],
                                 a[j]);
        }
      }
    }
    __m512 v[kR];
#pragma GCC unroll 4
    for (int j = 0; j < kR; ++j) {
      a[j] = _mm512_min_ps(_mm512_max_ps(a[j], dlo), dhi);
      v[j] = pw_bias;
    }
#pragma GCC unroll 16
    for (int i = 0; i < c; ++i) {
      const __m512 wi = _mm512_load_ps(pw + kLanes * i);
#pragma GCC unroll 4
      for (int j = 0; j < kR; ++j) {
        v[j] = _mm512_fmadd_ps(_mm512_permutexvar_ps(perm[i], a[j]), wi, v[j]);
      }
    }
#pragma GCC unroll 4
    for (int j = 0; j < kR; ++j) {
      const size_t at = static_cast<size_t>(x0) * c + kLanes * j;
      if (kPwClamp) v[j] = _mm512_min_ps(_mm512_max_ps(v[j], plo), phi);
      v[j] = _mm512_add_ps(v[j], _mm512_loadu_ps(rows[1] + at));
      v[j] = _mm512_min_ps(_mm512_max_ps(v[j], alo), ahi);
      if (kPrelu) v[j] = Prelu(v[j], slope);
      _mm512_storeu_ps(o + at, v[j]);
    }
  }
  return x0;
}

// kPwClamp false: the 1x1's clamp is [-inf, inf] (pose_landmark's blocks)
// and skipped in the interior steps: min / max share the FMAs' ports, and
// with infinite bounds they return a finite or infinite value unchanged.
template <int kC, bool kPrelu, bool kPwClamp = true>
__attribute__((target("avx512f"))) void Rows(const DwPwShape& s, int pixels, const float* packed,
                                             const float* clamp, const float* in, float* out,
                                             int y0, int y1) {
  const int c = kC ? kC : s.channels;
  const int np = kC == 8 ? 2 : pixels;  // pixels per register
  const __mmask16 pix = static_cast<__mmask16>((1u << c) - 1);  // slot 0's channels
  const __mmask16 all = np == 2 ? static_cast<__mmask16>(pix | (pix << 8)) : pix;
  const bool plain = np * c == kLanes;  // a register is whole pixels, no gaps
  const __m512 dw_bias = _mm512_load_ps(packed + kLanes * kDwBias);
  __m512 dw[9];
  for (int t = 0; t < 9; ++t) dw[t] = _mm512_load_ps(packed + kLanes * (kDwTaps + t));
  const __m512 pw_bias = _mm512_load_ps(packed + kLanes * kPwBias);
  __m512 pw[DwPwBlock::kMaxChannels];
  __m512i perm[DwPwBlock::kMaxChannels];
  for (int i = 0; i < c; ++i) {
    pw[i] = _mm512_load_ps(packed + kLanes * (kPwRows + i));
    perm[i] = _mm512_load_si512(packed + kLanes * (PermuteOffset(c) + i));
  }
  const __m512 dlo = _mm512_set1_ps(clamp[0]), dhi = _mm512_set1_ps(clamp[1]);
  const __m512 plo = _mm512_set1_ps(clamp[2]), phi = _mm512_set1_ps(clamp[3]);
  const __m512 alo = _mm512_set1_ps(clamp[4]), ahi = _mm512_set1_ps(clamp[5]);
  const __m512 slope = kPrelu ? _mm512_load_ps(packed + kLanes * SlopeOffset(c)) : alo;
  const size_t row_floats = static_cast<size_t>(s.w) * c;
  for (int y = y0; y < y1; ++y) {
    const float* rows[3];
    int ky_lo, ky_hi;
    InputRows(in, y, s.h, row_floats, rows, &ky_lo, &ky_hi);
    const bool full_rows = ky_lo == 0 && ky_hi == 3;
    float* o = out + static_cast<size_t>(y) * row_floats;
    for (int x0 = 0; x0 < s.w; x0 += np) {
      if (kC == 8 && full_rows && x0 >= 1 && x0 + kR * np < s.w) {
        x0 = Interior8<kPrelu, kPwClamp>(packed, clamp, rows, o, x0, s.w) - np;
        continue;
      }
      const int n = std::min(np, s.w - x0);
      __m512 acc = dw_bias;
      // Taps column by column (kx outer), as depthwise_conv.cc: same sums.
      if (full_rows && n == np && x0 >= 1 && x0 + np < s.w) {  // every tap inside
#pragma GCC unroll 3
        for (int kx = 0; kx < 3; ++kx) {
          const size_t off = static_cast<size_t>(x0 + kx - 1) * c;
#pragma GCC unroll 3
          for (int ky = 0; ky < 3; ++ky) {
            acc = _mm512_fmadd_ps(LoadAll(rows[ky] + off, plain, np, all), dw[ky * 3 + kx], acc);
          }
        }
      } else {  // top / bottom rows, the row's ends, a last single pixel
        for (int kx = 0; kx < 3; ++kx) {
          // This register's pixels p whose tap x0 + p + kx - 1 is in the row.
          const int p_lo = std::max(0, 1 - kx - x0), p_hi = std::min(n, s.w - x0 - kx + 1);
          if (p_lo >= p_hi) continue;
          __mmask16 m = 0;
          for (int p = p_lo; p < p_hi; ++p) m |= static_cast<__mmask16>(pix << (p * (16 / np)));
          const size_t off = static_cast<size_t>(x0 + p_lo + kx - 1) * c;
          for (int ky = ky_lo; ky < ky_hi; ++ky) {
            acc = _mm512_mask3_fmadd_ps(_mm512_maskz_expandloadu_ps(m, rows[ky] + off),
                                        dw[ky * 3 + kx], acc, m);
          }
        }
      }
      const __m512 d = _mm512_min_ps(_mm512_max_ps(acc, dlo), dhi);
      // 1x1: bias, then input channel i of each pixel broadcast over its slot.
      __m512 v = pw_bias;
#pragma GCC unroll 16
      for (int i = 0; i < c; ++i) v = _mm512_fmadd_ps(_mm512_permutexvar_ps(perm[i], d), pw[i], v);
      v = _mm512_min_ps(_mm512_max_ps(v, plo), phi);
      const float* xr = rows[1] + static_cast<size_t>(x0) * c;  // the residual: row y
      const __m512 r = n == np ? LoadAll(xr, plain, np, all) : _mm512_maskz_loadu_ps(pix, xr);
      v = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, r), alo), ahi);
      if (kPrelu) v = Prelu(v, slope);
      float* op = o + static_cast<size_t>(x0) * c;
      if (n < np || np == 1) {
        _mm512_mask_storeu_ps(op, n < np ? pix : all, v);
      } else if (plain) {
        _mm512_storeu_ps(op, v);
      } else {
        _mm512_mask_compressstoreu_ps(op, all, v);
      }
    }
  }
}

// C = 16, 32 or 64 (kG = C / 16 registers a pixel): the "wide" layout, in
// floats of C: dw bias, 9 taps, pw bias, C pw rows (input channel i:
// W[:][i]), PRELU slopes. The depthwise results of a step's pixels go to a
// small buffer; the 1x1 as XNNPACK's GEMM does it (input channel i of each
// pixel broadcast from memory, times row i loaded once for the step's
// pixels), not by lane permutes, which share the port of the FMAs.
int WideSlopeOffset(int c) { return (11 + c) * c; }

// The 1x1 and the epilogue of kN pixels whose clamped depthwise results are
// at d (kN x kC floats): pixel j's residual at x[j], output at o[j]. With
// `n` < kN only the first n are stored (the rest compute on stale d).
template <int kC, bool kPrelu, int kN>
__attribute__((target("avx512f"), always_inline)) inline void WidePointwise(
    const float* packed, const float* clamp, const float* d, const float* const* x,
    float* const* o, int n = kN) {
  constexpr int kG = kC / kLanes;
  const float* pwr = packed + 11 * kC;
  __m512 v[kN][kG];
#pragma GCC unroll 16
  for (int j = 0; j < kN; ++j) {
#pragma GCC unroll 4
    for (int g = 0; g < kG; ++g) v[j][g] = _mm512_load_ps(packed + 10 * kC + kLanes * g);
  }
#pragma GCC unroll 2
  for (int i = 0; i < kC; ++i) {
    __m512 w[kG];
#pragma GCC unroll 4
    for (int g = 0; g < kG; ++g) w[g] = _mm512_load_ps(pwr + i * kC + kLanes * g);
#pragma GCC unroll 16
    for (int j = 0; j < kN; ++j) {
      const __m512 b = _mm512_set1_ps(d[j * kC + i]);
#pragma GCC unroll 4
      for (int g = 0; g < kG; ++g) v[j][g] = _mm512_fmadd_ps(b, w[g], v[j][g]);
    }
  }
  const __m512 plo = _mm512_set1_ps(clamp[2]), phi = _mm512_set1_ps(clamp[3]);
  const __m512 alo = _mm512_set1_ps(clamp[4]), ahi = _mm512_set1_ps(clamp[5]);
#pragma GCC unroll 16
  for (int j = 0; j < kN; ++j) {
    if (j >= n) break;
#pragma GCC unroll 4
    for (int g = 0; g < kG; ++g) {
      __m512 r = _mm512_min_ps(_mm512_max_ps(v[j][g], plo), phi);
      r = _mm512_add_ps(r, _mm512_loadu_ps(x[j] + kLanes * g));
      r = _mm512_min_ps(_mm512_max_ps(r, alo), ahi);
      if (kPrelu) r = Prelu(r, _mm512_load_ps(packed + WideSlopeOffset(kC) + kLanes * g));
      _mm512_storeu_ps(o[j] + kLanes * g, r);
    }
  }
}

template <int kC, bool kPrelu>
__attribute__((target("avx512f"))) void WideRows(const DwPwShape& s, const float* packed,
                                                 const float* clamp, const float* in, float* out,
                                                 int y0, int y1) {
  constexpr int kG = kC / kLanes;
  // Pixels a step inside the image: 24 accumulators (12 at C = 16: 24
  // measured 5x slower, GCC then keeps the arrays in memory).
  constexpr int kRw = kG == 1 ? 12 : 24 / kG;
  const float* taps = packed + kC;
  const __m512 dlo = _mm512_set1_ps(clamp[0]), dhi = _mm512_set1_ps(clamp[1]);
  const size_t row_floats = static_cast<size_t>(s.w) * kC;
  alignas(64) float dbuf[kRw * kC];
  // Pixels with taps outside the image (the rows' ends; the first and last
  // rows) gather here, kRw at a time for the 1x1 (one alone would be one
  // chain of kC dependent FMAs). Zeroed: no denormals in the unused slots.
  alignas(64) float ebuf[kRw * kC] = {};
  const float* ex[kRw];
  float* eo[kRw];
  int en = 0;
  // (The empty asm hides that d is dbuf, e is ebuf, else GCC turns the
  // broadcasts into lane permutes on the FMA port.)
  float* d = dbuf;
  float* e = ebuf;
  asm("" : "+r"(d), "+r"(e));
  for (int y = y0; y < y1; ++y) {
    const float* rows[3];
    int ky_lo, ky_hi;
    InputRows(in, y, s.h, row_floats, rows, &ky_lo, &ky_hi);
    const bool full_rows = ky_lo == 0 && ky_hi == 3;
    float* o = out + static_cast<size_t>(y) * row_floats;
    for (int x0 = 0; x0 < s.w;) {
      // The row's last step moves left to end at pixel w - 2 (redoing a few
      // pixels, the same bits) when at least half of it is new; else its
      // pixels join the edge tiles.
      const int xs = std::min(x0, s.w - 1 - kRw);
      if (full_rows && xs >= 1 && x0 < s.w - 1 && 2 * (x0 - xs) <= kRw) {
        __m512 a[kRw][kG];
#pragma GCC unroll 16
        for (int j = 0; j < kRw; ++j) {
#pragma GCC unroll 4
          for (int g = 0; g < kG; ++g) a[j][g] = _mm512_load_ps(packed + kLanes * g);
        }
        // Input column xs - 1 + col: tap kx = col - j of pixel j.
#pragma GCC unroll 16
        for (int col = 0; col < kRw + 2; ++col) {
#pragma GCC unroll 3
          for (int ky = 0; ky < 3; ++ky) {
#pragma GCC unroll 4
            for (int g = 0; g < kG; ++g) {
              const __m512 xv =
                  _mm512_loadu_ps(rows[ky] + static_cast<size_t>(xs - 1 + col) * kC + kLanes * g);
#pragma GCC unroll 16
              for (int j = 0; j < kRw; ++j) {
                const int kx = col - j;
                if (kx >= 0 && kx < 3) {
                  a[j][g] = _mm512_fmadd_ps(
                      xv, _mm512_load_ps(taps + (ky * 3 + kx) * kC + kLanes * g), a[j][g]);
                }
              }
            }
          }
        }
#pragma GCC unroll 16
        for (int j = 0; j < kRw; ++j) {
#pragma GCC unroll 4
          for (int g = 0; g < kG; ++g) {
            _mm512_store_ps(dbuf + j * kC + kLanes * g,
                            _mm512_min_ps(_mm512_max_ps(a[j][g], dlo), dhi));
          }
        }
        const float* xp[kRw];
        float* op[kRw];
        for (int j = 0; j < kRw; ++j) {
          xp[j] = rows[1] + static_cast<size_t>(xs + j) * kC;
          op[j] = o + static_cast<size_t>(xs + j) * kC;
        }
        WidePointwise<kC, kPrelu, kRw>(packed, clamp, d, xp, op);
        x0 = xs + kRw;
        continue;
      }
      // One pixel; taps outside the image skipped (column by column).
      __m512 a[kG];
#pragma GCC unroll 4
      for (int g = 0; g < kG; ++g) a[g] = _mm512_load_ps(packed + kLanes * g);
      for (int kx = 0; kx < 3; ++kx) {
        const int xx = x0 + kx - 1;
        if (xx < 0 || xx >= s.w) continue;
        for (int ky = ky_lo; ky < ky_hi; ++ky) {
#pragma GCC unroll 4
          for (int g = 0; g < kG; ++g) {
            a[g] = _mm512_fmadd_ps(
                _mm512_loadu_ps(rows[ky] + static_cast<size_t>(xx) * kC + kLanes * g),
                _mm512_load_ps(taps + (ky * 3 + kx) * kC + kLanes * g), a[g]);
          }
        }
      }
#pragma GCC unroll 4
      for (int g = 0; g < kG; ++g) {
        _mm512_store_ps(ebuf + en * kC + kLanes * g, _mm512_min_ps(_mm512_max_ps(a[g], dlo), dhi));
      }
      ex[en] = rows[1] + static_cast<size_t>(x0) * kC;
      eo[en] = o + static_cast<size_t>(x0) * kC;
      if (++en == kRw) {
        WidePointwise<kC, kPrelu, kRw>(packed, clamp, e, ex, eo);
        en = 0;
      }
      ++x0;
    }
  }
  // Left over: with threads, a call is one row, whose two end pixels are
  // cheaper as a 2-pixel tile than in a full one.
  if (en > 2) {
    WidePointwise<kC, kPrelu, kRw>(packed, clamp, e, ex, eo, en);
  } else if (en > 0) {
    WidePointwise<kC, kPrelu, 2>(packed, clamp, e, ex, eo, en);
  }
}
#endif

}  // namespace

bool DwPwBlock::Supports(const DwPwShape& s) {
  return PointwiseConvAvailable() && s.channels >= 1 &&
         (s.channels <= kMaxChannels || s.channels == 32 || s.channels == 64) && s.h >= 1 &&
         s.w >= 1;
}

DwPwBlock::DwPwBlock(const DwPwShape& s, const DwPwParams& p) : s_(s) {
  const int c = s.channels;
  prelu_ = p.prelu_slope != nullptr;
  if (c >= 16) {  // the wide layout (WideRows)
    storage_.assign(static_cast<size_t>(WideSlopeOffset(c) + c) + 16, 0.0f);
    const uintptr_t a = reinterpret_cast<uintptr_t>(storage_.data());
    packed_ = reinterpret_cast<float*>((a + 63) & ~uintptr_t{63});
    clamp_[0] = p.dw_min, clamp_[1] = p.dw_max;
    clamp_[2] = p.pw_min, clamp_[3] = p.pw_max;
    clamp_[4] = p.add_min, clamp_[5] = p.add_max;
    for (int ch = 0; ch < c; ++ch) {
      packed_[ch] = p.dw_bias ? p.dw_bias[ch] : 0.0f;
      for (int t = 0; t < 9; ++t) packed_[(1 + t) * c + ch] = p.dw_weights[t * c + ch];
      packed_[10 * c + ch] = p.pw_bias ? p.pw_bias[ch] : 0.0f;
      for (int i = 0; i < c; ++i) packed_[(11 + i) * c + ch] = p.pw_weights[ch * c + i];
      if (prelu_) packed_[WideSlopeOffset(c) + ch] = p.prelu_slope[ch];
    }
    return;
  }
  // SLUICE_XNNPACK_DWPW_FREE=0 (read at construction): clamp the 1x1 even
  // when unbounded (A/B).
  const char* free_env = std::getenv("SLUICE_XNNPACK_DWPW_FREE");
  const float inf = std::numeric_limits<float>::infinity();
  pw_free_ = !(free_env && *free_env == '0') && c == 8 && p.pw_min == -inf && p.pw_max == inf;
  pixels_ = c <= 8 ? 2 : 1;
  const int slot = kLanes / pixels_;
  clamp_[0] = p.dw_min, clamp_[1] = p.dw_max;
  clamp_[2] = p.pw_min, clamp_[3] = p.pw_max;
  clamp_[4] = p.add_min, clamp_[5] = p.add_max;
  const int regs = SlopeOffset(c) + 1;
  storage_.assign(static_cast<size_t>(regs) * kLanes + 16, 0.0f);
  const uintptr_t a = reinterpret_cast<uintptr_t>(storage_.data());
  packed_ = reinterpret_cast<float*>((a + 63) & ~uintptr_t{63});
  for (int lane = 0; lane < kLanes; ++lane) {
    const int ch = lane % slot, base = lane - ch;
    auto reg = [&](int r) -> float& { return packed_[r * kLanes + lane]; };
    for (int i = 0; i < c; ++i) {  // permute index: this slot's channel i
      const int32_t index = base + i;
      std::memcpy(&reg(PermuteOffset(c) + i), &index, sizeof(index));
    }
    if (ch >= c) continue;  // lanes past C stay 0
    reg(kDwBias) = p.dw_bias ? p.dw_bias[ch] : 0.0f;
    for (int t = 0; t < 9; ++t) reg(kDwTaps + t) = p.dw_weights[t * c + ch];
    reg(kPwBias) = p.pw_bias ? p.pw_bias[ch] : 0.0f;
    for (int i = 0; i < c; ++i) reg(kPwRows + i) = p.pw_weights[ch * c + i];
    if (prelu_) reg(SlopeOffset(c)) = p.prelu_slope[ch];
  }
}

void DwPwBlock::Run(const float* in, float* out, int row_begin, int row_end) const {
#if SLUICE_DWPW_AVX512
  if (s_.channels >= 16) {
    auto wide = s_.channels == 16   ? (prelu_ ? WideRows<16, true> : WideRows<16, false>)
                : s_.channels == 32 ? (prelu_ ? WideRows<32, true> : WideRows<32, false>)
                                    : (prelu_ ? WideRows<64, true> : WideRows<64, false>);
    wide(s_, packed_, clamp_, in, out, row_begin, row_end);
    return;
  }
  auto rows = s_.channels != 8 ? (prelu_ ? Rows<0, true> : Rows<0, false>)
              : pw_free_     ? (prelu_ ? Rows<8, true, false> : Rows<8, false, false>)
                             : (prelu_ ? Rows<8, true> : Rows<8, false>);
  rows(s_, pixels_, packed_, clamp_, in, out, row_begin, row_end);
#else
  (void)in, (void)out, (void)row_begin, (void)row_end;
#endif
}

}  // namespace sluice::inference::xnn
