#include "inference/xnnpack/hard_swish.h"

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_HSWISH_AVX512 1
#else
#define SLUICE_HSWISH_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

#if SLUICE_HSWISH_AVX512
__attribute__((target("avx512f"), always_inline)) inline __m512 HardSwish(__m512 x) {
  // XNNPACK's f32-vhswish avx512f: one fused multiply-add, clamp, product.
  __m512 v = _mm512_fmadd_ps(x, _mm512_set1_ps(0x1.555556p-3f), _mm512_set1_ps(0.5f));
  v = _mm512_max_ps(v, _mm512_setzero_ps());
  v = _mm512_min_ps(v, _mm512_set1_ps(1.0f));
  return _mm512_mul_ps(v, x);
}

__attribute__((target("avx512f"))) void Run(float* x, size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 a = HardSwish(_mm512_loadu_ps(x + i));
    const __m512 b = HardSwish(_mm512_loadu_ps(x + i + 16));
    const __m512 c = HardSwish(_mm512_loadu_ps(x + i + 32));
    const __m512 d = HardSwish(_mm512_loadu_ps(x + i + 48));
    _mm512_storeu_ps(x + i, a);
    _mm512_storeu_ps(x + i + 16, b);
    _mm512_storeu_ps(x + i + 32, c);
    _mm512_storeu_ps(x + i + 48, d);
  }
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, HardSwish(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(x + i, m, HardSwish(_mm512_maskz_loadu_ps(m, x + i)));
  }
}
#endif

}  // namespace

bool HardSwishAvailable() { return SLUICE_HSWISH_AVX512 && PointwiseConvAvailable(); }

void HardSwishInPlace(float* x, size_t n) {
#if SLUICE_HSWISH_AVX512
  Run(x, n);
#else
  (void)x, (void)n;
#endif
}

void HardSwishInPlace(float* x, size_t rows, size_t stride, size_t cols) {
  if (cols == stride) return HardSwishInPlace(x, rows * cols);
  for (size_t r = 0; r < rows; ++r) HardSwishInPlace(x + r * stride, cols);
}

}  // namespace sluice::inference::xnn
