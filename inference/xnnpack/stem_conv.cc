#include "inference/xnnpack/stem_conv.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "inference/xnnpack/avx512_transpose.h"
#define SLUICE_STEM_AVX512 1
#else
#define SLUICE_STEM_AVX512 0
#endif

namespace sluice::inference::xnn {

constexpr int kLanes = 16;
// Widest output the lanes variant takes: at 32 and 64 channels (two or
// more passes over the input) it measured no faster than the first.
constexpr int kMaxLanesChannels = 24;

// 8 input channels: only hand_recrop's 2x2 stride-2 8 -> 8 conv (op 5, 0.044
// ms on XNNPACK's IGEMM), on the direct variant alone (DirectRows8K2; the
// lanes variant's staging of 8 channel planes made it 0.089 ms).
// SLUICE_XNNPACK_STEM_C8=0: not.
namespace {
bool EightChannelShape(const StemConvShape& s) {
  const char* e = std::getenv("SLUICE_XNNPACK_STEM_C8");
  if (e && std::strcmp(e, "0") == 0) return false;
  return s.channels == 8 && s.out_channels == 8 && s.kernel_h == 2 && s.kernel_w == 2 &&
         s.stride_h == 2 && s.stride_w == 2;
}
}  // namespace

bool StemConv::Supports(const StemConvShape& s) {
  return PointwiseConvAvailable() && s.channels >= 1 &&
         (s.channels <= 4 || (EightChannelShape(s) && UsesDirect(s))) && s.out_channels >= 1 &&
         s.out_channels <= 64 && s.kernel_h >= 1 && s.kernel_h <= 7 && s.kernel_w >= 1 &&
         s.kernel_w <= 7 && s.kernel_h * s.kernel_w > 1 && s.stride_h >= 1 && s.stride_h <= 2 &&
         s.stride_w >= 1 && s.stride_w <= 2 && s.pad_top >= 0 && s.pad_left >= 0 &&
         s.pad_top < s.kernel_h && s.pad_left < s.kernel_w && s.out_h > 0 && s.out_w > 0 &&
         s.in_h > 0 && s.in_w > 0;
}

// The direct variant's 8-channel registers are ymm with AVX-512VL masks.
bool DirectAvailable() {
#if SLUICE_STEM_AVX512
  static const bool ok = __builtin_cpu_supports("avx512vl");
  return ok;
#else
  return false;
#endif
}

bool StemConv::UsesLanes(const StemConvShape& s) {
  const char* e = std::getenv("SLUICE_XNNPACK_STEM_LANES");
  if (e && std::strcmp(e, "0") == 0) return false;
  return s.out_channels % 8 == 0 && s.out_channels <= kMaxLanesChannels;  // 8, 16, 24
}

bool StemConv::TakesTail(const StemConvShape& s) {
  return UsesDirect(s) && s.out_channels == 8;
}

// The pair variant (PairRows8): the 3x3 stride-2 RGB -> 8 stem, and
// (PairRows8K2, SLUICE_XNNPACK_STEM_K2_PAIRS=0: not) hand_recrop's 2x2
// stride-2 8 -> 8. SLUICE_XNNPACK_STEM_PAIRS=0: neither (the ymm direct
// variant, DirectRows8 / DirectRows8K2).
namespace {
bool KTwoPairs() {
  const char* e = std::getenv("SLUICE_XNNPACK_STEM_K2_PAIRS");
  return !(e && std::strcmp(e, "0") == 0);
}
}  // namespace
bool StemConv::UsesPairs(const StemConvShape& s) {
  const char* e = std::getenv("SLUICE_XNNPACK_STEM_PAIRS");
  if (e && std::strcmp(e, "0") == 0) return false;
  const bool stem = s.channels == 3 && s.out_channels == 8 && s.kernel_h == 3;
  const bool k2 = s.channels == 8 && s.kernel_h == 2;  // (UsesDirect: EightChannelShape)
  return UsesDirect(s) && (stem || (k2 && KTwoPairs())) &&
         s.out_w <= 256;  // (kPairMaxOutW: the stack buffers)
}

bool StemConv::UsesDirect(const StemConvShape& s) {
  const char* direct = std::getenv("SLUICE_XNNPACK_STEM_DIRECT");
  // (24 channels, a zmm and a ymm a pixel in 8-pixel blocks, measured within
  // noise of the lanes variant: 0.183-0.193 vs 0.184-0.195 ms.)
  const bool direct_oc = s.out_channels == 8 || s.out_channels == 16;
  // hand_recrop's 2x2 stride-2 8 -> 8 (EightChannelShape) with every window
  // inside the image: DirectRows8K2.
  const bool k2 = EightChannelShape(s) && s.pad_top == 0 && s.pad_left == 0 &&
                  2 * s.out_h <= s.in_h && 2 * s.out_w <= s.in_w;
  const bool stem = s.channels == 3 && s.stride_h == 2 && s.stride_w == 2 && s.kernel_h == 3 &&
                    s.kernel_w == 3 && direct_oc;
  return UsesLanes(s) && (stem || k2) && DirectAvailable() &&
         !(direct && std::strcmp(direct, "0") == 0);
}

StemConv::StemConv(const StemConvShape& s, const float* weights, const float* bias,
                   float out_min, float out_max)
    : s_(s), min_(out_min), max_(out_max) {
  const char* unbounded = std::getenv("SLUICE_XNNPACK_STEM_UNBOUNDED");
  unbounded_ = !(unbounded && std::strcmp(unbounded, "0") == 0);
  const char* k2_unbounded = std::getenv("SLUICE_XNNPACK_STEM_K2_UNBOUNDED");
  k2_unbounded_ = !(k2_unbounded && std::strcmp(k2_unbounded, "0") == 0);
  const char* mem_fma = std::getenv("SLUICE_XNNPACK_STEM_MEMFMA");
  mem_fma_ = !(mem_fma && std::strcmp(mem_fma, "0") == 0);
  const char* zero_taps = std::getenv("SLUICE_XNNPACK_STEM_ZERO_TAPS");
  zero_taps_ = !(zero_taps && std::strcmp(zero_taps, "0") == 0);
  const char* strip = std::getenv("SLUICE_XNNPACK_STEM_STRIP");
  if (strip && *strip) strip_ = std::max(0, std::atoi(strip)) / 8 * 8;
  lanes_ = UsesLanes(s);
  blocks_ = (s.out_channels + kLanes - 1) / kLanes;
  const int width = lanes_ ? s.out_channels : blocks_ * kLanes;
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
  direct_ = UsesDirect(s);
  pairs_ = direct_ && UsesPairs(s);
  if (pairs_) {  // bias, then per tap the 8 weights interleaved with themselves
    pair_w_.assign(16 * (1 + taps), 0.0f);
    for (int t = 0; t <= taps; ++t) {
      for (int o = 0; o < 8; ++o) {
        pair_w_[16 * t + 2 * o] = pair_w_[16 * t + 2 * o + 1] = packed_[8 * t + o];
      }
    }
  }
  const char* fixed = std::getenv("SLUICE_XNNPACK_STEM_SPLIT");
  fixed_split_ = !(fixed && std::strcmp(fixed, "0") == 0);
  if (lanes_) {
    const size_t sw = static_cast<size_t>(s.stride_w);
    const size_t full = (static_cast<size_t>(s.out_w) + kLanes - 1) / kLanes * kLanes;
    plane_w_ = std::max((padded_w_ + sw - 1) / sw, full + (s.kernel_w - 1) / sw);
    padded_.assign(direct_ ? 0 : s.channels * sw * padded_h_ * plane_w_, 0.0f);  // direct_: unused
    // Input pixel e + j * stride of a block (e: the block's first pixel in
    // the phase) is float (e + j * stride) * channels + ch of its 16 * stride
    // pixels: register pair k supplies it when that is in [32k, 32k + 32).
    // (Not for direct_: it stages nothing, and its 8 channels would not fit.)
    split_idx_.assign(direct_ ? 0 : sw * s.channels * 4 * kLanes, 0);
    split_mask_.assign(direct_ ? 0 : sw * s.channels * 4, 0);
    for (int phase = 0; phase < (direct_ ? 0 : s.stride_w); ++phase) {
      const int e = ((phase - s.pad_left) % s.stride_w + s.stride_w) % s.stride_w;
      for (int ch = 0; ch < s.channels; ++ch) {
        const int at = (phase * s.channels + ch) * 4;
        for (int j = 0; j < kLanes; ++j) {
          const int f = (e + j * s.stride_w) * s.channels + ch;
          split_idx_[(at + f / 32) * kLanes + j] = f % 32;
          split_mask_[at + f / 32] |= static_cast<unsigned short>(1u << j);
        }
      }
    }
  } else {
    padded_.assign(padded_h_ * padded_w_ * s.channels, 0.0f);
  }
}

#if SLUICE_STEM_AVX512
namespace {
// Stage of the lanes variant: the whole blocks of 16 * stride input pixels
// of one row (`idx`, `mask`: StemConv::split_idx_, split_mask_); returns the
// pixels done.
__attribute__((target("avx512f"))) int SplitBlocks(const StemConvShape& s, const int* idx,
                                                   const unsigned short* mask, size_t phase_size,
                                                   const float* src, float* dst) {
  const int sw = s.stride_w, c = s.channels;
  const int span = kLanes * sw, regs = (span * c + kLanes - 1) / kLanes;
  __m512 v[8];
  for (int r = 0; r < 8; ++r) v[r] = _mm512_setzero_ps();
  int x = 0;
  for (; x + span <= s.in_w; x += span) {
    for (int r = 0; r < regs; ++r)
      v[r] = _mm512_loadu_ps(src + static_cast<size_t>(x) * c + r * kLanes);
    for (int phase = 0; phase < sw; ++phase) {
      const int e = ((phase - s.pad_left) % sw + sw) % sw;
      float* d = dst + phase * phase_size + (x + e + s.pad_left) / sw;
      for (int ch = 0; ch < c; ++ch, d += sw * phase_size) {
        const int at = (phase * c + ch) * 4;
        __m512 out = _mm512_setzero_ps();
        for (int k = 0; 2 * k < regs; ++k) {
          const __m512i i = _mm512_loadu_si512(idx + (at + k) * kLanes);
          out = _mm512_mask_mov_ps(out, mask[at + k],
                                   _mm512_permutex2var_ps(v[2 * k], i, v[2 * k + 1]));
        }
        _mm512_storeu_ps(d, out);
      }
    }
  }
  return x;
}

// SplitBlocks for stride SW and C channels known at compile time (the RGB
// stride-2 stems): the phases' first pixels and destination offsets
// computed once per row, not per block (three integer divisions per phase
// a block took most of the staging time), the registers indexed by
// constants.
template <int SW, int C>
__attribute__((target("avx512f"))) int SplitBlocksFixed(const StemConvShape& s, const int* idx,
                                                        const unsigned short* mask,
                                                        size_t phase_size, const float* src,
                                                        float* dst) {
  constexpr int kSpan = kLanes * SW, kRegs = (kSpan * C + kLanes - 1) / kLanes;
  constexpr int kPairs = (kRegs + 1) / 2;
  int first[SW];  // per phase: the destination column of block x = 0's first pixel
  for (int phase = 0; phase < SW; ++phase) {
    const int e = ((phase - s.pad_left) % SW + SW) % SW;
    first[phase] = (e + s.pad_left) / SW;
  }
  __m512 v[2 * kPairs];
#pragma GCC unroll 8
  for (int r = 0; r < 2 * kPairs; ++r) v[r] = _mm512_setzero_ps();
  int x = 0;
  for (; x + kSpan <= s.in_w; x += kSpan) {
#pragma GCC unroll 8
    for (int r = 0; r < kRegs; ++r) {
      v[r] = _mm512_loadu_ps(src + static_cast<size_t>(x) * C + r * kLanes);
    }
#pragma GCC unroll 4
    for (int phase = 0; phase < SW; ++phase) {
      float* d = dst + phase * phase_size + x / SW + first[phase];
#pragma GCC unroll 4
      for (int ch = 0; ch < C; ++ch, d += SW * phase_size) {
        const int at = (phase * C + ch) * 4;
        __m512 out = _mm512_setzero_ps();
#pragma GCC unroll 4
        for (int k = 0; k < kPairs; ++k) {
          const __m512i i = _mm512_loadu_si512(idx + (at + k) * kLanes);
          out = _mm512_mask_mov_ps(out, mask[at + k],
                                   _mm512_permutex2var_ps(v[2 * k], i, v[2 * k + 1]));
        }
        _mm512_storeu_ps(d, out);
      }
    }
  }
  return x;
}
}  // namespace
#else
namespace {
int SplitBlocks(const StemConvShape&, const int*, const unsigned short*, size_t, const float*,
                float*) {
  return 0;
}
template <int SW, int C>
int SplitBlocksFixed(const StemConvShape&, const int*, const unsigned short*, size_t,
                     const float*, float*) {
  return 0;
}
}  // namespace
#endif

void StemConv::SetHardSwish() { epilogue_ = 1; }

void StemConv::SetScale(const float* scale, const float* bias, float lo, float hi) {
  const int oc = s_.out_channels;
  tail_.scale.assign(scale, scale + oc);
  tail_.bias.assign(oc, 0.0f);  // (no bias: XNNPACK adds its packed zeros)
  if (bias) tail_.bias.assign(bias, bias + oc);
  tail_.lo = lo, tail_.hi = hi;
}

void StemConv::SetMaxPool(float* out3, float lo, float hi) {
  tail_.out3 = out3;
  tail_.lo3 = lo, tail_.hi3 = hi;
}

void StemConv::SetSecondOutput(float* out2, const float* slope, const float* scale,
                               const float* bias, float lo, float hi) {
  const int oc = s_.out_channels;
  tail_.out2 = out2;
  tail_.slope2.assign(slope, slope + oc);
  tail_.scale2.assign(scale, scale + oc);
  tail_.bias2.assign(oc, 0.0f);
  if (bias) tail_.bias2.assign(bias, bias + oc);
  tail_.lo2 = lo, tail_.hi2 = hi;
}

bool StemConv::TakesNext(const StemConvShape& s, const StemConvShape& n) {
  const char* e = std::getenv("SLUICE_XNNPACK_STEM_NEXT");
  return !(e && std::strcmp(e, "0") == 0) && TakesTail(s) && UsesPairs(s) && s.kernel_h == 3 &&
         s.out_h % 2 == 0 && s.out_w % 8 == 0 && TakesTail(n) && UsesPairs(n) &&
         n.kernel_h == 2 && n.kernel_w == 2 && n.stride_h == 2 && n.stride_w == 2 &&
         n.pad_top == 0 && n.pad_left == 0 && n.channels == 8 && n.in_h == s.out_h &&
         n.in_w == s.out_w && n.out_h == s.out_h / 2 && n.out_w == s.out_w / 2;
}

void StemConv::SetNext(std::shared_ptr<const StemConv> next, float* out) {
  next_ = std::move(next);
  next_out_ = out;
}

void StemConv::SetPrelu(const float* slope) {
  epilogue_ = 2;
  slope_.assign(slope, slope + s_.out_channels);
}

void StemConv::Stage(const float* in, int row_begin, int row_end) const {
  if (direct_) {  // Compute reads the input itself
    if (row_begin == 0) in_ = in;  // one writer (row 0's), before every Compute
    return;
  }
  const size_t c = static_cast<size_t>(s_.channels);
  if (lanes_) {
    // Column X of the padded row goes to phase X % stride, column X / stride:
    // blocks of 16 * stride pixels by permutes, the rest one by one.
    const int sw = s_.stride_w;
    const size_t phase_size = padded_h_ * plane_w_;
    for (int y = row_begin; y < row_end; ++y) {
      const float* src = in + static_cast<size_t>(y) * s_.in_w * c;
      float* dst = padded_.data() + static_cast<size_t>(y + s_.pad_top) * plane_w_;
      const int* idx = split_idx_.data();
      const unsigned short* mask = split_mask_.data();
      const int done = sw == 2 && c == 3 && fixed_split_
                           ? SplitBlocksFixed<2, 3>(s_, idx, mask, phase_size, src, dst)
                           : SplitBlocks(s_, idx, mask, phase_size, src, dst);
      for (int phase = 0; phase < sw; ++phase) {
        int x = done + ((phase - s_.pad_left) % sw + sw) % sw;  // first x in this phase
        float* d = dst + phase * phase_size + (x + s_.pad_left) / sw;
        for (; x < s_.in_w; x += sw, ++d) {
          for (size_t ch = 0; ch < c; ++ch) d[ch * sw * phase_size] = src[x * c + ch];
        }
      }
    }
    return;
  }
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

// 16 channels x 16 pixels to NHWC: pixel p's 16 channels at o + p * stride,
// the first `valid` pixels.
__attribute__((target("avx512f"))) inline void Store16(const __m512* r, float* o, int stride,
                                                       int valid) {
  __m512 x[16];
  Transpose16x16(r, x);
  for (int p = 0; p < valid; ++p) _mm512_storeu_ps(o + static_cast<size_t>(p) * stride, x[p]);
}

// 8 channels x 16 pixels: x[j] holds pixels 2j' and 2j' + 1 (p below).
__attribute__((target("avx512f"))) inline void Store8(const __m512* r, float* o, int stride,
                                                      int valid) {
  __m512 u[8], x[8];
  int first[8];  // the first of the two pixels in x[j]
  TransposeQuad(r, u);
  TransposeQuad(r + 4, u + 4);
  for (int q = 0; q < 4; q += 2) {
    const __m512 v0 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0x44);  // pixels q, q + 4
    const __m512 v1 = _mm512_shuffle_f32x4(u[q + 1], u[5 + q], 0x44);
    const __m512 w0 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0xEE);  // pixels q + 8, q + 12
    const __m512 w1 = _mm512_shuffle_f32x4(u[q + 1], u[5 + q], 0xEE);
    const int j = q * 2;
    x[j] = _mm512_shuffle_f32x4(v0, v1, 0x88), first[j] = q;
    x[j + 1] = _mm512_shuffle_f32x4(v0, v1, 0xDD), first[j + 1] = q + 4;
    x[j + 2] = _mm512_shuffle_f32x4(w0, w1, 0x88), first[j + 2] = q + 8;
    x[j + 3] = _mm512_shuffle_f32x4(w0, w1, 0xDD), first[j + 3] = q + 12;
  }
  for (int j = 0; j < 8; ++j) {
    const int p = first[j];
    float* d = o + static_cast<size_t>(p) * stride;
    if (stride == 8 && p + 1 < valid) {  // both pixels, adjacent
      _mm512_storeu_ps(d, x[j]);
      continue;
    }
    if (p < valid) _mm256_storeu_ps(d, _mm512_castps512_ps256(x[j]));
    if (p + 1 < valid) {
      _mm256_storeu_ps(d + stride,
                       _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x[j]), 1)));
    }
  }
}

