#include "inference/xnnpack/gemv_conv.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_GEMV_AVX512 1
#else
#define SLUICE_GEMV_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

constexpr int kLanes = 16;
constexpr int kRegs = GemvConv::kBlock / kLanes;  // 8 accumulators: 2 FMAs a cycle

#if SLUICE_GEMV_AVX512
__attribute__((target("avx512f,f16c"))) uint16_t ToHalf(float v) {
  return static_cast<uint16_t>(_cvtss_sh(v, _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("avx512f,f16c"))) float FromHalf(uint16_t h) { return _cvtsh_ss(h); }

__attribute__((target("avx512f"))) void Blocks(int k, int n, const uint16_t* w16,
                                               const float* bias, float lo, float hi,
                                               const float* in, float* out, int b0, int b1) {
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (int b = b0; b < b1; ++b) {
    const int j0 = b * kRegs;  // first 16-output group
    __m512 acc[kRegs];
    const uint16_t* w[kRegs];
#pragma GCC unroll 8
    for (int r = 0; r < kRegs; ++r) {
      acc[r] = _mm512_loadu_ps(bias + (j0 + r) * kLanes);
      w[r] = w16 + static_cast<size_t>(j0 + r) * k * kLanes;
    }
    for (int i = 0; i < k; ++i) {
      const __m512 x = _mm512_set1_ps(in[i]);
#pragma GCC unroll 8
      for (int r = 0; r < kRegs; ++r) {
        const auto* row = reinterpret_cast<const __m256i*>(w[r] + static_cast<size_t>(i) * kLanes);
        const __m256i h = _mm256_loadu_si256(row);
        acc[r] = _mm512_fmadd_ps(x, _mm512_cvtph_ps(h), acc[r]);
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRegs; ++r) {
      const int first = (j0 + r) * kLanes;
      if (first >= n) break;
      const int valid = std::min(kLanes, n - first);
      const __mmask16 m = static_cast<__mmask16>((1u << valid) - 1);
      _mm512_mask_storeu_ps(out + first, m, _mm512_min_ps(_mm512_max_ps(acc[r], vlo), vhi));
    }
  }
}
#endif

}  // namespace

bool GemvConv::Supports(const float* weights, size_t count) {
#if SLUICE_GEMV_AVX512
  if (!PointwiseConvAvailable()) return false;
  for (size_t i = 0; i < count; ++i) {
    const float v = weights[i];
    const float back = FromHalf(ToHalf(v));
    if (std::isnan(v) || std::memcmp(&back, &v, sizeof(v)) != 0) return false;
  }
  return true;
#else
  (void)weights, (void)count;
  return false;
#endif
}

GemvConv::GemvConv(int k, int n, const float* weights, const float* bias, float out_min,
                   float out_max)
    : k_(k), n_(n), min_(out_min), max_(out_max) {
  const int groups = blocks() * kRegs;
  w16_.assign(static_cast<size_t>(groups) * k * kLanes, 0);
  bias_.assign(static_cast<size_t>(groups) * kLanes, 0.0f);
#if SLUICE_GEMV_AVX512
  for (int o = 0; o < n; ++o) {
    const int j = o / kLanes, lane = o % kLanes;
    for (int i = 0; i < k; ++i) {
      w16_[(static_cast<size_t>(j) * k + i) * kLanes + lane] =
          ToHalf(weights[static_cast<size_t>(o) * k + i]);
    }
    if (bias) bias_[o] = bias[o];
  }
#else
  (void)weights, (void)bias;
#endif
}

void GemvConv::Run(const float* in, float* out, int block_begin, int block_end) const {
#if SLUICE_GEMV_AVX512
  Blocks(k_, n_, w16_.data(), bias_.data(), min_, max_, in, out, block_begin, block_end);
#else
  (void)in, (void)out, (void)block_begin, (void)block_end;
#endif
}

}  // namespace sluice::inference::xnn
