#include "inference/xnnpack/conv2x2.h"

#include <cstddef>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_CONV2X2_AVX512 1
#else
#define SLUICE_CONV2X2_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

#if SLUICE_CONV2X2_AVX512
struct Epilogue {
  float lo, hi, lo2, hi2;
  const float *slope, *scale, *bias;  // slope null: no PRELU + scale
  // The same on the input (SetInputPreluScale; islope null: none).
  float ilo, ihi;
  const float *islope, *iscale, *ibias;
};

// n floats (a multiple of 16) of kI-channel pixels from src, each as
// PreluScaleRange does it, to dst.
template <int kI>
__attribute__((target("avx512f"))) inline void StageInput(const float* src, float* dst, int n,
                                                          const Epilogue& e) {
  const __m512 lo = _mm512_set1_ps(e.ilo), hi = _mm512_set1_ps(e.ihi);
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  for (int i = 0; i < n; i += 16) {
    const int c = i % kI;
    __m512 v = _mm512_loadu_ps(src + i);
    const __mmask16 neg = _mm512_test_epi32_mask(_mm512_castps_si512(v), sign);
    v = _mm512_mask_mul_ps(v, neg, v, _mm512_loadu_ps(e.islope + c));
    v = _mm512_add_ps(_mm512_mul_ps(v, _mm512_loadu_ps(e.iscale + c)),
                      _mm512_loadu_ps(e.ibias + c));
    _mm512_store_ps(dst + i, _mm512_min_ps(_mm512_max_ps(v, lo), hi));
  }
}

// R output pixels of row oy from ox on, kI input channels, kC output
// channels (kC / 16 registers a pixel).
template <int kI, int kC, int R>
__attribute__((target("avx512f"))) inline void Pixels(const Conv2x2Shape& s, const float* packed,
                                                      const float* in, int oy, int ox,
                                                      const Epilogue& e, float* out) {
  constexpr int kB = kC / 16;
  __m512 acc[R][kB];
#pragma GCC unroll 16
  for (int p = 0; p < R; ++p) {
#pragma GCC unroll 2
    for (int b = 0; b < kB; ++b) acc[p][b] = _mm512_loadu_ps(packed + 16 * b);
  }
  const float* w = packed + kC;
  const size_t row = static_cast<size_t>(s.in_w) * kI;
  // The input with its PRELU -> DEPTHWISE 1x1 applied (each input is read
  // by one output pixel only: no work repeated).
  alignas(64) float staged[2][2 * R * kI];
  for (int ky = 0; ky < 2; ++ky) {
    const float* r =
        in + (2 * static_cast<size_t>(oy) + ky) * row + 2 * static_cast<size_t>(ox) * kI;
    if (e.islope) {
      StageInput<kI>(r, staged[ky], 2 * R * kI, e);
      r = staged[ky];
    }
    for (int kx = 0; kx < 2; ++kx) {
      const float* x = r + kx * kI;
#pragma GCC unroll 4
      for (int k = 0; k < kI; ++k, w += kC) {
        __m512 wv[kB];
#pragma GCC unroll 2
        for (int b = 0; b < kB; ++b) wv[b] = _mm512_loadu_ps(w + 16 * b);
#pragma GCC unroll 16
        for (int p = 0; p < R; ++p) {
          const __m512 xv = _mm512_set1_ps(x[2 * p * kI + k]);
#pragma GCC unroll 2
          for (int b = 0; b < kB; ++b) acc[p][b] = _mm512_fmadd_ps(xv, wv[b], acc[p][b]);
        }
      }
    }
  }
  const __m512 lo = _mm512_set1_ps(e.lo), hi = _mm512_set1_ps(e.hi);
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  float* o = out + (static_cast<size_t>(oy) * s.out_w + ox) * kC;
#pragma GCC unroll 16
  for (int p = 0; p < R; ++p) {
#pragma GCC unroll 2
    for (int b = 0; b < kB; ++b) {
      __m512 v = _mm512_min_ps(_mm512_max_ps(acc[p][b], lo), hi);
      if (e.slope) {  // as PreluScaleRange
        const __mmask16 neg = _mm512_test_epi32_mask(_mm512_castps_si512(v), sign);
        v = _mm512_mask_mul_ps(v, neg, v, _mm512_loadu_ps(e.slope + 16 * b));
        v = _mm512_add_ps(_mm512_mul_ps(v, _mm512_loadu_ps(e.scale + 16 * b)),
                          _mm512_loadu_ps(e.bias + 16 * b));
        v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(e.lo2)), _mm512_set1_ps(e.hi2));
      }
      _mm512_storeu_ps(o + p * kC + 16 * b, v);
    }
  }
}