// The G output channels of 16 output pixels from (oy, ox).
// `tap_offset[t]`: where tap t (row, column, input channel) of pixel (oy, 0)
// reads, from plane row oy * stride. (Two or three 16-pixel blocks sharing
// each weight broadcast, 8 channels at a time, measured no faster.)
template <int G>
__attribute__((target("avx512f"))) inline void LanePixels(const StemConvShape& s,
                                                          const float* packed, const float* planes,
                                                          size_t plane_w, int taps,
                                                          const size_t* tap_offset, int oy, int ox,
                                                          float lo_f, float hi_f, int epilogue,
                                                          const float* slope, float* out) {
  __m512 acc[G];
  for (int g = 0; g < G; ++g) acc[g] = _mm512_set1_ps(packed[g]);
  const float* w = packed + G;
  const float* base = planes + static_cast<size_t>(oy) * s.stride_h * plane_w + ox;
  for (int t = 0; t < taps; ++t, w += G) {
    const __m512 x = _mm512_loadu_ps(base + tap_offset[t]);
#pragma GCC unroll 24
    for (int g = 0; g < G; ++g) acc[g] = _mm512_fmadd_ps(x, _mm512_set1_ps(w[g]), acc[g]);
  }
  // (The clamp bounds in registers only now: the loop above needs them all.)
  const __m512 lo = _mm512_set1_ps(lo_f), hi = _mm512_set1_ps(hi_f);
  for (int g = 0; g < G; ++g) acc[g] = _mm512_min_ps(_mm512_max_ps(acc[g], lo), hi);
  if (epilogue == 1) {  // HARD_SWISH as XNNPACK's f32-vhswish avx512f kernel
    const __m512 sixth = _mm512_set1_ps(0x1.555556p-3f), half = _mm512_set1_ps(0.5f);
    const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
    for (int g = 0; g < G; ++g) {
      __m512 v = _mm512_fmadd_ps(acc[g], sixth, half);
      v = _mm512_max_ps(v, zero);
      v = _mm512_min_ps(v, one);
      acc[g] = _mm512_mul_ps(v, acc[g]);
    }
  } else if (epilogue == 2) {  // PRELU by the sign bit, as XNNPACK's (-0.0 included)
    for (int g = 0; g < G; ++g) {
      const __mmask16 neg =
          _mm512_cmp_epi32_mask(_mm512_castps_si512(acc[g]), _mm512_setzero_si512(), _MM_CMPINT_LT);
      acc[g] = _mm512_mask_mul_ps(acc[g], neg, acc[g], _mm512_set1_ps(slope[g]));
    }
  }
  const int valid = std::min(kLanes, s.out_w - ox);
  float* o = out + (static_cast<size_t>(oy) * s.out_w + ox) * G;
  if (G >= 16) Store16(acc, o, G, valid);
  if (G % 16 != 0) Store8(acc + G / 16 * 16, o + G / 16 * 16, G, valid);
}

