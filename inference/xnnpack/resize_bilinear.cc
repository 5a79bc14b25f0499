#include "inference/xnnpack/resize_bilinear.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_RESIZE_AVX512 1
#else
#define SLUICE_RESIZE_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

constexpr int kLanes = 16;

// XNNPACK's source coordinate for output index `o` along one axis (its
// indirection set-up, float for float): the two source indices and the
// weight of the second.
void Axis(int in, int out, bool align_corners, bool half_pixel, std::vector<int32_t>* i0,
          std::vector<int32_t>* i1, std::vector<float>* a) {
  const int adjust = align_corners && out != 1 ? 1 : 0;
  const float scale = static_cast<float>(in - adjust) / static_cast<float>(out - adjust);
  const int max = in - 1;
  const float offset = 0.5f * scale - 0.5f;
  for (int o = 0; o < out; ++o) {
    float x = static_cast<float>(o) * scale;
    if (!align_corners && half_pixel) {
      x = x + offset;
      x = std::min(std::max(x, 0.0f), static_cast<float>(max));
    }
    const int lo = static_cast<int>(x);
    i0->push_back(lo);
    i1->push_back(std::min(lo + 1, max));
    a->push_back(x - static_cast<float>(lo));
  }
}

#if SLUICE_RESIZE_AVX512
// tl + (tr - tl) * a, the product rounded on its own.
__attribute__((target("avx512f"), always_inline)) inline __m512 Lerp(__m512 l, __m512 r, __m512 a) {
  return _mm512_add_ps(l, _mm512_mul_round_ps(_mm512_sub_ps(r, l), a,
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// The first `left` of 16 lanes (all 16 from 16 on).
inline __mmask16 TailMask(size_t left) {
  return left >= static_cast<size_t>(kLanes) ? static_cast<__mmask16>(0xffff)
                                             : static_cast<__mmask16>((1u << left) - 1);
}

// Columns l and r (float offsets) of rows t (top) and b (bottom), the lanes
// of m, each pair lerped by vax.
__attribute__((target("avx512f"), always_inline)) inline void LerpColumns(
    const float* t, const float* b, size_t l, size_t r, __mmask16 m, __m512 vax, __m512* top,
    __m512* bot) {
  *top = Lerp(_mm512_maskz_loadu_ps(m, t + l), _mm512_maskz_loadu_ps(m, t + r), vax);
  *bot = Lerp(_mm512_maskz_loadu_ps(m, b + l), _mm512_maskz_loadu_ps(m, b + r), vax);
}

// Two 8-channel pixels at p and q (lane 8 j + c: pixel j): one load when
// they are neighbours (x2 upsampling's usual case), else two halves.
__attribute__((target("avx512f"), always_inline)) inline __m512 LoadPair(const float* p,
                                                                        const float* q) {
  if (q == p + 8) return _mm512_loadu_ps(p);
  return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(
                                                 _mm256_loadu_ps(p))),
                                             _mm256_castps_pd(_mm256_loadu_ps(q)), 1));
}

// Columns [xa, xb) of output rows oy and oy + 1 that have the same two
// source rows (x2 upsampling: rows 2m + 1 and 2m + 2): each column's two
// horizontal lerps (and their difference) computed once for both rows; the
// same float operations per output as one row at a time.
__attribute__((target("avx512f"))) void FillTwoRows(const ResizeShape& s, const int32_t* y0,
                                                    const int32_t* y1, const float* ay,
                                                    const int32_t* x0, const int32_t* x1,
                                                    const float* ax, const float* in, size_t oy,
                                                    size_t xa, size_t xb, float* o0, float* o1) {
  const size_t c = static_cast<size_t>(s.channels);
  const size_t row = static_cast<size_t>(s.in_w) * c;
  const float* t = in + y0[oy] * row;
  const float* b = in + y1[oy] * row;
  const __m512 vay0 = _mm512_set1_ps(ay[oy]), vay1 = _mm512_set1_ps(ay[oy + 1]);
  if (c == static_cast<size_t>(kLanes)) {  // one register a pixel, no masks
    for (size_t x = xa; x < xb; ++x, o0 += kLanes, o1 += kLanes) {
      const size_t l = x0[x] * c, r = x1[x] * c;
      const __m512 vax = _mm512_set1_ps(ax[x]);
      const __m512 top = Lerp(_mm512_loadu_ps(t + l), _mm512_loadu_ps(t + r), vax);
      const __m512 bot = Lerp(_mm512_loadu_ps(b + l), _mm512_loadu_ps(b + r), vax);
      _mm512_storeu_ps(o0, Lerp(top, bot, vay0));
      _mm512_storeu_ps(o1, Lerp(top, bot, vay1));
    }
    return;
  }
  for (size_t x = xa; x < xb; ++x, o0 += c, o1 += c) {
    const size_t l = x0[x] * c, r = x1[x] * c;
    const __m512 vax = _mm512_set1_ps(ax[x]);
    for (size_t k = 0; k < c; k += kLanes) {
      const __mmask16 m = TailMask(c - k);
      __m512 top, bot;
      LerpColumns(t + k, b + k, l, r, m, vax, &top, &bot);
      _mm512_mask_storeu_ps(o0 + k, m, Lerp(top, bot, vay0));
      _mm512_mask_storeu_ps(o1 + k, m, Lerp(top, bot, vay1));
    }
  }
}

