#include "inference/xnnpack/depthwise_conv.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_DEPTHWISE_AVX512 1
#else
#define SLUICE_DEPTHWISE_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

constexpr int kGroup = 16;  // channels per zmm register
constexpr int kBlock16 = 8;  // Interior16's pixels per step (8 accumulators)

#if SLUICE_DEPTHWISE_AVX512
// An output pixel near the border: taps outside the image are skipped.
template <int K>
__attribute__((target("avx512f"))) void Edge(const DepthwiseShape& s, int x, int ky_lo, int ky_hi,
                                             const float* const* rows, const __m512* w, __m512 bias,
                                             __m512 lo, __m512 hi, __mmask16 mask, float* o) {
  const size_t c = static_cast<size_t>(s.channels);
  const int ix0 = x * s.stride_w - s.pad_left;
  __m512 acc = bias;
  for (int kx = 0; kx < K; ++kx) {
    const int ix = ix0 + kx;
    if (ix < 0 || ix >= s.in_w) continue;
    for (int ky = ky_lo; ky < ky_hi; ++ky) {
      acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, rows[ky] + static_cast<size_t>(ix) * c),
                            w[ky * K + kx], acc);
    }
  }
  _mm512_mask_storeu_ps(o + static_cast<size_t>(x) * c, mask,
                        _mm512_min_ps(_mm512_max_ps(acc, lo), hi));
}

// An output pixel near the border in G whole 16-channel groups from group
// g0 on, one accumulator each: Edge's taps in Edge's order (taps outside the
// image skipped), but G chains side by side instead of one waiting on its
// FMA latency (at 16x16 5x5, 44% of the pixels are edge pixels).
template <int K, int G>
__attribute__((target("avx512f"))) void EdgeGroups(const DepthwiseShape& s, int x, int ky_lo,
                                                   int ky_hi, const float* const* rows0,
                                                   const float* packed, int g0, __m512 lo,
                                                   __m512 hi, float* o0) {
  const size_t c = static_cast<size_t>(s.channels);
  const size_t group_floats = static_cast<size_t>(kGroup) * (K * K + 1);
  const float* wp = packed + static_cast<size_t>(g0) * group_floats;
  const size_t gofs = static_cast<size_t>(g0) * kGroup;
  const int ix0 = x * s.stride_w - s.pad_left;
  __m512 acc[G];
#pragma GCC unroll 8
  for (int j = 0; j < G; ++j) acc[j] = _mm512_load_ps(wp + j * group_floats);
  for (int kx = 0; kx < K; ++kx) {
    const int ix = ix0 + kx;
    if (ix < 0 || ix >= s.in_w) continue;
    for (int ky = ky_lo; ky < ky_hi; ++ky) {
      const float* p = rows0[ky] + static_cast<size_t>(ix) * c + gofs;
      const float* w = wp + kGroup * (1 + ky * K + kx);
#pragma GCC unroll 8
      for (int j = 0; j < G; ++j) {
        acc[j] = _mm512_fmadd_ps(_mm512_loadu_ps(p + j * kGroup),
                                 _mm512_load_ps(w + j * group_floats), acc[j]);
      }
    }
  }
  float* o = o0 + static_cast<size_t>(x) * c + gofs;
#pragma GCC unroll 8
  for (int j = 0; j < G; ++j) {
    _mm512_storeu_ps(o + j * kGroup, _mm512_min_ps(_mm512_max_ps(acc[j], lo), hi));
  }
}
// Edge pixel x in all whole groups: 8, 4, 2, then 1 at a time.
template <int K>
__attribute__((target("avx512f"))) void EdgeAllGroups(const DepthwiseShape& s, int x, int ky_lo,
                                                      int ky_hi, const float* const* rows0,
                                                      const float* packed, int full, __m512 lo,
                                                      __m512 hi, float* o0) {
  int g = 0;
  for (; g + 8 <= full; g += 8) EdgeGroups<K, 8>(s, x, ky_lo, ky_hi, rows0, packed, g, lo, hi, o0);
  if (g + 4 <= full) EdgeGroups<K, 4>(s, x, ky_lo, ky_hi, rows0, packed, g, lo, hi, o0), g += 4;
  if (g + 2 <= full) EdgeGroups<K, 2>(s, x, ky_lo, ky_hi, rows0, packed, g, lo, hi, o0), g += 2;
  if (g < full) EdgeGroups<K, 1>(s, x, ky_lo, ky_hi, rows0, packed, g, lo, hi, o0);
}