__attribute__((target("avx512f"))) void LaneRows(const StemConvShape& s, const float* packed,
                                                 const float* planes, size_t plane_w,
                                                 size_t padded_h, float lo, float hi, int epilogue,
                                                 const float* slope, float* out, int row_begin,
                                                 int row_end) {
  const size_t phase_size = padded_h * plane_w;
  const size_t channel_size = phase_size * s.stride_w;
  // Taps in the order of the sums: rows, columns, input channels.
  size_t tap_offset[7 * 7 * 4];
  int taps = 0;
  for (int ky = 0; ky < s.kernel_h; ++ky) {
    for (int kx = 0; kx < s.kernel_w; ++kx) {
      for (int ch = 0; ch < s.channels; ++ch) {
        tap_offset[taps++] =
            ch * channel_size + (kx % s.stride_w) * phase_size + kx / s.stride_w + ky * plane_w;
      }
    }
  }
  const int oc = s.out_channels;
  for (int oy = row_begin; oy < row_end; ++oy) {
    for (int ox = 0; ox < s.out_w; ox += kLanes) {
      if (oc == 24) {
        LanePixels<24>(s, packed, planes, plane_w, taps, tap_offset, oy, ox, lo, hi, epilogue,
                       slope, out);
      } else if (oc == 16) {
        LanePixels<16>(s, packed, planes, plane_w, taps, tap_offset, oy, ox, lo, hi, epilogue,
                       slope, out);
      } else {
        LanePixels<8>(s, packed, planes, plane_w, taps, tap_offset, oy, ox, lo, hi, epilogue, slope,
                      out);
      }
    }
  }
}

// What the 8-channel direct variant does after the sums (StemConv::min_ ..
// tail_).
struct PairNext;
struct DirectEpilogue {
  float lo, hi;  // the conv's clamp
  int act;       // 0 none, 1 HARD_SWISH, 2 PRELU (slope)
  const float* slope;
  const float* scale;  // DEPTHWISE 1x1 on the output, or nullptr
  const float* bias;
  float lo1, hi1;
  float* out2;  // PRELU (slope2) then DEPTHWISE 1x1 (scale2, bias2) of the output
  const float* slope2;
  const float* scale2;
  const float* bias2;
  float lo2, hi2;
  float* out3;  // MAX_POOL 2x2 stride 2 of the output
  float lo3, hi3;
  bool out_unread = false;  // the pair variant's pooled row pairs need no output
  // StemConv::SetNext: the next conv (PairNext below) computed from the
  // second output; next_rows its staged input rows (PairRows8's buffer).
  const PairNext* next = nullptr;
  float* next_rows = nullptr;
};

__attribute__((target("avx512f,avx512vl,fma"))) inline __m256 Prelu8(__m256 v, const float* slope) {
  const __mmask8 neg =
      _mm256_cmp_epi32_mask(_mm256_castps_si256(v), _mm256_setzero_si256(), _MM_CMPINT_LT);
  return _mm256_mask_mul_ps(v, neg, v, _mm256_loadu_ps(slope));
}
// A DEPTHWISE 1x1 as XNNPACK 2022's vmulcaddc (SSE): multiply, round, add,
// clamp (this file is built without FMA contraction).
__attribute__((target("avx512f,avx512vl,fma"))) inline __m256 Scale8(__m256 v, const float* scale,
                                                                     const float* bias, float lo,
                                                                     float hi) {
  v = _mm256_add_ps(_mm256_mul_ps(v, _mm256_loadu_ps(scale)), _mm256_loadu_ps(bias));
  return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
}

// A pixel's channels in one register for the direct variants: 8 (ymm) or
// 16 (zmm).
#define SLUICE_DIRECT_TARGET __attribute__((target("avx512f,avx512vl,fma"), always_inline))
struct Ymm8 {
  using V = __m256;
  static constexpr int kOC = 8;
  static constexpr bool kMem = false;
  SLUICE_DIRECT_TARGET static V Load(const float* p) { return _mm256_loadu_ps(p); }
  SLUICE_DIRECT_TARGET static V Fma(float x, V w, V acc) {
    return _mm256_fmadd_ps(_mm256_set1_ps(x), w, acc);
  }
};
struct Zmm16 {
  using V = __m512;
  static constexpr int kOC = 16;
  static constexpr bool kMem = false;
  SLUICE_DIRECT_TARGET static V Load(const float* p) { return _mm512_loadu_ps(p); }
  SLUICE_DIRECT_TARGET static V Fma(float x, V w, V acc) {
    return _mm512_fmadd_ps(_mm512_set1_ps(x), w, acc);
  }
};
// Zmm16 with the unguarded taps' FMAs in inline asm, the input broadcast
// from memory ({1to16}) by each FMA. With the intrinsics GCC sees that
// stride 2 makes pixel p's third column pixel p + 1's first, keeps those
// broadcasts in registers and spills the 16 accumulators' neighbours
// (~230 stack accesses per 16 pixels); the asm keeps every broadcast in its
// FMA (loads are not the bound). The same fma(x, w, acc), so the same bits.
// SLUICE_XNNPACK_STEM_MEMFMA=0: Zmm16.
struct Zmm16Mem : Zmm16 {
  static constexpr bool kMem = true;
  // acc + w * row[at], `at` an immediate offset (a constant once the
  // callers' loops are unrolled): one base register a kernel row (an "m"
  // operand a pixel made GCC keep 16 pointers and spill them). The "m"
  // input tells GCC the asm reads row[at] (no "memory" clobber needed).
  SLUICE_DIRECT_TARGET static V FmaMem(const float* row, int at, V w, V acc) {
#if !defined(__clang__)
    if (__builtin_constant_p(at)) {
      asm("vfmadd231ps %c[at](%[row])%{1to16%}, %[w], %[acc]"
          : [acc] "+v"(acc)
          : [w] "v"(w), [row] "r"(row), [at] "i"(at * 4), "m"(row[at]));
      return acc;
    }
#endif
    // Not unrolled (-O0, -Og) or clang: a memory operand, the same FMA.
    asm("vfmadd231ps %[x]%{1to16%}, %[w], %[acc]" : [acc] "+v"(acc) : [w] "v"(w), [x] "m"(row[at]));
    return acc;
  }
};

