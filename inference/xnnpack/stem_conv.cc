#include "inference/xnnpack/stem_conv.h"

#include <algorithm>
#include <cstring>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_STEM_AVX512 1
#else
#define SLUICE_STEM_AVX512 0
#endif

namespace sluice::inference::xnn {

constexpr int kLanes = 16;

bool StemConv::Supports(const StemConvShape& s) {
  return PointwiseConvAvailable() && s.channels >= 1 && s.channels <= 4 && s.out_channels >= 1 &&
         s.out_channels <= 64 && s.kernel_h >= 1 && s.kernel_h <= 7 && s.kernel_w >= 1 &&
         s.kernel_w <= 7 && s.kernel_h * s.kernel_w > 1 && s.stride_h >= 1 && s.stride_h <= 2 &&
         s.stride_w >= 1 && s.stride_w <= 2 && s.pad_top >= 0 && s.pad_left >= 0 &&
         s.pad_top < s.kernel_h && s.pad_left < s.kernel_w && s.out_h > 0 && s.out_w > 0 &&
         s.in_h > 0 && s.in_w > 0;
}

StemConv::StemConv(const StemConvShape& s, const float* weights, const float* bias,
                   float out_min, float out_max)
    : s_(s), min_(out_min), max_(out_max) {
  blocks_ = (s.out_channels + kLanes - 1) / kLanes;
  const int width = blocks_ * kLanes;
  const int taps = s.kernel_h * s.kernel_w * s.channels;
  packed_.assign(static_cast<size_t>(width) * (1 + taps), 0.0f);
  for (int o = 0; o < s.out_channels; ++o) {
    packed_[o] = bias ? bias[o] : 0.0f;
    for (int t = 0; t < taps; ++t) packed_[static_cast<size_t>(width) * (1 + t) + o] = weights[o * taps + t];
  }
  // Every position a tap of an output reads, the borders zero.
  padded_h_ = static_cast<size_t>((s.out_h - 1) * s.stride_h + s.kernel_h);
  padded_w_ = static_cast<size_t>((s.out_w - 1) * s.stride_w + s.kernel_w);
  padded_h_ = std::max(padded_h_, static_cast<size_t>(s.in_h + s.pad_top));
  padded_w_ = std::max(padded_w_, static_cast<size_t>(s.in_w + s.pad_left));
  padded_.assign(padded_h_ * padded_w_ * s.channels, 0.0f);
}

void StemConv::Stage(const float* in, int row_begin, int row_end) const {
  const size_t c = static_cast<size_t>(s_.channels);
  for (int y = row_begin; y < row_end; ++y) {
    std::memcpy(padded_.data() + ((y + s_.pad_top) * padded_w_ + s_.pad_left) * c,
                in + static_cast<size_t>(y) * s_.in_w * c, s_.in_w * c * sizeof(float));
  }
}

#if SLUICE_STEM_AVX512
namespace {

// N output pixels of one row (N a constant, so the accumulators stay in
// registers), all B channel blocks.
template <int B, int N>
__attribute__((target("avx512f"))) inline void Pixels(const StemConvShape& s, const float* packed,
                                                      const float* padded, size_t padded_w,
                                                      int oy, int ox, __m512 lo, __m512 hi,
                                                      __mmask16 last, float* out) {
  const int c = s.channels;
  const size_t step = static_cast<size_t>(s.stride_w) * c;  // between adjacent pixels
  __m512 acc[N][B];
  for (int b = 0; b < B; ++b) {
    const __m512 bias = _mm512_loadu_ps(packed + b * kLanes);
    for (int p = 0; p < N; ++p) acc[p][b] = bias;
  }
  const float* w = packed + B * kLanes;
  for (int ky = 0; ky < s.kernel_h; ++ky) {
    const float* row = padded + ((static_cast<size_t>(oy) * s.stride_h + ky) * padded_w +
                                 static_cast<size_t>(ox) * s.stride_w) * c;
    for (int kx = 0; kx < s.kernel_w; ++kx, row += c) {
      for (int ch = 0; ch < c; ++ch, w += B * kLanes) {
        __m512 wv[B];
        for (int b = 0; b < B; ++b) wv[b] = _mm512_loadu_ps(w + b * kLanes);
        for (int p = 0; p < N; ++p) {
          const __m512 x = _mm512_set1_ps(row[p * step + ch]);
          for (int b = 0; b < B; ++b) acc[p][b] = _mm512_fmadd_ps(x, wv[b], acc[p][b]);
        }
      }
    }
  }
  for (int p = 0; p < N; ++p) {
    float* o = out + (static_cast<size_t>(oy) * s.out_w + ox + p) * s.out_channels;
    for (int b = 0; b < B; ++b) {
      const __m512 v = _mm512_min_ps(_mm512_max_ps(acc[p][b], lo), hi);
      _mm512_mask_storeu_ps(o + b * kLanes, b == B - 1 ? last : static_cast<__mmask16>(0xffff), v);
    }
  }
}

template <int B>
__attribute__((target("avx512f"))) void Rows(const StemConvShape& s, const float* packed,
                                             const float* padded, size_t padded_w, float lo_f,
                                             float hi_f, float* out, int row_begin, int row_end) {
  constexpr int kTile = B <= 2 ? 6 : 3;  // 12 accumulators at most
  const __m512 lo = _mm512_set1_ps(lo_f), hi = _mm512_set1_ps(hi_f);
  const int tail = s.out_channels - (B - 1) * kLanes;
  const __mmask16 last = static_cast<__mmask16>((1u << tail) - 1);
  for (int oy = row_begin; oy < row_end; ++oy) {
    int ox = 0;
    for (; ox + kTile <= s.out_w; ox += kTile) {
      Pixels<B, kTile>(s, packed, padded, padded_w, oy, ox, lo, hi, last, out);
    }
    for (; ox < s.out_w; ++ox) Pixels<B, 1>(s, packed, padded, padded_w, oy, ox, lo, hi, last, out);
  }
}

}  // namespace

void StemConv::Compute(float* out, int row_begin, int row_end) const {
  switch (blocks_) {
    case 1: return Rows<1>(s_, packed_.data(), padded_.data(), padded_w_, min_, max_, out, row_begin, row_end);
    case 2: return Rows<2>(s_, packed_.data(), padded_.data(), padded_w_, min_, max_, out, row_begin, row_end);
    case 3: return Rows<3>(s_, packed_.data(), padded_.data(), padded_w_, min_, max_, out, row_begin, row_end);
    default: return Rows<4>(s_, packed_.data(), padded_.data(), padded_w_, min_, max_, out, row_begin, row_end);
  }
}
#else
void StemConv::Compute(float*, int, int) const {}
#endif

}  // namespace sluice::inference::xnn