template <int kI, int kC>
__attribute__((target("avx512f"))) void Rows(const Conv2x2Shape& s, const float* packed,
                                             const float* in, const Epilogue& e, float* out,
                                             int row_begin, int row_end) {
  constexpr int kR = kC == 16 ? 16 : 8;
  for (int oy = row_begin; oy < row_end; ++oy) {
    int ox = 0;
    for (; ox + kR <= s.out_w; ox += kR) Pixels<kI, kC, kR>(s, packed, in, oy, ox, e, out);
    for (; ox + 4 <= s.out_w; ox += 4) Pixels<kI, kC, 4>(s, packed, in, oy, ox, e, out);
    for (; ox < s.out_w; ++ox) Pixels<kI, kC, 1>(s, packed, in, oy, ox, e, out);
  }
}
#endif

}  // namespace

bool Conv2x2::Supports(const Conv2x2Shape& s) {
  const int i = s.channels, o = s.OutChannels();
  return PointwiseConvAvailable() &&
         ((i == 16 && o == 16) || (i == 32 && o == 32) || (i == 64 && (o == 32 || o == 16))) &&
         s.out_h > 0 &&
         s.out_w > 0 && s.out_h == s.in_h / 2 && s.out_w == s.in_w / 2;
}

Conv2x2::Conv2x2(const Conv2x2Shape& s, const float* weights, const float* bias, float lo,
                 float hi)
    : s_(s), lo_(lo), hi_(hi) {
  const int ci = s.channels, c = s.OutChannels();
  packed_.assign(static_cast<size_t>(c) * (1 + 4 * ci), 0.0f);
  for (int o = 0; o < c; ++o) packed_[o] = bias ? bias[o] : 0.0f;
  for (int t = 0; t < 4; ++t) {
    for (int k = 0; k < ci; ++k) {
      for (int o = 0; o < c; ++o) {
        packed_[c + (static_cast<size_t>(t) * ci + k) * c + o] =
            weights[(static_cast<size_t>(o) * 4 + t) * ci + k];
      }
    }
  }
}

void Conv2x2::SetPreluScale(const float* slope, const float* scale, const float* bias, float lo,
                            float hi) {
  const int c = s_.OutChannels();
  slope_.assign(slope, slope + c);
  scale_.assign(scale, scale + c);
  bias2_.assign(c, 0.0f);
  if (bias) bias2_.assign(bias, bias + c);
  lo2_ = lo, hi2_ = hi;
  prelu_scale_ = true;
}

void Conv2x2::SetInputPreluScale(const float* slope, const float* scale, const float* bias,
                                 float lo, float hi) {
  const int c = s_.channels;
  in_slope_.assign(slope, slope + c);
  in_scale_.assign(scale, scale + c);
  in_bias_.assign(c, 0.0f);
  if (bias) in_bias_.assign(bias, bias + c);
  in_lo_ = lo, in_hi_ = hi;
}

void Conv2x2::Run(const float* in, float* out, int row_begin, int row_end) const {
#if SLUICE_CONV2X2_AVX512
  const Epilogue e{lo_,         hi_,           lo2_,
                   hi2_,        prelu_scale_ ? slope_.data() : nullptr,
                   scale_.data(), bias2_.data(), in_lo_, in_hi_,
                   in_slope_.empty() ? nullptr : in_slope_.data(),
                   in_scale_.data(), in_bias_.data()};
  const float* w = packed_.data();
  const int o = s_.OutChannels();
  if (s_.channels == 16) {
    Rows<16, 16>(s_, w, in, e, out, row_begin, row_end);
  } else if (s_.channels == 32) {
    Rows<32, 32>(s_, w, in, e, out, row_begin, row_end);
  } else if (o == 32) {
    Rows<64, 32>(s_, w, in, e, out, row_begin, row_end);
  } else {
    Rows<64, 16>(s_, w, in, e, out, row_begin, row_end);
  }
#else
  (void)in, (void)out, (void)row_begin, (void)row_end;
#endif
}

}  // namespace sluice::inference::xnn