// The direct variants' taps (3x3, stride 2, 3 input channels): R output
// pixels of row oy from ox on, read from the unstaged NHWC input, each tap
// one weight load (w: per tap Vec::kOC weights) and R FMAs with the input
// broadcast from memory, onto acc (holding the bias). kGuard: taps outside
// the image read 0 (the staged variants' zero border, so the same
// fma(0, w, acc)). Taps in order: rows, columns, channels.
// (kK = 2, kC = 8: hand_recrop's 2x2 stride-2 8 -> 8, kGuard false only.)
template <typename Vec, int R, bool kGuard, int kK = 3, int kC = 3>
SLUICE_DIRECT_TARGET inline void DirectTaps(const StemConvShape& s, const float* w, const float* in,
                                            int oy, int ox, typename Vec::V* acc) {
  constexpr int kS = 2, kOC = Vec::kOC;
  const int iy0 = oy * kS - s.pad_top, ix0 = ox * kS - s.pad_left;
  if (!kGuard) {
    // All taps inside: constant offsets from one pointer per kernel row.
    const float* r0 = in + (static_cast<ptrdiff_t>(iy0) * s.in_w + ix0) * kC;
    const ptrdiff_t row_floats = static_cast<ptrdiff_t>(s.in_w) * kC;
#pragma GCC unroll 3
    for (int ky = 0; ky < kK; ++ky) {
      const float* r = r0 + ky * row_floats;
#pragma GCC unroll 16
      for (int t = 0; t < kK * kC; ++t) {  // kx * kC + ch: the row's taps in order
        const typename Vec::V wv = Vec::Load(w + (ky * kK * kC + t) * kOC);
#pragma GCC unroll 16
        for (int p = 0; p < R; ++p) {
          if constexpr (Vec::kMem) {
            acc[p] = Vec::FmaMem(r, p * kS * kC + t, wv, acc[p]);
          } else {
            acc[p] = Vec::Fma(r[p * kS * kC + t], wv, acc[p]);
          }
        }
      }
    }
    return;
  }
  for (int ky = 0; ky < kK; ++ky) {
    const int iy = iy0 + ky;
    const bool row_in = iy >= 0 && iy < s.in_h;
    const float* row = in + static_cast<ptrdiff_t>(row_in ? iy : 0) * s.in_w * kC;
    for (int kx = 0; kx < kK; ++kx) {
      for (int ch = 0; ch < kC; ++ch, w += kOC) {
        const typename Vec::V wv = Vec::Load(w);
#pragma GCC unroll 16
        for (int p = 0; p < R; ++p) {
          const int ix = ix0 + p * kS + kx;
          const float x = row_in && ix >= 0 && ix < s.in_w ? row[ix * kC + ch] : 0.0f;
          acc[p] = Vec::Fma(x, wv, acc[p]);
        }
      }
    }
  }
}

// Zeros for DirectTaps16Rows' taps outside the image (offsets < 16 * 6 + 9).
alignas(64) constexpr float kZeroTaps[128] = {};

// DirectTaps<Zmm16Mem, R, false> for blocks that touch the image's border:
// a kernel row above or below the image reads kZeroTaps, and with kLastOut
// pixel R - 1's third column (one past the right edge) does too. The same
// fma(0, w, acc) as DirectTaps' guarded path, in the same order, so the
// same bits; no per-tap tests, and the border rows and last column run in
// whole 16-pixel blocks. Needs every other tap inside (ox * 2 >= pad_left).
template <int R, bool kLastOut>
SLUICE_DIRECT_TARGET inline void DirectTaps16Rows(const StemConvShape& s, const float* w,
                                                  const float* in, int oy, int ox, __m512* acc) {
  constexpr int kS = 2, kC = 3, kOC = 16;
  const int iy0 = oy * kS - s.pad_top, ix0 = ox * kS - s.pad_left;
#pragma GCC unroll 3
  for (int ky = 0; ky < 3; ++ky) {
    const int iy = iy0 + ky;
    const float* r = iy >= 0 && iy < s.in_h
                         ? in + (static_cast<ptrdiff_t>(iy) * s.in_w + ix0) * kC
                         : kZeroTaps;
#pragma GCC unroll 16
    for (int t = 0; t < 3 * kC; ++t) {
      const __m512 wv = _mm512_loadu_ps(w + (ky * 3 * kC + t) * kOC);
#pragma GCC unroll 16
      for (int p = 0; p < R; ++p) {
        if (kLastOut && p == R - 1 && t >= 2 * kC) {
          acc[p] = Zmm16Mem::FmaMem(kZeroTaps, 0, wv, acc[p]);
        } else {
          acc[p] = Zmm16Mem::FmaMem(r, p * kS * kC + t, wv, acc[p]);
        }
      }
    }
  }
}

// The 8-channel direct variant (3x3, stride 2, 3 input channels:
// hand_recrop's stem), DirectPixels16's scheme with a pixel's 8 channels in
// a ymm (AVX-512VL for the PRELU mask): R output pixels of row oy from ox
// on, read from the unstaged NHWC input, each tap one weight load and R
// FMAs with the input broadcast from memory. kGuard: taps outside the image
// read 0 (the staged variants' zero border, so the same fma(0, w, acc));
// pixels past out_w are not stored. Same taps in the same order (rows,
// columns, channels) and the same epilogue as LanePixels, so the same
// bits. kTail: with the DEPTHWISE 1x1 tail (StemConv::SetScale,
// SetSecondOutput; a template argument: the run-time tests in every
// pixel's epilogue cost 0.108 -> 0.119 ms without a tail).
// kK = 2, kC = 8: hand_recrop's 2x2 stride-2 8 -> 8 (DirectRows8K2).
template <int R, bool kGuard, bool kTail, int kK = 3, int kC = 3>
__attribute__((target("avx512f,avx512vl,fma"))) void DirectPixels8(
    const StemConvShape& s, const float* packed, const float* in, int oy, int ox,
    const DirectEpilogue& epilogue, float* out) {
  constexpr int kOC = Ymm8::kOC;
  const DirectEpilogue e = epilogue;  // (a copy: the stores below cannot change it)
  __m256 acc[R];
  const __m256 bias = _mm256_loadu_ps(packed);
#pragma GCC unroll 16
  for (int p = 0; p < R; ++p) acc[p] = bias;
  DirectTaps<Ymm8, R, kGuard, kK, kC>(s, packed + kOC, in, oy, ox, acc);
  const int valid = kGuard ? std::min(R, s.out_w - ox) : R;
  const size_t at = (static_cast<size_t>(oy) * s.out_w + ox) * kOC;
  const __m256 lo = _mm256_set1_ps(e.lo), hi = _mm256_set1_ps(e.hi);
#pragma GCC unroll 16
  for (int p = 0; p < R; ++p) {
    if (kGuard && p >= valid) break;
    __m256 v = _mm256_min_ps(_mm256_max_ps(acc[p], lo), hi);
    if (e.act == 1) {  // HARD_SWISH as LanePixels
      __m256 t = _mm256_fmadd_ps(v, _mm256_set1_ps(0x1.555556p-3f), _mm256_set1_ps(0.5f));
      t = _mm256_max_ps(t, _mm256_setzero_ps());
      t = _mm256_min_ps(t, _mm256_set1_ps(1.0f));
      v = _mm256_mul_ps(t, v);
    } else if (e.act == 2) {  // PRELU by the sign bit
      v = Prelu8(v, e.slope);
    }
    if (kTail && e.scale) v = Scale8(v, e.scale, e.bias, e.lo1, e.hi1);
    _mm256_storeu_ps(out + at + p * kOC, v);
    if (kTail && e.out2) {
      _mm256_storeu_ps(e.out2 + at + p * kOC,
                       Scale8(Prelu8(v, e.slope2), e.scale2, e.bias2, e.lo2, e.hi2));
    }
  }
}

// Row i of the MAX_POOL 2x2 stride 2 (VALID) of the output `out` (8
// channels) into e.out3, as XNNPACK 2022's f32 maxpool 9p8x SSE kernel:
// inputs i0..i3 the window column by column ((2i, 2j), (2i + 1, 2j), (2i,
// 2j + 1), (2i + 1, 2j + 1)), i4..i8 = i0, its tree of maxes (the operand
// order decides which zero of +-0 survives), then the clamp.
__attribute__((target("avx512f,avx512vl,fma"))) void PoolRow8(const StemConvShape& s,
                                                              const DirectEpilogue& e,
                                                              const float* out, int i) {
  constexpr int kOC = 8;
  const int pw = s.out_w / 2;
  const float* r0 = out + static_cast<size_t>(2 * i) * s.out_w * kOC;
  const float* r1 = r0 + static_cast<size_t>(s.out_w) * kOC;
  float* o = e.out3 + static_cast<size_t>(i) * pw * kOC;
  const __m256 lo = _mm256_set1_ps(e.lo3), hi = _mm256_set1_ps(e.hi3);
  for (int j = 0; j < pw; ++j) {
    const __m256 i0 = _mm256_loadu_ps(r0 + 2 * j * kOC);
    const __m256 i1 = _mm256_loadu_ps(r1 + 2 * j * kOC);
    const __m256 i2 = _mm256_loadu_ps(r0 + (2 * j + 1) * kOC);
    const __m256 i3 = _mm256_loadu_ps(r1 + (2 * j + 1) * kOC);
    const __m256 m018 = _mm256_max_ps(_mm256_max_ps(i0, i1), i0);
    const __m256 m23 = _mm256_max_ps(i2, i3);
    const __m256 m2345 = _mm256_max_ps(m23, _mm256_max_ps(i0, i0));
    const __m256 m01678 = _mm256_max_ps(m018, _mm256_max_ps(i0, i0));
    const __m256 m = _mm256_max_ps(m2345, m01678);
    _mm256_storeu_ps(o + j * kOC, _mm256_max_ps(_mm256_min_ps(m, hi), lo));
  }
}