__attribute__((target("avx512f"))) void FillPixels(const ResizeShape& s, const int32_t* y0,
                                                   const int32_t* y1, const float* ay,
                                                   const int32_t* x0, const int32_t* x1,
                                                   const float* ax, const float* in, size_t first,
                                                   size_t pixels, float* out, bool pairs) {
  const size_t c = static_cast<size_t>(s.channels);
  const size_t row = static_cast<size_t>(s.in_w) * c;
  size_t oy = first / s.out_w, ox = first % s.out_w;
  size_t p = 0;
  while (p < pixels) {
    // The rest of output row oy (or of the range): its source rows and
    // weight are fixed.
    const size_t n = std::min(pixels - p, static_cast<size_t>(s.out_w) - ox);
    const float* t = in + y0[oy] * row;
    const float* b = in + y1[oy] * row;
    const __m512 vay = _mm512_set1_ps(ay[oy]);
    float* o = out + p * c;
    if (c == static_cast<size_t>(kLanes)) {  // one register a pixel
      for (size_t i = 0; i < n; ++i, o += kLanes) {
        const size_t l = x0[ox + i] * c, r = x1[ox + i] * c;
        const __m512 vax = _mm512_set1_ps(ax[ox + i]);
        const __m512 top = Lerp(_mm512_loadu_ps(t + l), _mm512_loadu_ps(t + r), vax);
        const __m512 bot = Lerp(_mm512_loadu_ps(b + l), _mm512_loadu_ps(b + r), vax);
        _mm512_storeu_ps(o, Lerp(top, bot, vay));
      }
    } else {
      size_t i = 0;
      if (c == 8 && pairs) {
        // Two pixels a register: the same operations per lane as below, on
        // full registers (the half-empty ones cost ~2x).
        for (; i + 2 <= n; i += 2, o += 2 * c) {
          const size_t l = x0[ox + i] * c, r = x1[ox + i] * c;
          const size_t l1 = x0[ox + i + 1] * c, r1 = x1[ox + i + 1] * c;
          const __m512 vax = _mm512_mask_mov_ps(_mm512_set1_ps(ax[ox + i]), 0xff00,
                                                _mm512_set1_ps(ax[ox + i + 1]));
          const __m512 top = Lerp(LoadPair(t + l, t + l1), LoadPair(t + r, t + r1), vax);
          const __m512 bot = Lerp(LoadPair(b + l, b + l1), LoadPair(b + r, b + r1), vax);
          _mm512_storeu_ps(o, Lerp(top, bot, vay));
        }
      }
      for (; i < n; ++i, o += c) {
        const size_t l = x0[ox + i] * c, r = x1[ox + i] * c;
        const __m512 vax = _mm512_set1_ps(ax[ox + i]);
        for (size_t k = 0; k < c; k += kLanes) {
          const __mmask16 m = TailMask(c - k);
          __m512 top, bot;
          LerpColumns(t + k, b + k, l, r, m, vax, &top, &bot);
          _mm512_mask_storeu_ps(o + k, m, Lerp(top, bot, vay));
        }
      }
    }
    p += n;
    ox += n;
    if (ox == static_cast<size_t>(s.out_w)) ox = 0, ++oy;
  }
}

