#include "inference/xnnpack/gated_add.h"

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_GATED_AVX512 1
#else
#define SLUICE_GATED_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

constexpr int kLanes = 16;

#if SLUICE_GATED_AVX512
// The MUL: clamp(a * g). The multiply is the explicit rounding form, which
// the compiler cannot fuse with Gate's add.
__attribute__((target("avx512f"), always_inline)) inline __m512 Scale(__m512 a, __m512 g,
                                                                      const __m512* c) {
  const __m512 v = _mm512_mul_round_ps(a, g, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm512_min_ps(_mm512_max_ps(v, c[0]), c[1]);
}

// One pixel group: clamp(clamp(a * g) + b).
__attribute__((target("avx512f"), always_inline)) inline __m512 Gate(__m512 a, __m512 g, __m512 b,
                                                                     const __m512* c) {
  const __m512 v = _mm512_add_ps(Scale(a, g, c), b);
  return _mm512_min_ps(_mm512_max_ps(v, c[2]), c[3]);
}

// Pixels [begin, end) of C = `ch` channels.
__attribute__((target("avx512f"))) void Pixels(size_t ch, const float* clamp, const float* a,
                                               const float* gate, const float* b, float* out,
                                               size_t begin, size_t end) {
  const __m512 c[4] = {_mm512_set1_ps(clamp[0]), _mm512_set1_ps(clamp[1]), _mm512_set1_ps(clamp[2]),
                       _mm512_set1_ps(clamp[3])};
  if (b && ch == static_cast<size_t>(kLanes)) {  // one register per pixel, the gate in a register
    const __m512 g = _mm512_loadu_ps(gate);
    for (size_t i = begin * kLanes; i < end * kLanes; i += kLanes) {
      _mm512_storeu_ps(out + i, Gate(_mm512_loadu_ps(a + i), g, _mm512_loadu_ps(b + i), c));
    }
    return;
  }
  for (size_t p = begin; p < end; ++p) {
    const size_t base = p * ch;
    for (size_t k = 0; k < ch; k += kLanes) {
      const size_t left = ch - k;
      const __mmask16 m = left >= kLanes ? static_cast<__mmask16>(0xffff)
                                         : static_cast<__mmask16>((1u << left) - 1);
      const __m512 av = _mm512_maskz_loadu_ps(m, a + base + k);
      const __m512 gv = _mm512_maskz_loadu_ps(m, gate + k);
      // Without b, the MUL alone.
      const __m512 v = b ? Gate(av, gv, _mm512_maskz_loadu_ps(m, b + base + k), c) : Scale(av, gv, c);
      _mm512_mask_storeu_ps(out + base + k, m, v);
    }
  }
}
#endif

}  // namespace

bool GatedAdd::Supports(const GatedAddShape& s) {
  return PointwiseConvAvailable() && s.rows > 0 && s.w > 0 && s.channels > 0;
}

GatedAdd::GatedAdd(const GatedAddShape& s, float mul_min, float mul_max, float add_min,
                   float add_max)
    : s_(s), clamp_{mul_min, mul_max, add_min, add_max} {}

void GatedAdd::Run(const float* a, const float* gate, const float* b, float* out, int row_begin,
                   int row_end) const {
#if SLUICE_GATED_AVX512
  const size_t w = static_cast<size_t>(s_.w);
  Pixels(s_.channels, clamp_, a, gate, b, out, row_begin * w, row_end * w);
#else
  (void)a, (void)gate, (void)b, (void)out, (void)row_begin, (void)row_end;
#endif
}

void GatedAdd::RunPixels(const float* a, const float* gate, const float* b, float* out,
                         size_t pixels) const {
#if SLUICE_GATED_AVX512
  Pixels(s_.channels, clamp_, a, gate, b, out, 0, pixels);
#else
  (void)a, (void)gate, (void)b, (void)out, (void)pixels;
#endif
}

}  // namespace sluice::inference::xnn