// Row oy of the 8-channel direct variant, 16-pixel blocks ([x_lo, x_hi):
// the columns with every tap inside).
template <bool kTail>
__attribute__((target("avx512f,avx512vl,fma"))) inline void DirectRow8(
    const StemConvShape& s, const float* packed, const float* in, const DirectEpilogue& e,
    float* out, int oy, int x_lo, int x_hi) {
  constexpr int kR = 16;  // (24 measured slower: 0.144-0.150 vs 0.108-0.110 ms)
  {
    const int iy0 = oy * 2 - s.pad_top;
    if (iy0 < 0 || iy0 + 2 >= s.in_h) {  // a border row: every tap checked
      for (int ox = 0; ox < s.out_w; ox += kR) {
        DirectPixels8<kR, true, kTail>(s, packed, in, oy, ox, e, out);
      }
      return;
    }
    for (int ox = 0; ox < x_lo; ++ox) {
      DirectPixels8<1, true, kTail>(s, packed, in, oy, ox, e, out);
    }
    int ox = x_lo;
    for (; ox + kR <= x_hi; ox += kR) {
      DirectPixels8<kR, false, kTail>(s, packed, in, oy, ox, e, out);
    }
    if (ox + 8 <= x_hi) {
      DirectPixels8<8, false, kTail>(s, packed, in, oy, ox, e, out);
      ox += 8;
    }
    if (ox + 4 <= x_hi) {
      DirectPixels8<4, false, kTail>(s, packed, in, oy, ox, e, out);
      ox += 4;
    }
    if (ox < x_hi && x_hi - x_lo >= 4) {
      // The last 1-3 inside as a block of 4 ending at x_hi (its first pixels
      // again, the same values): single pixels wait on their FMA latency.
      DirectPixels8<4, false, kTail>(s, packed, in, oy, x_hi - 4, e, out);
      ox = x_hi;
    }
    for (; ox < x_hi; ++ox) {
      DirectPixels8<1, false, kTail>(s, packed, in, oy, ox, e, out);
    }
    for (; ox < s.out_w; ++ox) {
      DirectPixels8<1, true, kTail>(s, packed, in, oy, ox, e, out);
    }
  }
}

// Rows [row_begin, row_end) of the 8-channel direct variant, and the pool
// rows they hold whole.
template <bool kTail>
__attribute__((target("avx512f,avx512vl,fma"))) void DirectRows8(
    const StemConvShape& s, const float* packed, const float* in, const DirectEpilogue& e,
    float* out, int row_begin, int row_end) {
  // Output columns whose taps are all inside the image: [x_lo, x_hi).
  const int x_lo = std::min(s.out_w, (s.pad_left + 1) / 2);
  const int x_hi = s.in_w - 3 + s.pad_left < 0
                       ? x_lo
                       : std::max(x_lo, std::min(s.out_w, (s.in_w - 3 + s.pad_left) / 2 + 1));
  for (int oy = row_begin; oy < row_end; ++oy) {
    DirectRow8<kTail>(s, packed, in, e, out, oy, x_lo, x_hi);
    if (kTail && e.out3 && oy % 2 == 1 && oy - 1 >= row_begin) PoolRow8(s, e, out, oy / 2);
  }
}

// Rows [row_begin, row_end) of hand_recrop's 2x2 stride-2 8 -> 8 conv
// (every window inside: UsesDirect), DirectPixels8's scheme: a window is
// two runs of 16 floats, taps in memory order (rows, columns, channels) as
// XNNPACK's IGEMM sums them. Op 5 with its PRELU: 0.044 + 0.005 ms on
// XNNPACK; the lanes variant (staging 8 channel planes) took 0.089.
template <bool kTail>
__attribute__((target("avx512f,avx512vl,fma"))) void DirectRows8K2(
    const StemConvShape& s, const float* packed, const float* in, const DirectEpilogue& e,
    float* out, int row_begin, int row_end) {
  constexpr int kR = 16;
  for (int oy = row_begin; oy < row_end; ++oy) {
    int ox = 0;
    for (; ox + kR <= s.out_w; ox += kR) {
      DirectPixels8<kR, false, kTail, 2, 8>(s, packed, in, oy, ox, e, out);
    }
    for (; ox + 4 <= s.out_w; ox += 4) {
      DirectPixels8<4, false, kTail, 2, 8>(s, packed, in, oy, ox, e, out);
    }
    for (; ox < s.out_w; ++ox) DirectPixels8<1, false, kTail, 2, 8>(s, packed, in, oy, ox, e, out);
    if (kTail && e.out3 && oy % 2 == 1 && oy - 1 >= row_begin) PoolRow8(s, e, out, oy / 2);
  }
}

// The direct variant (3x3, stride 2, 3 input channels, 16 output channels:
// the selfie models' stem): R output pixels of row oy from ox on, read from
// the unstaged NHWC input, a pixel's 16 channels in one register (no
// transpose back), each tap one weight load and R FMAs with the input
// broadcast from memory. kGuard: taps outside the image read 0 (the staged
// variants' zero border, so the same fma(0, w, acc)); pixels past out_w are
// computed but not stored. Same taps in the same order (rows, columns,
// channels) and the same epilogue as LanePixels, so the same bits. (One
// template for 8 and 16 channels with DirectPixels8's epilogue spilled:
// 0.148 -> 0.191 ms here.)
// kBounded false: the conv's clamp is (-inf, +inf) and skipped (the
// same bits for every non-NaN sum, as PairUnbounded).
// kRows: the taps by DirectTaps16Rows (1; 2: with kLastOut).
template <int R, bool kGuard, bool kMem, bool kBounded = true, int kRows = 0>
__attribute__((target("avx512f,avx512vl,fma"))) void DirectPixels16(
    const StemConvShape& s, const float* packed, const float* in, int oy, int ox, float lo_f,
    float hi_f, int epilogue, const float* slope, float* out) {
  __m512 acc[R];
  const __m512 bias = _mm512_loadu_ps(packed);
#pragma GCC unroll 16
  for (int p = 0; p < R; ++p) acc[p] = bias;
  using Vec = std::conditional_t<kMem && !kGuard, Zmm16Mem, Zmm16>;
  if constexpr (kRows > 0) {
    DirectTaps16Rows<R, kRows == 2>(s, packed + kLanes, in, oy, ox, acc);
  } else {
    DirectTaps<Vec, R, kGuard>(s, packed + kLanes, in, oy, ox, acc);
  }
  const __m512 lo = _mm512_set1_ps(lo_f), hi = _mm512_set1_ps(hi_f);
  const int valid = kGuard ? std::min(R, s.out_w - ox) : R;
  float* o = out + (static_cast<size_t>(oy) * s.out_w + ox) * kLanes;
#pragma GCC unroll 16
  for (int p = 0; p < R; ++p) {
    __m512 v = kBounded ? _mm512_min_ps(_mm512_max_ps(acc[p], lo), hi) : acc[p];
    if (epilogue == 1) {  // HARD_SWISH as LanePixels
      __m512 t = _mm512_fmadd_ps(v, _mm512_set1_ps(0x1.555556p-3f), _mm512_set1_ps(0.5f));
      t = _mm512_max_ps(t, _mm512_setzero_ps());
      t = _mm512_min_ps(t, _mm512_set1_ps(1.0f));
      v = _mm512_mul_ps(t, v);
    } else if (epilogue == 2) {  // PRELU by the sign bit
      const __mmask16 neg =
          _mm512_cmp_epi32_mask(_mm512_castps_si512(v), _mm512_setzero_si512(), _MM_CMPINT_LT);
      v = _mm512_mask_mul_ps(v, neg, v, _mm512_loadu_ps(slope));
    }
    if (!kGuard || p < valid) _mm512_storeu_ps(o + p * kLanes, v);
  }
}

template <bool kMem, bool kBounded = true>
__attribute__((target("avx512f,avx512vl,fma"))) void DirectRows16(
    const StemConvShape& s, const float* packed, const float* in, float lo, float hi, int epilogue,
    const float* slope, float* out, int row_begin, int row_end, bool zero_taps) {
  // Output columns whose taps are all inside the image: [x_lo, x_hi).
  const int x_lo = std::min(s.out_w, (s.pad_left + 1) / 2);
  const int x_hi = s.in_w - 3 + s.pad_left < 0
                       ? x_lo
                       : std::max(x_lo, std::min(s.out_w, (s.in_w - 3 + s.pad_left) / 2 + 1));
  // The selfie stems (SAME, even sizes: no left padding, the last column's
  // third tap one past the edge, the last row's third row below it): every
  // row in 16-pixel blocks (DirectTaps16Rows), the last one taking the last
  // column; blocks may overlap (the same values stored twice). The guarded
  // path's two blocks of 4 and single pixels per row and its per-tap tests
  // on the border rows cost ~10 % (SLUICE_XNNPACK_STEM_ZERO_TAPS=0: not).
  const bool last_out = x_hi == s.out_w - 1 && (s.out_w - 1) * 2 - s.pad_left + 2 == s.in_w;
  if (kMem && zero_taps && x_lo == 0 && s.pad_left == 0 && s.out_w >= 17 &&
      (x_hi == s.out_w || last_out)) {
    const int end = last_out ? s.out_w - 16 : s.out_w;  // [0, end): all taps inside
    for (int oy = row_begin; oy < row_end; ++oy) {
      int ox = 0;
      for (; ox + 16 <= end; ox += 16) {
        DirectPixels16<16, false, kMem, kBounded, 1>(s, packed, in, oy, ox, lo, hi, epilogue,
                                                     slope, out);
      }
      if (ox < end) {
        DirectPixels16<16, false, kMem, kBounded, 1>(s, packed, in, oy, std::max(0, end - 16), lo,
                                                     hi, epilogue, slope, out);
      }
      if (last_out) {
        DirectPixels16<16, false, kMem, kBounded, 2>(s, packed, in, oy, s.out_w - 16, lo, hi,
                                                     epilogue, slope, out);
      }
    }
    return;
  }
  for (int oy = row_begin; oy < row_end; ++oy) {
    const int iy0 = oy * 2 - s.pad_top;
    if (iy0 < 0 || iy0 + 2 >= s.in_h) {  // a border row: every tap checked
      for (int ox = 0; ox < s.out_w; ox += 16) {
        DirectPixels16<16, true, false>(s, packed, in, oy, ox, lo, hi, epilogue, slope, out);
      }
      continue;
    }
    for (int ox = 0; ox < x_lo; ++ox) {
      DirectPixels16<1, true, false>(s, packed, in, oy, ox, lo, hi, epilogue, slope, out);
    }
    int ox = x_lo;
    for (; ox + 16 <= x_hi; ox += 16) {
      DirectPixels16<16, false, kMem, kBounded>(s, packed, in, oy, ox, lo, hi, epilogue, slope,
                                                out);
    }
    if (ox + 8 <= x_hi) {
      DirectPixels16<8, false, kMem, kBounded>(s, packed, in, oy, ox, lo, hi, epilogue, slope, out);
      ox += 8;
    }
    if (ox + 4 <= x_hi) {
      DirectPixels16<4, false, kMem, kBounded>(s, packed, in, oy, ox, lo, hi, epilogue, slope, out);
      ox += 4;
    }
    if (ox < x_hi && x_hi - x_lo >= 4) {
      // The last 1-3 inside as a block of 4 ending at x_hi (its first pixels
      // again, the same values): single pixels wait on their FMA latency.
      DirectPixels16<4, false, kMem, kBounded>(s, packed, in, oy, x_hi - 4, lo, hi, epilogue,
                                               slope, out);
      ox = x_hi;
    }
    for (; ox < x_hi; ++ox) {
      DirectPixels16<1, false, kMem, kBounded>(s, packed, in, oy, ox, lo, hi, epilogue, slope, out);
    }
    for (; ox < s.out_w; ++ox) {
      DirectPixels16<1, true, false>(s, packed, in, oy, ox, lo, hi, epilogue, slope, out);
    }
  }
}