// R output pixels of one 16-channel group, inside the image: pixel r reads
// rows[ky] + off + r * step + kx * c. Taps column by column (kx outer), as
// XNNPACK sums them, so the same bits; a tap's weights are loaded once for
// all R pixels. In a row whose taps reach above or below the image only
// input rows ky in [ky_lo, ky_hi) exist (rows[ky] of the others unread):
// their taps skipped, as Edge skips them (InteriorKy).
template <int K, int R, bool kWhole = false>
__attribute__((target("avx512f"), always_inline)) inline void Pixels(
    const float* const* rows, size_t off, size_t c, size_t step, const float* wp, __mmask16 mask,
    __m512 lo, __m512 hi, float* out, int ky_lo = 0, int ky_hi = K) {
  const __m512 bias = _mm512_load_ps(wp);
  __m512 acc[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r] = bias;
#pragma GCC unroll 8
  for (int kx = 0; kx < K; ++kx) {
#pragma GCC unroll 8
    for (int ky = 0; ky < K; ++ky) {
      if (ky < ky_lo || ky >= ky_hi) continue;
      const __m512 w = _mm512_load_ps(wp + kGroup * (1 + ky * K + kx));
      const float* p = rows[ky] + off + kx * c;
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        // A whole group: plain loads, which the FMA takes as its operand.
        const __m512 x = kWhole ? _mm512_loadu_ps(p + r * step)
                                : _mm512_maskz_loadu_ps(mask, p + r * step);
        acc[r] = _mm512_fmadd_ps(x, w, acc[r]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(out + r * c, mask, _mm512_min_ps(_mm512_max_ps(acc[r], lo), hi));
  }
}

// Pixels<K, R, true> for two whole groups at once (the second at +16
// floats, its weights at +group_floats): 2R accumulators, so that the FMA
// chains hide their latency with room to spare (R = 8 alone just covers 2
// ports x 4 cycles; the 4- and 1-pixel blocks at a row's end do not).
// Per output the same taps in the same order: the same bits.
template <int K, int R>
__attribute__((target("avx512f"), always_inline)) inline void PixelsPair(
    const float* const* rows, size_t off, size_t c, size_t step, const float* wp,
    size_t group_floats, __m512 lo, __m512 hi, float* out, int ky_lo = 0, int ky_hi = K) {
  __m512 acc0[R], acc1[R];
  const __m512 bias0 = _mm512_load_ps(wp), bias1 = _mm512_load_ps(wp + group_floats);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc0[r] = bias0, acc1[r] = bias1;
#pragma GCC unroll 8
  for (int kx = 0; kx < K; ++kx) {
#pragma GCC unroll 8
    for (int ky = 0; ky < K; ++ky) {
      if (ky < ky_lo || ky >= ky_hi) continue;
      const __m512 w0 = _mm512_load_ps(wp + kGroup * (1 + ky * K + kx));
      const __m512 w1 = _mm512_load_ps(wp + group_floats + kGroup * (1 + ky * K + kx));
      const float* p = rows[ky] + off + kx * c;
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        acc0[r] = _mm512_fmadd_ps(_mm512_loadu_ps(p + r * step), w0, acc0[r]);
        acc1[r] = _mm512_fmadd_ps(_mm512_loadu_ps(p + r * step + kGroup), w1, acc1[r]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(out + r * c, _mm512_min_ps(_mm512_max_ps(acc0[r], lo), hi));
    _mm512_storeu_ps(out + r * c + kGroup, _mm512_min_ps(_mm512_max_ps(acc1[r], lo), hi));
  }
}

// n (<= kBlock16) interior pixels from column xb of groups g, g + 1 (both
// whole) of output row o0: 8, or 4 then single ones, as the one-group paths
// split them.
template <int K>
__attribute__((target("avx512f"), always_inline)) inline void PairBlock(
    const DepthwiseShape& s, const float* packed, const float* const* rows0, int xb, int g, int n,
    __m512 lo, __m512 hi, float* o0, int ky_lo, int ky_hi) {
  const size_t c = static_cast<size_t>(s.channels), step = s.stride_w * c;
  const size_t group_floats = static_cast<size_t>(kGroup) * (K * K + 1);
  const size_t gofs = static_cast<size_t>(g) * kGroup;
  const size_t off = static_cast<size_t>(xb * s.stride_w - s.pad_left) * c + gofs;
  const float* wp = packed + static_cast<size_t>(g) * group_floats;
  float* o = o0 + static_cast<size_t>(xb) * c + gofs;
  if (n == kBlock16) {
    PixelsPair<K, kBlock16>(rows0, off, c, step, wp, group_floats, lo, hi, o, ky_lo, ky_hi);
    return;
  }
  int i = 0;
  if (n >= 4) {
    PixelsPair<K, 4>(rows0, off, c, step, wp, group_floats, lo, hi, o, ky_lo, ky_hi);
    i = 4;
  }
  for (; i < n; ++i) {
    PixelsPair<K, 1>(rows0, off + i * step, c, step, wp, group_floats, lo, hi, o + i * c, ky_lo,
                     ky_hi);
  }
}

// The interior columns [x_lo, x_hi) of such a row, all groups (channels a
// multiple of 16): blocks of 8 pixels, then 4, then single ones.
template <int K>
__attribute__((target("avx512f"))) void InteriorKy(const DepthwiseShape& s, const float* packed,
                                                   const float* const* rows0, int ky_lo, int ky_hi,
                                                   int x_lo, int x_hi, __m512 lo, __m512 hi,
                                                   bool pairs, float* o0) {
  const size_t c = static_cast<size_t>(s.channels), step = s.stride_w * c;
  const int groups = s.channels / kGroup;
  for (int xb = x_lo; xb < x_hi; xb += kBlock16) {
    const int n = std::min(x_hi - xb, kBlock16);
    int g = 0;
    for (; pairs && g + 2 <= groups; g += 2) {
      PairBlock<K>(s, packed, rows0, xb, g, n, lo, hi, o0, ky_lo, ky_hi);
    }
    for (; g < groups; ++g) {
      const float* wp = packed + static_cast<size_t>(g) * kGroup * (K * K + 1);
      const size_t off = static_cast<size_t>(xb * s.stride_w - s.pad_left) * c + g * kGroup;
      float* o = o0 + static_cast<size_t>(xb) * c + g * kGroup;
      constexpr __mmask16 kAll = 0xffff;
      int i = 0;
      if (n == kBlock16) {
        Pixels<K, kBlock16, true>(rows0, off, c, step, wp, kAll, lo, hi, o, ky_lo, ky_hi);
        continue;
      }
      if (n >= 4) Pixels<K, 4, true>(rows0, off, c, step, wp, kAll, lo, hi, o, ky_lo, ky_hi), i = 4;
      for (; i < n; ++i) {
        Pixels<K, 1, true>(rows0, off + i * step, c, step, wp, kAll, lo, hi, o + i * c, ky_lo,
                           ky_hi);
      }
    }
  }
}

// The interior [x_lo, x_hi) of a row of exactly 16 channels, stride S = 1
// or 2, R pixels at a time: constant offsets and unmasked loads, which the FMAs take
// as memory operands (Pixels' masked loads are separate instructions, and
// its run-time strides take registers it lacks: measured 17 cycles a pixel
// at 64x64x16). The same taps in the same order as Pixels, so the same bits.
template <int K, int R, int S>
__attribute__((target("avx512f"), always_inline)) inline void Pixels16(const float* const* r,
                                                                       size_t off, const __m512* w,
                                                                       __m512 bias, __m512 lo,
                                                                       __m512 hi, float* out) {
  __m512 acc[R];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) acc[i] = bias;
#pragma GCC unroll 8
  for (int kx = 0; kx < K; ++kx) {
#pragma GCC unroll 8
    for (int ky = 0; ky < K; ++ky) {
      const float* p = r[ky] + off + kx * kGroup;
#pragma GCC unroll 8
      for (int i = 0; i < R; ++i) {
        acc[i] = _mm512_fmadd_ps(_mm512_loadu_ps(p + i * S * kGroup), w[ky * K + kx], acc[i]);
      }
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) {
    _mm512_storeu_ps(out + i * kGroup, _mm512_min_ps(_mm512_max_ps(acc[i], lo), hi));
  }
}
template <int K, int S>
__attribute__((target("avx512f"))) void Interior16(const float* const* rows0, int x_lo, int x_hi,
                                                   int pad_left, const float* wp, __m512 lo,
                                                   __m512 hi, float* o0) {
  const float* r[K];
#pragma GCC unroll 8
  for (int ky = 0; ky < K; ++ky) r[ky] = rows0[ky];
  const __m512 bias = _mm512_load_ps(wp);
  __m512 w[K * K];
#pragma GCC unroll 32
  for (int t = 0; t < K * K; ++t) w[t] = _mm512_load_ps(wp + kGroup * (t + 1));
  int x = x_lo;
  for (; x + kBlock16 <= x_hi; x += kBlock16) {
    Pixels16<K, kBlock16, S>(r, static_cast<size_t>(x * S - pad_left) * kGroup, w, bias, lo, hi,
                          o0 + static_cast<size_t>(x) * kGroup);
  }
  for (; x < x_hi; ++x) {
    Pixels16<K, 1, S>(r, static_cast<size_t>(x * S - pad_left) * kGroup, w, bias, lo, hi,
                   o0 + static_cast<size_t>(x) * kGroup);
  }
}

// NB pixel pairs of a flat row (channels = 8 mod 16, stride 1): P = C / 8
// registers per pair, all lanes used. Lane l of register v is channel
// (16 v + l) mod C of pixel 2 (v / P) + ...; per lane the same taps in the
// same order as Pixels (bias, kx outer, ky inner), so the same bits.
// `off`: the tap (kx 0) input offset of the first pixel; `fw`: flat_.
template <int K, int P, int NB>
__attribute__((target("avx512f"), always_inline)) inline void FlatPairs(
    const float* const* rows, size_t off, size_t c, const float* fw, __m512 lo, __m512 hi,
    float* out) {
  constexpr int V = P * NB;
  __m512 acc[V];
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) acc[v] = _mm512_loadu_ps(fw + kGroup * (v % P));
#pragma GCC unroll 8
  for (int kx = 0; kx < K; ++kx) {
#pragma GCC unroll 8
    for (int ky = 0; ky < K; ++ky) {
      const float* p = rows[ky] + off + kx * c;
      const float* wt = fw + kGroup * P * (1 + ky * K + kx);
#pragma GCC unroll 8
      for (int j = 0; j < P; ++j) {
        const __m512 w = _mm512_loadu_ps(wt + kGroup * j);
#pragma GCC unroll 16
        for (int b = 0; b < NB; ++b) {
          const int v = b * P + j;
          acc[v] = _mm512_fmadd_ps(_mm512_loadu_ps(p + kGroup * v), w, acc[v]);
        }
      }
    }
  }
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) {
    _mm512_storeu_ps(out + kGroup * v, _mm512_min_ps(_mm512_max_ps(acc[v], lo), hi));
  }
}

// The interior [x_lo, x_hi) of a flat row, pairs then a last odd pixel.
template <int K, int P, int NB>
__attribute__((target("avx512f"))) void FlatInterior(const DepthwiseShape& s, const float* fw,
                                                     const float* packed, __m512 lo, __m512 hi,
                                                     const float* const* rows0, int x_lo, int x_hi,
                                                     float* o0) {
  const size_t c = static_cast<size_t>(s.channels);
  int x = x_lo;
  for (; x + 2 * NB <= x_hi; x += 2 * NB) {
    FlatPairs<K, P, NB>(rows0, static_cast<size_t>(x - s.pad_left) * c, c, fw, lo, hi,
                        o0 + static_cast<size_t>(x) * c);
  }
  for (; x + 2 <= x_hi; x += 2) {
    FlatPairs<K, P, 1>(rows0, static_cast<size_t>(x - s.pad_left) * c, c, fw, lo, hi,
                       o0 + static_cast<size_t>(x) * c);
  }
  if (x < x_hi) {
    const int groups = (s.channels + kGroup - 1) / kGroup;
    for (int g = 0; g < groups; ++g) {
      const int left = s.channels - g * kGroup;
      const __mmask16 mask = static_cast<__mmask16>(left >= kGroup ? 0xffffu : ((1u << left) - 1));
      const size_t gofs = static_cast<size_t>(g) * kGroup;
      Pixels<K, 1>(rows0, static_cast<size_t>(x - s.pad_left) * c + gofs, c, 0,
                   packed + gofs * (K * K + 1), mask, lo, hi, o0 + static_cast<size_t>(x) * c + gofs);
    }
  }
}

// One output row `y`, all channels. Inside the image (every tap in range) the
// row is walked in blocks of kBlock pixels, all 16-channel groups of a block
// before the next block: consecutive groups read consecutive memory (NHWC),
// which the prefetchers follow. `rows0[ky]`: input row y * stride - pad_top
// + ky; only ky in [ky_lo, ky_hi) (the rows inside the image) are read.
// `o0`: output row y.
constexpr int kBlock = 8;
template <int K>
__attribute__((target("avx512f"))) void Row(const DepthwiseShape& s, const float* packed,
                                            const float* flat, int phases, float out_min,
                                            float out_max, bool fast, bool ky_blocks,
                                            bool pairs, const float* const* rows0, int ky_lo,
                                            int ky_hi, float* o0) {
  const size_t c = static_cast<size_t>(s.channels);
  const int groups = (s.channels + kGroup - 1) / kGroup;
  const __m512 lo = _mm512_set1_ps(out_min), hi = _mm512_set1_ps(out_max);
  const bool full_rows = ky_lo == 0 && ky_hi == K;
  // Output columns whose taps are all inside the image horizontally.
  const int x_lo = std::min(s.out_w, (s.pad_left + s.stride_w - 1) / s.stride_w);
  const int room = s.in_w - K + s.pad_left;
  // Rows whose taps reach above or below the image: their interior columns
  // in blocks too (InteriorKy) when the groups are whole, else edge pixels.
  const bool interior_ky = !full_rows && ky_blocks && fast && s.channels % kGroup == 0;
  const int x_hi = (!full_rows && !interior_ky) || room < 0
                       ? x_lo
                       : std::max(x_lo, std::min(s.out_w, room / s.stride_w + 1));
  // Several whole groups: their edge pixels side by side (EdgeGroups).
  const int full = s.channels / kGroup;
  const int first_g = fast && full >= 2 ? full : 0;
  if (first_g > 0) {
    for (int x = 0; x < x_lo; ++x) {
      EdgeAllGroups<K>(s, x, ky_lo, ky_hi, rows0, packed, full, lo, hi, o0);
    }
    for (int x = x_hi == x_lo ? x_lo : x_hi; x < s.out_w; ++x) {
      EdgeAllGroups<K>(s, x, ky_lo, ky_hi, rows0, packed, full, lo, hi, o0);
    }
  }
  for (int g = first_g; g < groups; ++g) {
    const int left = s.channels - g * kGroup;
    const __mmask16 mask = static_cast<__mmask16>(left >= kGroup ? 0xffffu : ((1u << left) - 1));
    const float* wp = packed + static_cast<size_t>(g) * kGroup * (K * K + 1);
    const __m512 bias = _mm512_load_ps(wp);
    __m512 w[K * K];
#pragma GCC unroll 32
    for (int t = 0; t < K * K; ++t) w[t] = _mm512_load_ps(wp + kGroup * (t + 1));
    const float* rows[K];
#pragma GCC unroll 8
    for (int ky = 0; ky < K; ++ky) rows[ky] = rows0[ky] + static_cast<size_t>(g) * kGroup;
    float* o = o0 + static_cast<size_t>(g) * kGroup;
    for (int x = 0; x < x_lo; ++x) Edge<K>(s, x, ky_lo, ky_hi, rows, w, bias, lo, hi, mask, o);
    for (int x = x_hi == x_lo ? x_lo : x_hi; x < s.out_w; ++x) {
      Edge<K>(s, x, ky_lo, ky_hi, rows, w, bias, lo, hi, mask, o);
    }
  }
  if (interior_ky) {
    if (x_hi > x_lo) InteriorKy<K>(s, packed, rows0, ky_lo, ky_hi, x_lo, x_hi, lo, hi, pairs, o0);
    return;
  }
  if (s.channels == kGroup && s.stride_w <= 2 && x_hi > x_lo && fast) {
    if (s.stride_w == 1) {
      Interior16<K, 1>(rows0, x_lo, x_hi, s.pad_left, packed, lo, hi, o0);
    } else {
      Interior16<K, 2>(rows0, x_lo, x_hi, s.pad_left, packed, lo, hi, o0);
    }
    return;
  }
  if (flat && x_hi > x_lo) {
    if (phases == 1) {
      FlatInterior<K, 1, 8>(s, flat, packed, lo, hi, rows0, x_lo, x_hi, o0);
    } else if (phases == 3) {
      FlatInterior<K, 3, 4>(s, flat, packed, lo, hi, rows0, x_lo, x_hi, o0);
    } else {
      FlatInterior<K, 5, 2>(s, flat, packed, lo, hi, rows0, x_lo, x_hi, o0);
    }
    return;
  }
  // The interior, block by block: kBlock pixels at a time, each with its
  // own accumulator, so that the FMA chains (one per pixel, in XNNPACK's
  // order) overlap instead of waiting on each other's latency.
  for (int xb = x_lo; xb < x_hi; xb += kBlock) {
    const int n = std::min(x_hi - xb, kBlock);
    int g = 0;
    for (; pairs && fast && g + 2 <= full; g += 2) {  // whole groups two at a time
      PairBlock<K>(s, packed, rows0, xb, g, n, lo, hi, o0, 0, K);
    }
    for (; g < groups; ++g) {
      const int left = s.channels - g * kGroup;
      const __mmask16 mask = static_cast<__mmask16>(left >= kGroup ? 0xffffu : ((1u << left) - 1));
      const float* wp = packed + static_cast<size_t>(g) * kGroup * (K * K + 1);
      const size_t gofs = static_cast<size_t>(g) * kGroup;
      const size_t off = static_cast<size_t>(xb * s.stride_w - s.pad_left) * c + gofs;
      float* o = o0 + static_cast<size_t>(xb) * c + gofs;
      if (n == kBlock && fast && mask == 0xffff) {
        Pixels<K, kBlock, true>(rows0, off, c, s.stride_w * c, wp, mask, lo, hi, o);
      } else if (n == kBlock) {
        Pixels<K, kBlock>(rows0, off, c, s.stride_w * c, wp, mask, lo, hi, o);
      } else {
        // A last block of 4 first: at 16x16 (5x5, 12 interior pixels) the
        // single pixels' dependent FMA chains took as long as the block of 8.
        int i = 0;
        if (n >= 4 && fast) {
          Pixels<K, 4>(rows0, off, c, s.stride_w * c, wp, mask, lo, hi, o);
          i = 4;
        }
        for (; i < n; ++i) {
          Pixels<K, 1>(rows0, off + i * s.stride_w * c, c, 0, wp, mask, lo, hi, o + i * c);
        }
      }
    }
  }
}

#endif

#if SLUICE_DEPTHWISE_AVX512
__attribute__((target("avx512f"))) void AddRowAvx512(const float* r, float lo, float hi, size_t n,
                                              float* out) {
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  size_t i = 0;
  for (; i + kGroup <= n; i += kGroup) {
    const __m512 v = _mm512_add_ps(_mm512_loadu_ps(out + i), _mm512_loadu_ps(r + i));
    _mm512_storeu_ps(out + i, _mm512_min_ps(_mm512_max_ps(v, vlo), vhi));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 v =
        _mm512_add_ps(_mm512_maskz_loadu_ps(m, out + i), _mm512_maskz_loadu_ps(m, r + i));
    _mm512_mask_storeu_ps(out + i, m, _mm512_min_ps(_mm512_max_ps(v, vlo), vhi));
  }
}
#endif

}  // namespace

void ClampAddRow(const float* r, float lo, float hi, size_t n, float* out) {
#if SLUICE_DEPTHWISE_AVX512
  AddRowAvx512(r, lo, hi, n, out);
#else
  for (size_t i = 0; i < n; ++i) out[i] = std::min(std::max(out[i] + r[i], lo), hi);
#endif
}

bool DepthwiseConv::Supports(const DepthwiseShape& s) {
  return PointwiseConvAvailable() && (s.kernel == 3 || s.kernel == 5) && s.channels > 0 &&
         s.stride_h >= 1 && s.stride_w >= 1 && s.pad_top >= 0 && s.pad_left >= 0 &&
         s.pad_top < s.kernel && s.pad_left < s.kernel && s.out_h > 0 && s.out_w > 0;
}

DepthwiseConv::DepthwiseConv(const DepthwiseShape& s, const float* weights, const float* bias,
                             float out_min, float out_max)
    : s_(s), min_(out_min), max_(out_max) {
  const int groups = (s.channels + kGroup - 1) / kGroup;
  const int taps = s.kernel * s.kernel;
  const size_t group_floats = static_cast<size_t>(kGroup) * (taps + 1);
  storage_.assign(groups * group_floats + 16, 0.0f);
  const uintptr_t p = reinterpret_cast<uintptr_t>(storage_.data());
  packed_ = reinterpret_cast<float*>((p + 63) & ~uintptr_t{63});
  for (int ch = 0; ch < s.channels; ++ch) {
    float* dst = packed_ + (ch / kGroup) * group_floats + ch % kGroup;
    dst[0] = bias ? bias[ch] : 0.0f;
    for (int t = 0; t < taps; ++t) dst[kGroup * (t + 1)] = weights[t * s.channels + ch];
  }
  const char* fast = std::getenv("SLUICE_XNNPACK_DW16");
  fast_ = !(fast && *fast == '0');
  const char* ky = std::getenv("SLUICE_XNNPACK_DW_KY_BLOCKS");
  ky_blocks_ = !(ky && *ky == '0');
  const char* pairs = std::getenv("SLUICE_XNNPACK_DW_PAIRS");
  pairs_ = !(pairs && *pairs == '0');
  // SLUICE_XNNPACK_DW_FLAT=0: 16-channel groups only (for A/B).
  static const bool flat_on = [] {
    const char* e = std::getenv("SLUICE_XNNPACK_DW_FLAT");
    return !(e && *e == '0');
  }();
  if (flat_on && s.stride_w == 1 && s.channels % kGroup == 8 && s.channels <= 40) {
    phases_ = s.channels / 8;
    flat_.assign(static_cast<size_t>(taps + 1) * phases_ * kGroup, 0.0f);
    for (int t = 0; t <= taps; ++t) {
      for (int i = 0; i < phases_ * kGroup; ++i) {
        const int ch = i % s.channels;
        flat_[static_cast<size_t>(t) * phases_ * kGroup + i] =
            packed_[(ch / kGroup) * group_floats + ch % kGroup + kGroup * t];
      }
    }
  }
}

void DepthwiseConv::InputRows(const float* in, int y, const float** rows) const {
  const size_t row_floats = static_cast<size_t>(s_.in_w) * s_.channels;
  const int iy0 = y * s_.stride_h - s_.pad_top;
  for (int ky = 0; ky < s_.kernel; ++ky) {
    const int iy = std::min(std::max(iy0 + ky, 0), s_.in_h - 1);  // clamped; unused if out
    rows[ky] = in + static_cast<size_t>(iy) * row_floats;
  }
}

void DepthwiseConv::Run(const float* in, float* out, int row_begin, int row_end) const {
  const float* rows[5];
  for (int y = row_begin; y < row_end; ++y) {
    InputRows(in, y, rows);
    RunRow(rows, y, out + static_cast<size_t>(y) * s_.out_w * s_.channels);
  }
}

void DepthwiseConv::SetResidualAdd(float add_min, float add_max) {
  has_residual_ = true;
  add_min_ = add_min, add_max_ = add_max;
}

void DepthwiseConv::Run(const float* in, const float* residual, float* out, int row_begin,
                        int row_end) const {
  if (!has_residual_) {
    Run(in, out, row_begin, row_end);
    return;
  }
  const size_t out_row = static_cast<size_t>(s_.out_w) * s_.channels;
  const float* rows[5];
  for (int y = row_begin; y < row_end; ++y) {
    InputRows(in, y, rows);
    const size_t at = static_cast<size_t>(y) * out_row;
    RunRowAdd(rows, residual + at, y, out + at);
  }
}

void DepthwiseConv::RunRowAdd(const float* const* rows, const float* residual_row, int y,
                              float* out_row) const {
  RunRow(rows, y, out_row);
#if SLUICE_DEPTHWISE_AVX512
  ClampAddRow(residual_row, add_min_, add_max_, static_cast<size_t>(s_.out_w) * s_.channels,
              out_row);
#else
  (void)residual_row;
#endif
}

void DepthwiseConv::RunRow(const float* const* rows, int y, float* out_row) const {
#if SLUICE_DEPTHWISE_AVX512
  const int iy0 = y * s_.stride_h - s_.pad_top;
  const int ky_lo = std::max(0, -iy0), ky_hi = std::min(s_.kernel, s_.in_h - iy0);
  const float* flat = flat_.empty() ? nullptr : flat_.data();
  if (s_.kernel == 3) {
    Row<3>(s_, packed_, flat, phases_, min_, max_, fast_, ky_blocks_, pairs_, rows, ky_lo, ky_hi,
           out_row);
  } else {
    Row<5>(s_, packed_, flat, phases_, min_, max_, fast_, ky_blocks_, pairs_, rows, ky_lo, ky_hi,
           out_row);
  }
#else
  (void)rows, (void)y, (void)out_row;
#endif
}

}  // namespace sluice::inference::xnn