// Pixels [first, first + pixels): row by row; where the next row has the
// same source rows and is in the range too, their common columns together
// (FillTwoRows) and the rest one row at a time (FillPixels).
__attribute__((target("avx512f"))) void FillRange(const ResizeShape& s, const int32_t* y0,
                                                  const int32_t* y1, const float* ay,
                                                  const int32_t* x0, const int32_t* x1,
                                                  const float* ax, const float* in, size_t first,
                                                  size_t pixels, float* out, bool pairs) {
  const size_t w = static_cast<size_t>(s.out_w), c = static_cast<size_t>(s.channels);
  const size_t end = first + pixels;
  auto single = [&](size_t oy, size_t xa, size_t xb) {
    if (xa < xb) {
      FillPixels(s, y0, y1, ay, x0, x1, ax, in, oy * w + xa, xb - xa,
                 out + (oy * w + xa - first) * c, pairs);
    }
  };
  size_t skip_a = 0, skip_b = 0;  // columns of this row already written with the row before
  for (size_t oy = first / w, ox = first % w; oy * w + ox < end; ++oy, ox = 0) {
    const size_t xe = std::min(w, end - oy * w);
    if (skip_a < skip_b) {
      single(oy, ox, skip_a);
      single(oy, skip_b, xe);
      skip_a = skip_b = 0;
      continue;
    }
    // (8 channels: the two-pixel registers of FillPixels do better.)
    if (!(c == 8 && pairs) && oy + 1 < static_cast<size_t>(s.out_h) && (oy + 1) * w < end &&
        y0[oy + 1] == y0[oy] && y1[oy + 1] == y1[oy]) {
      const size_t xj = std::min(xe, end - (oy + 1) * w);
      if (ox < xj) {
        FillTwoRows(s, y0, y1, ay, x0, x1, ax, in, oy, ox, xj, out + (oy * w + ox - first) * c,
                    out + ((oy + 1) * w + ox - first) * c);
        single(oy, xj, xe);
        skip_a = ox, skip_b = xj;
        continue;
      }
    }
    single(oy, ox, xe);
  }
}
#endif

}  // namespace

bool ResizeBilinear::Supports(const ResizeShape& s) {
  return PointwiseConvAvailable() && s.in_h > 0 && s.in_w > 0 && s.out_h > 0 && s.out_w > 0 &&
         s.channels > 0 && !(s.align_corners && s.half_pixel_centers) && s.in_h < (1 << 24) &&
         s.in_w < (1 << 24) && s.out_h < (1 << 24) && s.out_w < (1 << 24);
}

ResizeBilinear::ResizeBilinear(const ResizeShape& s) : s_(s) {
  const char* e = std::getenv("SLUICE_XNNPACK_RESIZE_PAIRS");
  pairs_ = !(e && std::strcmp(e, "0") == 0);
  const char* rows = std::getenv("SLUICE_XNNPACK_RESIZE_ROWS");
  rows_ = !(rows && std::strcmp(rows, "0") == 0);
  Axis(s.in_h, s.out_h, s.align_corners, s.half_pixel_centers, &y0_, &y1_, &ay_);
  Axis(s.in_w, s.out_w, s.align_corners, s.half_pixel_centers, &x0_, &x1_, &ax_);
}

void ResizeBilinear::Fill(const float* in, size_t first, size_t pixels, float* out) const {
#if SLUICE_RESIZE_AVX512
  if (rows_) {
    FillRange(s_, y0_.data(), y1_.data(), ay_.data(), x0_.data(), x1_.data(), ax_.data(), in, first,
              pixels, out, pairs_);
  } else {
    FillPixels(s_, y0_.data(), y1_.data(), ay_.data(), x0_.data(), x1_.data(), ax_.data(), in,
               first, pixels, out, pairs_);
  }
#else
  (void)in, (void)first, (void)pixels, (void)out;
#endif
}

size_t ResizeBilinear::ChunkEnd(size_t first, size_t step, size_t most) const {
  const size_t w = static_cast<size_t>(s_.out_w);
  if (!rows_) return first + step;
  // At least three rows (x2: rows 0-2 share their source rows) if `most` allows.
  const size_t limit = std::max(step, std::min(3 * w, most));
  // The last row start in (first, first + limit] whose source rows differ
  // from the row before's (so no two rows that share them are split).
  for (size_t oy = (first + limit) / w; oy * w > first; --oy) {
    if (oy >= static_cast<size_t>(s_.out_h) || y0_[oy] != y0_[oy - 1] || y1_[oy] != y1_[oy - 1]) {
      return oy * w;
    }
  }
  return first + limit;
}

}  // namespace sluice::inference::xnn