// The pair variant of the 8-channel direct stem (3x3, stride 2, 3 -> 8:
// hand_recrop's op 0; StemConv::pairs_). The ymm variant above runs its
// FMAs 8 lanes wide (a ymm FMA per pixel and tap): half of what the FMA
// ports take. Here a zmm holds two adjacent output pixels: lane 2c + q is
// channel c of pixel q, so a tap's two inputs come from one 64-bit
// broadcast load (x_A, x_B, x_A, x_B, ...) if x_A and x_B sit side by side.
// Each input row is staged once per Compute call (a ring of rows on the
// stack) as, per pixel pair (2j, 2j + 1) and tap (kx, ch), t = 3 kx + ch,
// the entry {P[4j + kx][ch], P[4j + kx + 2][ch]}, P the zero-padded row:
// 9 entries (18 floats) a pair, one 64-bit broadcast a tap for both pixels.
// Weights and bias are interleaved to match ({w_c, w_c});
// the sums are permuted back to [pixel A's 8 channels, pixel B's] before
// the epilogue. Same taps in the same order (bias, rows, columns, channels,
// padding as fma(0, w, acc)) and the same epilogue per lane as
// DirectPixels8: the same bits.
constexpr int kPairMaxOutW = 256;  // the stack buffers' size
constexpr int kPairFloats = 18;    // staged floats a pixel pair
// (Staged in groups of 8 pairs, 9 registers; 32 floats of slack.)
constexpr int PairRowFloats(int out_w) { return ((out_w + 15) / 16) * 8 * kPairFloats + 32; }

// Input row iy of the padded image staged into `dst` (PairRowFloats floats).
// Only pairs [p0, p1) (p0 a multiple of 8), pair p0 first in `dst`; whole
// groups of 8 pairs (the entries past p1 are of zero columns or unused).
// Pair j's entry t is floats 12 j + t and 12 j + t + 6 of the padded row,
// so register k of a group (its 16 floats; 9 a group) is one permute of
// the group's input floats 16 m .. 16 m + 31, m = kPairLoad[k] (7 loads
// of 16 floats a group; two unaligned loads per register were slower:
// op 0 0.123 -> 0.134 ms). Before, 12 entries a pair (4 columns, 3 read):
// a third more permutes and stores, op 0 0.120-0.130 vs 0.116-0.124 ms.
constexpr int kPairLoad[9] = {0, 0, 1, 1, 2, 3, 3, 4, 5};
__attribute__((target("avx512f,avx512vl,fma"))) void PairStageRow(const StemConvShape& s,
                                                                  const float* in, int iy,
                                                                  float* dst, int p0, int p1) {
  const int row_floats = s.in_w * 3;
  const float* row = in + static_cast<ptrdiff_t>(iy) * row_floats;
  // Register k's lane l: float 16 kPairLoad[k] + kIdx[k][l] of the group.
  alignas(64) static const int32_t kIdx[9][16] = {
      {0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12, 7, 13},
      {8, 14, 12, 18, 13, 19, 14, 20, 15, 21, 16, 22, 17, 23, 18, 24},
      {3, 9, 4, 10, 8, 14, 9, 15, 10, 16, 11, 17, 12, 18, 13, 19},
      {14, 20, 15, 21, 16, 22, 20, 26, 21, 27, 22, 28, 23, 29, 24, 30},
      {9, 15, 10, 16, 11, 17, 12, 18, 16, 22, 17, 23, 18, 24, 19, 25},
      {4, 10, 5, 11, 6, 12, 7, 13, 8, 14, 12, 18, 13, 19, 14, 20},
      {15, 21, 16, 22, 17, 23, 18, 24, 19, 25, 20, 26, 24, 30, 25, 31},
      {10, 16, 11, 17, 12, 18, 13, 19, 14, 20, 15, 21, 16, 22, 20, 26},
      {5, 11, 6, 12, 7, 13, 8, 14, 9, 15, 10, 16, 11, 17, 12, 18}};
  __m512i idx[9];
#pragma GCC unroll 9
  for (int k = 0; k < 9; ++k) idx[k] = _mm512_load_si512(kIdx[k]);
  const int shift = 3 * s.pad_left;
  auto load = [&](int base) SLUICE_DIRECT_TARGET {  // floats base .. base + 15, 0 outside
    if (base >= 0 && base + 16 <= row_floats) return _mm512_loadu_ps(row + base);
    alignas(64) float tmp[16];
    for (int i = 0; i < 16; ++i) {
      tmp[i] = base + i >= 0 && base + i < row_floats ? row[base + i] : 0.0f;
    }
    return _mm512_load_ps(tmp);
  };
  for (int g = p0 / 8; 8 * g < p1; ++g) {
    float* d = dst + (g - p0 / 8) * 8 * kPairFloats;
    __m512 x[7];
#pragma GCC unroll 7
    for (int m = 0; m < 7; ++m) x[m] = load(96 * g + 16 * m - shift);
#pragma GCC unroll 9
    for (int k = 0; k < 9; ++k) {
      _mm512_storeu_ps(d + 16 * k,
                       _mm512_permutex2var_ps(x[kPairLoad[k]], idx[k], x[kPairLoad[k] + 1]));
    }
  }
}

// 8 floats twice (vbroadcastf64x4: a load).
SLUICE_DIRECT_TARGET inline __m512 Dup8(const float* p) {
  return _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(p))));
}

// The epilogue's constants, loaded once per block of registers (loaded
// from e per register, the compiler reloaded them after every store: they
// might alias the output).
struct PairConsts {
  __m512i split;
  __m512 lo, hi, slope, scale, bias, lo1, hi1, slope2, scale2, bias2, lo2, hi2;
};
template <bool kTail>
SLUICE_DIRECT_TARGET inline PairConsts LoadPairConsts(const DirectEpilogue& e) {
  PairConsts c;
  c.split = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
  c.lo = _mm512_set1_ps(e.lo), c.hi = _mm512_set1_ps(e.hi);
  c.slope = c.scale = c.bias = c.slope2 = c.scale2 = c.bias2 = _mm512_setzero_ps();
  c.lo1 = c.hi1 = c.lo2 = c.hi2 = _mm512_setzero_ps();
  if (e.act == 2) c.slope = Dup8(e.slope);
  if (kTail && e.scale) {
    c.scale = Dup8(e.scale), c.bias = Dup8(e.bias);
    c.lo1 = _mm512_set1_ps(e.lo1), c.hi1 = _mm512_set1_ps(e.hi1);
  }
  if (kTail && (e.out2 || e.next)) {
    c.slope2 = Dup8(e.slope2), c.scale2 = Dup8(e.scale2), c.bias2 = Dup8(e.bias2);
    c.lo2 = _mm512_set1_ps(e.lo2), c.hi2 = _mm512_set1_ps(e.hi2);
  }
  return c;
}

// The epilogue of one pair register (sums of pixels A, B in the
// interleaved lanes): permuted to [A's 8 channels, B's], then clamp,
// activation and the DEPTHWISE 1x1 as DirectPixels8, lane for lane.
// kBounded false (PairUnbounded): every clamp of e is (-inf, +inf) and is
// skipped (max(v, -inf) and min(v, +inf) are v for every non-NaN v).
template <bool kTail, bool kBounded = true>
SLUICE_DIRECT_TARGET inline __m512 PairEpilogue(__m512 acc, const DirectEpilogue& e,
                                                const PairConsts& c) {
  __m512 v = _mm512_permutexvar_ps(c.split, acc);
  if (kBounded) v = _mm512_min_ps(_mm512_max_ps(v, c.lo), c.hi);
  if (e.act == 1) {  // HARD_SWISH as DirectPixels8
    __m512 t = _mm512_fmadd_ps(v, _mm512_set1_ps(0x1.555556p-3f), _mm512_set1_ps(0.5f));
    t = _mm512_max_ps(t, _mm512_setzero_ps());
    t = _mm512_min_ps(t, _mm512_set1_ps(1.0f));
    v = _mm512_mul_ps(t, v);
  } else if (e.act == 2) {  // PRELU by the sign bit
    const __mmask16 neg =
        _mm512_cmp_epi32_mask(_mm512_castps_si512(v), _mm512_setzero_si512(), _MM_CMPINT_LT);
    v = _mm512_mask_mul_ps(v, neg, v, c.slope);
  }
  if (kTail && e.scale) {  // Scale8: product rounded, then the add
    v = _mm512_add_ps(_mm512_mul_ps(v, c.scale), c.bias);
    if (kBounded) v = _mm512_min_ps(_mm512_max_ps(v, c.lo1), c.hi1);
  }
  return v;
}

