#include "inference/xnnpack/upsample_conv.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "inference/xnnpack/avx512_transpose.h"
#define SLUICE_UPSAMPLE_AVX512 1
#else
#define SLUICE_UPSAMPLE_AVX512 0
#endif

namespace sluice::inference::xnn {

constexpr int kLanes = 16;
constexpr int kMaxChannels = 64;  // weights stay in L1; the models have 16

bool UpsampleConv::Supports(const UpsampleConvShape& s) {
  return PointwiseConvAvailable() && s.channels >= 1 && s.channels <= kMaxChannels &&
         s.in_h > 0 && s.in_w > 0;
}

UpsampleConv::UpsampleConv(const UpsampleConvShape& s, const float* weights, const float* bias)
    : s_(s), bias_(bias ? bias[0] : 0.0f), weights_(weights, weights + 4 * s.channels) {
  const char* e = std::getenv("SLUICE_XNNPACK_UPSAMPLE_T");
  transpose_ = !(e && std::strcmp(e, "0") == 0);
}

#if SLUICE_UPSAMPLE_AVX512
void UpsampleConv::Run(const float* in, float* out, int row_begin, int row_end) const {
  for (int y = row_begin; y < row_end; ++y) {
    RunRow(in + static_cast<size_t>(y) * s_.in_w * s_.channels, out, y);
  }
}

__attribute__((target("avx512f"))) void UpsampleConv::RunRow(const float* in_row, float* out,
                                                             int y) const {
  const int c = s_.channels;
  const size_t out_w = 2 * static_cast<size_t>(s_.in_w);
  const __m512i gather = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(c));
  // Interleave pixel i's kx = 0 and kx = 1 results: lanes 0..15 of the pair
  // (a, b) give a0 b0 a1 b1 ... a7 b7, then a8 b8 ... a15 b15.
  const __m512i lo_index = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi_index =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const float* w = weights_.data();  // [ky * 2 + kx][c]
  {
    const float* row = in_row;
    float* o0 = out + static_cast<size_t>(2 * y) * out_w;
    float* o1 = o0 + out_w;
    for (int x = 0; x < s_.in_w; x += kLanes) {
      const int n = std::min(kLanes, s_.in_w - x);
      const __mmask16 m = static_cast<__mmask16>((1u << n) - 1);
      // XNNPACK's order (see the header): per output, four partial sums
      // over channels c = j mod 4, each a product rounded then added, the
      // bias in sum 0; then (s0 + s2) + (s1 + s3).
      __m512 acc[4][4];
      for (int k = 0; k < 4; ++k) {
        acc[k][0] = _mm512_set1_ps(bias_);
        acc[k][1] = acc[k][2] = acc[k][3] = _mm512_setzero_ps();
      }
      const float* p = row + static_cast<size_t>(x) * c;
      if (c == kLanes && n == kLanes && transpose_) {
        // 16 whole pixels of 16 channels: the same sums on transposed loads.
        __m512 r[kLanes], v[kLanes];
        for (int i = 0; i < kLanes; ++i) r[i] = _mm512_loadu_ps(p + i * kLanes);
        Transpose16x16(r, v);
        for (int ch0 = 0; ch0 < kLanes; ch0 += 4) {
#pragma GCC unroll 4
          for (int j = 0; j < 4; ++j) {
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
              const __m512 wk = _mm512_set1_ps(w[k * c + ch0 + j]);
              acc[k][j] = _mm512_add_ps(acc[k][j], _mm512_mul_ps(v[ch0 + j], wk));
            }
          }
        }
      }
      for (int ch0 = 0; ch0 < c && !(c == kLanes && n == kLanes && transpose_); ch0 += 4) {
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {  // constant indices keep acc in registers
          const int ch = ch0 + j;
          if (ch >= c) break;
          const __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, gather, p + ch, 4);
#pragma GCC unroll 4
          for (int k = 0; k < 4; ++k) {
            acc[k][j] =
                _mm512_add_ps(acc[k][j], _mm512_mul_ps(v, _mm512_set1_ps(w[k * c + ch])));
          }
        }
      }
      __m512 sum[4];
      for (int k = 0; k < 4; ++k) {
        sum[k] = _mm512_add_ps(_mm512_add_ps(acc[k][0], acc[k][2]),
                               _mm512_add_ps(acc[k][1], acc[k][3]));
      }
      const __m512 a00 = sum[0], a01 = sum[1], a10 = sum[2], a11 = sum[3];
      // 2n output floats per output row: the first 16 from pixels 0..7.
      const int outs = 2 * n;
      const __mmask16 m_lo = static_cast<__mmask16>(outs >= 16 ? 0xFFFF : (1u << outs) - 1);
      const __mmask16 m_hi = static_cast<__mmask16>(outs > 16 ? (1u << (outs - 16)) - 1 : 0);
      float* d0 = o0 + 2 * static_cast<size_t>(x);
      float* d1 = o1 + 2 * static_cast<size_t>(x);
      _mm512_mask_storeu_ps(d0, m_lo, _mm512_permutex2var_ps(a00, lo_index, a01));
      _mm512_mask_storeu_ps(d1, m_lo, _mm512_permutex2var_ps(a10, lo_index, a11));
      if (m_hi) {
        _mm512_mask_storeu_ps(d0 + 16, m_hi, _mm512_permutex2var_ps(a00, hi_index, a01));
        _mm512_mask_storeu_ps(d1 + 16, m_hi, _mm512_permutex2var_ps(a10, hi_index, a11));
      }
    }
  }
}
#else
void UpsampleConv::Run(const float*, float*, int, int) const {}
void UpsampleConv::RunRow(const float*, float*, int) const {}
#endif

}  // namespace sluice::inference::xnn
