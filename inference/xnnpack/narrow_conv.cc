#include "inference/xnnpack/narrow_conv.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_NARROW_AVX512 1
#else
#define SLUICE_NARROW_AVX512 0
#endif

namespace sluice::inference::xnn {

constexpr int kMaxChannels = 16;
constexpr int kMaxKernel = 7;
constexpr int kLanes = 16;

bool NarrowConv::Supports(const NarrowConvShape& s) {
  return PointwiseConvAvailable() && s.channels >= 1 && s.channels <= kMaxChannels &&
         s.kernel_h >= 1 && s.kernel_h <= kMaxKernel && s.kernel_w >= 1 &&
         s.kernel_w <= kMaxKernel && s.pad_top >= 0 && s.pad_left >= 0 && s.pad_top < s.kernel_h &&
         s.pad_left < s.kernel_w && s.out_h > 0 && s.out_w > 0 &&
         s.out_h + s.kernel_h - 1 >= s.in_h + s.pad_top &&
         s.out_w + s.kernel_w - 1 >= s.in_w + s.pad_left;
}

NarrowConv::NarrowConv(const NarrowConvShape& s, const float* weights, const float* bias,
                       float out_min, float out_max, bool whole_planes)
    : s_(s), min_(out_min), max_(out_max), bias_(bias ? bias[0] : 0.0f) {
  weights_.assign(weights, weights + static_cast<size_t>(s.kernel_h) * s.kernel_w * s.channels);
  // A plane covers every position a tap reads: out + kernel - 1 in each
  // direction, plus a register's width so the last masked load stays inside.
  // Rows whole cache lines apart: each row's first tap column loads aligned
  // (in a 64-byte aligned ring), not split across two lines (pose_landmark's
  // 256x256 3x3 head: 0.20 -> 0.185 ms). SLUICE_XNNPACK_NARROW_ALIGN=0 (read
  // here) keeps the packed rows.
  plane_stride_ = static_cast<size_t>(s.out_w + s.kernel_w - 1 + kLanes);
  const char* e = std::getenv("SLUICE_XNNPACK_NARROW_ALIGN");
  if (!(e && std::strcmp(e, "0") == 0)) {
    plane_stride_ = (plane_stride_ + kLanes - 1) / kLanes * kLanes;
  }
  plane_floats_ = plane_stride_ * (s.out_h + s.kernel_h - 1);
  if (whole_planes) planes_.assign(plane_floats_ * s.channels, 0.0f);  // borders stay zero
}

size_t NarrowConv::ScratchFloats() const { return plane_stride_ * s_.kernel_h * s_.channels; }

void NarrowConv::Stage(const float* in, int row_begin, int row_end) const {
  for (int y = row_begin; y < row_end; ++y) {
    StageRow(in + static_cast<size_t>(y) * s_.in_w * s_.channels,
             planes_.data() + (y + s_.pad_top) * plane_stride_, plane_floats_, false);
  }
}

void NarrowConv::Run(const float* in, const float*, float* out, int row_begin, int row_end,
                     float* ring) const {
  const int kh = s_.kernel_h, c = s_.channels;
  const size_t chan_stride = plane_stride_ * kh;
  // Zero once: the border columns are never written, and a padding row only
  // needs zeroing when its slot held an earlier row of this band.
  std::fill(ring, ring + ScratchFloats(), 0.0f);
  // Plane row r (input row r - pad_top) lives in ring slot r % kernel_h.
  auto stage = [&](int r) {
    float* dst = ring + (r % kh) * plane_stride_;
    const int iy = r - s_.pad_top;
    if (iy >= 0 && iy < s_.in_h) {
      StageRow(in + static_cast<size_t>(iy) * s_.in_w * c, dst, chan_stride, true);
    } else if (r - row_begin >= kh) {  // the slot held an earlier row
      for (int ch = 0; ch < c; ++ch) std::fill_n(dst + ch * chan_stride, plane_stride_, 0.0f);
    }
  };
  for (int r = row_begin; r < row_begin + kh - 1; ++r) stage(r);  // the band's halo
  const float* rows[kMaxKernel];
  for (int y = row_begin; y < row_end; ++y) {
    stage(y + kh - 1);
    for (int ky = 0; ky < kh; ++ky) rows[ky] = ring + ((y + ky) % kh) * plane_stride_;
    ComputeRow(rows, chan_stride, out + static_cast<size_t>(y) * s_.out_w);
  }
}

#if SLUICE_NARROW_AVX512
__attribute__((target("avx512f"))) void NarrowConv::StageRow(const float* row, float* dst,
                                                             size_t chan_stride,
                                                             bool transpose) const {
  const int c = s_.channels;
  dst += s_.pad_left;
  int x = 0;
  if (transpose && c == 8) {
    // 16 pixels x 8 channels (8 registers of 2 pixels) to 8 registers of one
    // channel: three rounds of two-register permutes (lane tables checked by
    // the tests against the gather path's results).
    const __m512i s1_lo =
        _mm512_setr_epi32(0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27);
    const __m512i s1_hi =
        _mm512_setr_epi32(4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31);
    const __m512i s23_lo =
        _mm512_setr_epi32(0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
    const __m512i s23_hi =
        _mm512_setr_epi32(8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
    for (; x + kLanes <= s_.in_w; x += kLanes) {
      const float* src = row + static_cast<size_t>(x) * 8;
      __m512 v[8], a[8], b[8];
      for (int j = 0; j < 8; ++j) v[j] = _mm512_loadu_ps(src + j * kLanes);
      for (int j = 0; j < 4; ++j) {
        a[j] = _mm512_permutex2var_ps(v[j], s1_lo, v[j + 4]);
        a[j + 4] = _mm512_permutex2var_ps(v[j], s1_hi, v[j + 4]);
      }
      for (int j : {0, 1, 4, 5}) {
        b[j] = _mm512_permutex2var_ps(a[j], s23_lo, a[j + 2]);
        b[j + 2] = _mm512_permutex2var_ps(a[j], s23_hi, a[j + 2]);
      }
      for (int j = 0; j < 8; j += 2) {
        _mm512_storeu_ps(dst + j * chan_stride + x, _mm512_permutex2var_ps(b[j], s23_lo, b[j + 1]));
        _mm512_storeu_ps(dst + (j + 1) * chan_stride + x,
                         _mm512_permutex2var_ps(b[j], s23_hi, b[j + 1]));
      }
    }
  }
  const __m512i index =
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(c));
  for (; x < s_.in_w; x += kLanes) {
    const int n = std::min(kLanes, s_.in_w - x);
    const __mmask16 m = static_cast<__mmask16>((1u << n) - 1);
    for (int ch = 0; ch < c; ++ch) {
      const __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, index,
                                                row + static_cast<size_t>(x) * c + ch, 4);
      _mm512_mask_storeu_ps(dst + ch * chan_stride + x, m, v);
    }
  }
}

// Today's two-phase Compute (SLUICE_XNNPACK_NARROW_STREAM=0): one
// accumulator per 16 pixels, so each register waits on its FMA chain.
__attribute__((target("avx512f"))) void NarrowConv::Compute(float* out, int row_begin,
                                                            int row_end) const {
  const int c = s_.channels, kh = s_.kernel_h, kw = s_.kernel_w;
  const __m512 lo = _mm512_set1_ps(min_), hi = _mm512_set1_ps(max_);
  for (int y = row_begin; y < row_end; ++y) {
    for (int x = 0; x < s_.out_w; x += kLanes) {
      const int n = std::min(kLanes, s_.out_w - x);
      const __mmask16 m = static_cast<__mmask16>((1u << n) - 1);
      __m512 acc = _mm512_set1_ps(bias_);
      const float* w = weights_.data();
      for (int ky = 0; ky < kh; ++ky) {
        const float* base = planes_.data() + (y + ky) * plane_stride_ + x;
        for (int kx = 0; kx < kw; ++kx) {
          for (int ch = 0; ch < c; ++ch) {
            const __m512 v = _mm512_loadu_ps(base + ch * plane_floats_ + kx);
            acc = _mm512_fmadd_ps(v, _mm512_set1_ps(*w++), acc);
          }
        }
      }
      acc = _mm512_min_ps(_mm512_max_ps(acc, lo), hi);
      _mm512_mask_storeu_ps(out + static_cast<size_t>(y) * s_.out_w + x, m, acc);
    }
  }
}

// `N` registers of 16 pixels side by side: independent FMA chains sharing
// each weight broadcast (one chain alone is latency-bound). Per pixel the
// same operations in the same order as Compute.
template <int N>
__attribute__((target("avx512f"), always_inline)) inline void NarrowBlock(
    const float* const* rows, size_t chan_stride, int x, int kh, int kw, int c, const float* w,
    float bias, __m512 lo, __m512 hi, float* out, __mmask16 last) {
  __m512 acc[N];
  for (int i = 0; i < N; ++i) acc[i] = _mm512_set1_ps(bias);
  for (int ky = 0; ky < kh; ++ky) {
    const float* base = rows[ky] + x;
    for (int kx = 0; kx < kw; ++kx) {
      for (int ch = 0; ch < c; ++ch) {
        const __m512 wv = _mm512_set1_ps(*w++);
        const float* p = base + ch * chan_stride + kx;
        for (int i = 0; i < N; ++i) {
          acc[i] = _mm512_fmadd_ps(_mm512_loadu_ps(p + i * kLanes), wv, acc[i]);
        }
      }
    }
  }
  for (int i = 0; i < N; ++i) {
    const __m512 r = _mm512_min_ps(_mm512_max_ps(acc[i], lo), hi);
    _mm512_mask_storeu_ps(out + x + i * kLanes, i == N - 1 ? last : __mmask16(0xffff), r);
  }
}

__attribute__((target("avx512f"))) void NarrowConv::ComputeRow(const float* const* rows,
                                                               size_t chan_stride,
                                                               float* out) const {
  const int c = s_.channels, kh = s_.kernel_h, kw = s_.kernel_w;
  const __m512 lo = _mm512_set1_ps(min_), hi = _mm512_set1_ps(max_);
  const int vectors = (s_.out_w + kLanes - 1) / kLanes;
  const int tail = s_.out_w - (vectors - 1) * kLanes;
  const __mmask16 last = static_cast<__mmask16>((1u << tail) - 1);
  // Eight chains cover the FMA latency (4 cycles, 2 a cycle); then 4, 1.
  int v = 0;
  for (; v + 8 <= vectors; v += 8) {
    NarrowBlock<8>(rows, chan_stride, v * kLanes, kh, kw, c, weights_.data(), bias_, lo, hi, out,
                   v + 8 == vectors ? last : __mmask16(0xffff));
  }
  for (; v + 4 <= vectors; v += 4) {
    NarrowBlock<4>(rows, chan_stride, v * kLanes, kh, kw, c, weights_.data(), bias_, lo, hi, out,
                   v + 4 == vectors ? last : __mmask16(0xffff));
  }
  for (; v < vectors; ++v) {
    NarrowBlock<1>(rows, chan_stride, v * kLanes, kh, kw, c, weights_.data(), bias_, lo, hi, out,
                   v + 1 == vectors ? last : __mmask16(0xffff));
  }
}
#else
void NarrowConv::Compute(float*, int, int) const {}
void NarrowConv::StageRow(const float*, float*, size_t, bool) const {}
void NarrowConv::ComputeRow(const float* const*, size_t, float*) const {}
#endif

}  // namespace sluice::inference::xnn