// StemConv::SetNext's conv (the 2x2 stride-2 pair variant) as PairRows8
// runs it from the second output's registers.
struct PairNext {
  const StemConvShape* s;
  const float* w;  // its pair_w_
  DirectEpilogue e;
  float* out;
  bool bounded;  // its clamps taken (not K2Unbounded)
};
// Its output row oy, pixel pairs [j0, j1), from next_rows (PairRows8K2's
// staged rows). Not inlined: inside PairRows8 the compiler spilled.
__attribute__((noinline)) void PairNextRow(const PairNext& n, const float* rows, int oy, int j0,
                                           int j1);

// R pixel pairs of output rows oy .. oy + kRows - 1 (1 or 2) from pair j0
// on; rows[i]: staged input row 2 * oy - pad_top + i (a zero row outside the
// image); w: StemConv::pair_w_. With two rows the MAX_POOL row oy / 2 from
// the registers (PoolRow8's order), and (e.out_unread) no output stores.
template <int R, int kRows, bool kTail, bool kBounded = true>
__attribute__((target("avx512f,avx512vl,fma"))) inline void PairPixels8(
    const StemConvShape& s, const float* w, const float* const* rows, int oy, int j0, int js,
    const DirectEpilogue& epilogue, float* out) {
  __m512 acc[kRows][R];
  const __m512 bias = _mm512_loadu_ps(w);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    acc[0][r] = bias;
    if (kRows == 2) acc[kRows - 1][r] = bias;
  }
  // By staged row i: row oy's kernel row i, row oy + 1's kernel row i - 2
  // (each sum still takes its kernel rows in order); row 2's broadcasts
  // serve both. (By kernel row, the compiler kept the shared broadcasts
  // live across rows and spilled.)
#pragma GCC unroll 5
  for (int i = 0; i < 2 * kRows + 1; ++i) {
    const float* base = rows[i] + kPairFloats * js;
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t) {  // kx * 3 + ch
      const bool top = i < 3, bottom = kRows == 2 && i >= 2;
      const __m512 w0 = _mm512_loadu_ps(w + 16 * (1 + (top ? i : 0) * 9 + t));
      const __m512 w1 = _mm512_loadu_ps(w + 16 * (1 + (bottom ? i - 2 : 0) * 9 + t));
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        double d;
        std::memcpy(&d, base + kPairFloats * r + 2 * t, sizeof d);
        const __m512 x = _mm512_castpd_ps(_mm512_set1_pd(d));
        if (top) acc[0][r] = _mm512_fmadd_ps(x, w0, acc[0][r]);
        if (bottom) acc[kRows - 1][r] = _mm512_fmadd_ps(x, w1, acc[kRows - 1][r]);
      }
    }
  }
  const DirectEpilogue e = epilogue;  // (a copy: the stores below cannot change it)
  const PairConsts c = LoadPairConsts<kTail>(e);
  const size_t at = (static_cast<size_t>(oy) * s.out_w + 2 * j0) * 8;
  const bool store = !(kTail && kRows == 2 && e.out_unread);
  __m512 held[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  const int next_row = e.next ? (e.next->s->out_w + 1) / 2 * 32 : 0;
  const __m512i k2_lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i k2_hi =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    // The last pair of an odd row has no pixel B.
    const bool whole = 2 * (j0 + r) + 1 < s.out_w;
    const __mmask16 m = whole ? 0xffff : 0x00ff;
    __m512 v[kRows];
#pragma GCC unroll 2
    for (int q = 0; q < kRows; ++q) {
      v[q] = PairEpilogue<kTail, kBounded>(acc[q][r], e, c);
      const size_t o = at + static_cast<size_t>(q) * s.out_w * 8 + 16 * r;
      if (store) _mm512_mask_storeu_ps(out + o, m, v[q]);
      if (kTail && (e.out2 || e.next)) {
        const __mmask16 neg = _mm512_cmp_epi32_mask(_mm512_castps_si512(v[q]),
                                                    _mm512_setzero_si512(), _MM_CMPINT_LT);
        __m512 u = _mm512_mask_mul_ps(v[q], neg, v[q], c.slope2);
        u = _mm512_add_ps(_mm512_mul_ps(u, c.scale2), c.bias2);
        if (kBounded) u = _mm512_min_ps(_mm512_max_ps(u, c.lo2), c.hi2);
        if (kRows == 2 && e.next) {
          // The next conv's staging (PairStageRowK2's layout) of second
          // output row oy + q: its pixel pair (j0 + r) / 2 interleaves this
          // pair's and the one before.
          if (r % 2 == 0) {
            held[q] = u;
          } else {
            float* d = e.next_rows + q * next_row + 32 * ((j0 + r) / 2);
            _mm512_store_ps(d, _mm512_permutex2var_ps(held[q], k2_lo, u));
            _mm512_store_ps(d + 16, _mm512_permutex2var_ps(held[q], k2_hi, u));
          }
        } else {
          _mm512_mask_storeu_ps(e.out2 + o, m, u);
        }
      }
    }
    if (kTail && kRows == 2 && e.out3 && whole) {
      // PoolRow8 with i0 | i2 = v[0] (pixels 2j, 2j + 1 of row 2i), i1 | i3
      // = v[1]: the same maxes in the same operand order, two windows' worth
      // of halves at a time.
      const __m512 top = v[0], bot = v[1];
      const __m512 top_sw = _mm512_shuffle_f32x4(top, top, 0x4E);  // i2 | i0
      const __m512 a = _mm512_max_ps(top, bot);                    // max(i0, i1) | max(i2, i3)
      const __m512 m2345 = _mm512_max_ps(a, top_sw);               // high: max(m23, i0)
      const __m512 m018 = _mm512_max_ps(a, top);                   // low: max(max(i0, i1), i0)
      const __m512 m01678 = _mm512_max_ps(m018, top);              // low: max(m018, max(i0, i0))
      const __m256 mx = _mm256_max_ps(
          _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(m2345), 1)),
          _mm512_castps512_ps256(m01678));
      const __m256 pooled =
          kBounded ? _mm256_max_ps(_mm256_min_ps(mx, _mm256_set1_ps(e.hi3)), _mm256_set1_ps(e.lo3))
                   : mx;
      _mm256_storeu_ps(e.out3 + (static_cast<size_t>(oy / 2) * (s.out_w / 2) + j0 + r) * 8,
                       pooled);
    }
  }
}

// Rows [row_begin, row_end) of the pair variant: two rows at a time from
// even rows (the pool row they hold from the registers), else one (an odd
// last row, or a range not starting at an even row: compute_rows() keeps
// pooled ranges even). Input rows staged once per call (5 ring slots:
// each row pair reads 5, sharing one with the next).
template <bool kTail, bool kBounded = true>
__attribute__((target("avx512f,avx512vl,fma"))) void PairRows8(
    const StemConvShape& s, const float* w, const float* in, const DirectEpilogue& e, float* out,
    int row_begin, int row_end, int strip) {
  const int pairs = (s.out_w + 1) / 2;
  strip = strip / 8 * 8;  // (PairStageRow's groups)
  const int width = strip > 0 && strip < pairs ? strip : pairs;
  const int row_size = PairRowFloats(2 * width);
  alignas(64) float ring[6 * PairRowFloats(kPairMaxOutW)];
  // SetNext: the next conv's two staged input rows (its input: out_w / 2
  // pixel pairs of 32 floats a row).
  alignas(64) float next_rows[2 * (kPairMaxOutW / 4) * 32];
  DirectEpilogue en = e;
  en.next_rows = next_rows;
  float* zero = ring + 5 * row_size;
  std::memset(zero, 0, sizeof(float) * row_size);
  for (int jb = 0; jb < pairs; jb += width) {
    const int je = std::min(pairs, jb + width);
    int held[5] = {-1, -1, -1, -1, -1};  // the input row in each ring slot
    for (int oy = row_begin; oy < row_end;) {
      const int n = oy % 2 == 0 && oy + 1 < row_end ? 2 : 1;
      const float* rows[5];
      for (int i = 0; i < 2 * n + 1; ++i) {
        const int iy = 2 * oy - s.pad_top + i;
        if (iy < 0 || iy >= s.in_h) {
          rows[i] = zero;
          continue;
        }
        float* slot = ring + (iy % 5) * row_size;
        if (held[iy % 5] != iy) {
          PairStageRow(s, in, iy, slot, jb, je);
          held[iy % 5] = iy;
        }
        rows[i] = slot;
      }
      int j = jb;
      if (n == 2) {
        for (; j + 8 <= je; j += 8) {
          PairPixels8<8, 2, kTail, kBounded>(s, w, rows, oy, j, j - jb, en, out);
        }
        if (j + 4 <= je) {
          PairPixels8<4, 2, kTail, kBounded>(s, w, rows, oy, j, j - jb, en, out), j += 4;
        }
        for (; j < je; ++j) PairPixels8<1, 2, kTail, kBounded>(s, w, rows, oy, j, j - jb, e, out);
        if (kTail && e.next) PairNextRow(*e.next, next_rows, oy / 2, jb / 2, je / 2);
      } else {
        for (; j + 16 <= je; j += 16) {
          PairPixels8<16, 1, kTail, kBounded>(s, w, rows, oy, j, j - jb, e, out);
        }
        if (j + 8 <= je) {
          PairPixels8<8, 1, kTail, kBounded>(s, w, rows, oy, j, j - jb, e, out), j += 8;
        }
        if (j + 4 <= je) {
          PairPixels8<4, 1, kTail, kBounded>(s, w, rows, oy, j, j - jb, e, out), j += 4;
        }
        for (; j < je; ++j) PairPixels8<1, 1, kTail, kBounded>(s, w, rows, oy, j, j - jb, e, out);
      }
      oy += n;
    }
  }
}

// The pair variant of hand_recrop's 2x2 stride-2 8 -> 8 conv
// (EightChannelShape; DirectRows8K2 on ymm): output pixels (2j, 2j + 1)
// in a zmm as in PairPixels8. Output pixel x's taps are the 16 floats of
// input columns 2x, 2x + 1 of each of its two rows (rows, columns,
// channels: memory order), so input row y is staged as, per pair j and
// float f < 16, {row[32j + f], row[32j + 16 + f]}: one 64-bit broadcast per
// tap for both pixels. Each input row serves one output row: staged per
// output row (two rows, on the stack).
__attribute__((target("avx512f,avx512vl,fma"))) void PairStageRowK2(const StemConvShape& s,
                                                                    const float* in, int iy,
                                                                    float* dst) {
  const int pairs = (s.out_w + 1) / 2;
  const int row_floats = s.in_w * 8;
  const float* row = in + static_cast<ptrdiff_t>(iy) * row_floats;
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  auto load = [&](int base) SLUICE_DIRECT_TARGET {  // floats base .. base + 15, 0 past the row
    if (base + 16 <= row_floats) return _mm512_loadu_ps(row + base);
    alignas(64) float tmp[16];
    for (int i = 0; i < 16; ++i) tmp[i] = base + i < row_floats ? row[base + i] : 0.0f;
    return _mm512_load_ps(tmp);
  };
  for (int j = 0; j < pairs; ++j) {
    const __m512 a = load(32 * j), b = load(32 * j + 16);
    _mm512_storeu_ps(dst + 32 * j, _mm512_permutex2var_ps(a, lo, b));
    _mm512_storeu_ps(dst + 32 * j + 16, _mm512_permutex2var_ps(a, hi, b));
  }
}

template <int R, bool kTail, bool kBounded = true>
__attribute__((target("avx512f,avx512vl,fma"))) inline void PairPixels8K2(
    const StemConvShape& s, const float* w, const float* rows, int oy, int j0,
    const DirectEpilogue& e, float* out) {
  const int row_size = ((s.out_w + 1) / 2) * 32;
  __m512 acc[R];
  const __m512 bias = _mm512_loadu_ps(w);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) acc[r] = bias;
#pragma GCC unroll 2
  for (int ky = 0; ky < 2; ++ky) {
    const float* base = rows + ky * row_size + 32 * j0;
#pragma GCC unroll 16
    for (int f = 0; f < 16; ++f) {
      const __m512 wv = _mm512_loadu_ps(w + 16 * (1 + ky * 16 + f));
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        double d;
        std::memcpy(&d, base + 32 * r + 2 * f, sizeof d);
        acc[r] = _mm512_fmadd_ps(_mm512_castpd_ps(_mm512_set1_pd(d)), wv, acc[r]);
      }
    }
  }
  float* o = out + (static_cast<size_t>(oy) * s.out_w + 2 * j0) * 8;
  const PairConsts c = LoadPairConsts<kTail>(e);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    const __mmask16 m = 2 * (j0 + r) + 1 < s.out_w ? 0xffff : 0x00ff;
    _mm512_mask_storeu_ps(o + 16 * r, m, PairEpilogue<kTail, kBounded>(acc[r], e, c));
  }
}

void PairNextRow(const PairNext& n, const float* rows, int oy, int j0, int j1) {
  const auto run = [&](auto bounded) {
    constexpr bool kB = decltype(bounded)::value;
    int j = j0;
    for (; j + 16 <= j1; j += 16) PairPixels8K2<16, true, kB>(*n.s, n.w, rows, oy, j, n.e, n.out);
    if (j + 8 <= j1) PairPixels8K2<8, true, kB>(*n.s, n.w, rows, oy, j, n.e, n.out), j += 8;
    if (j + 4 <= j1) PairPixels8K2<4, true, kB>(*n.s, n.w, rows, oy, j, n.e, n.out), j += 4;
    for (; j < j1; ++j) PairPixels8K2<1, true, kB>(*n.s, n.w, rows, oy, j, n.e, n.out);
  };
  if (n.bounded) {
    run(std::true_type());
  } else {
    run(std::false_type());
  }
}

// kBounded false: as PairRows8<true, false> (K2Unbounded).
template <bool kTail, bool kBounded = true>
__attribute__((target("avx512f,avx512vl,fma"))) void PairRows8K2(
    const StemConvShape& s, const float* w, const float* in, const DirectEpilogue& e, float* out,
    int row_begin, int row_end) {
  const int pairs = (s.out_w + 1) / 2;
  alignas(64) float rows[2 * (kPairMaxOutW / 2) * 32];
  for (int oy = row_begin; oy < row_end; ++oy) {
    PairStageRowK2(s, in, 2 * oy, rows);
    PairStageRowK2(s, in, 2 * oy + 1, rows + pairs * 32);
    int j = 0;
    for (; j + 16 <= pairs; j += 16) {
      PairPixels8K2<16, kTail, kBounded>(s, w, rows, oy, j, e, out);
    }
    if (j + 8 <= pairs) PairPixels8K2<8, kTail, kBounded>(s, w, rows, oy, j, e, out), j += 8;
    if (j + 4 <= pairs) PairPixels8K2<4, kTail, kBounded>(s, w, rows, oy, j, e, out), j += 4;
    for (; j < pairs; ++j) PairPixels8K2<1, kTail, kBounded>(s, w, rows, oy, j, e, out);
  }
}
}  // namespace

// The pair stem's tail with no finite clamp anywhere (hand_recrop: none):
// PairRows8<true, false> skips them. SLUICE_XNNPACK_STEM_UNBOUNDED=0: not.
bool StemConv::PairUnbounded() const {
  const auto open = [](float lo, float hi) {
    return std::isinf(lo) && lo < 0 && std::isinf(hi) && hi > 0;
  };
  return unbounded_ && open(min_, max_) && (tail_.scale.empty() || open(tail_.lo, tail_.hi)) &&
         (!(tail_.out2 || next_) || open(tail_.lo2, tail_.hi2)) &&
         (!tail_.out3 || open(tail_.lo3, tail_.hi3));
}

// The same for the 2x2 pair stem (hand_recrop's 8 -> 8 + PRELU + DEPTHWISE
// 1x1: no finite clamp). SLUICE_XNNPACK_STEM_K2_UNBOUNDED=0: not.
bool StemConv::K2Unbounded() const { return k2_unbounded_ && PairUnbounded(); }

void StemConv::Compute(float* out, int row_begin, int row_end) const {
  if (direct_) {
    if (s_.out_channels == 16) {
      const bool open = unbounded_ && min_ == -INFINITY && max_ == INFINITY;
      const auto rows16 = !mem_fma_ ? DirectRows16<false>
                          : open    ? DirectRows16<true, false>
                                    : DirectRows16<true>;
      return rows16(s_, packed_.data(), in_, min_, max_, epilogue_, slope_.data(), out, row_begin,
                    row_end, zero_taps_);
    }
    const bool tail = !tail_.scale.empty() || tail_.out2 || tail_.out3 || next_;
    const auto rows = pairs_ && s_.kernel_h == 2
                          ? (!tail           ? PairRows8K2<false>
                             : K2Unbounded() ? PairRows8K2<true, false>
                                             : PairRows8K2<true>)
                      : s_.kernel_h == 2 ? (tail ? DirectRows8K2<true> : DirectRows8K2<false>)
                                       : (tail ? DirectRows8<true> : DirectRows8<false>);
    DirectEpilogue e{min_,
                           max_,
                           epilogue_,
                           slope_.data(),
                           tail_.scale.empty() ? nullptr : tail_.scale.data(),
                           tail_.bias.data(),
                           tail_.lo,
                           tail_.hi,
                           tail_.out2,
                           tail_.slope2.data(),
                           tail_.scale2.data(),
                           tail_.bias2.data(),
                           tail_.lo2,
                           tail_.hi2,
                           tail_.out3,
                           tail_.lo3,
                           tail_.hi3,
                           tail_.out_unread};
    if (pairs_ && s_.kernel_h == 3) {
      PairNext next;
      if (next_) {
        const StemConv& n = *next_;
        next = PairNext{&n.s_,
                        n.pair_w_.data(),
                        DirectEpilogue{n.min_, n.max_, n.epilogue_, n.slope_.data(),
                                       n.tail_.scale.empty() ? nullptr : n.tail_.scale.data(),
                                       n.tail_.bias.data(), n.tail_.lo, n.tail_.hi},
                        next_out_,
                        !n.K2Unbounded()};
        e.next = &next;
      }
      const auto pair_rows = !tail              ? PairRows8<false>
                             : PairUnbounded() ? PairRows8<true, false>
                                               : PairRows8<true>;
      return pair_rows(s_, pair_w_.data(), in_, e, out, row_begin, row_end, strip_);
    }
    return rows(s_, pairs_ ? pair_w_.data() : packed_.data(), in_, e, out, row_begin, row_end);
  }
  if (lanes_) {
    return LaneRows(s_, packed_.data(), padded_.data(), plane_w_, padded_h_, min_, max_, epilogue_,
                    slope_.data(), out, row_begin, row_end);
  }
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
