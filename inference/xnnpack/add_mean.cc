#include "inference/xnnpack/add_mean.h"

#include <algorithm>

#include "inference/xnnpack/pointwise_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_ADDMEAN_AVX512 1
#else
#define SLUICE_ADDMEAN_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

constexpr int kLanes = 16;

#if SLUICE_ADDMEAN_AVX512
// Pixel p's sum, clamped (XNNPACK's ADD); zero past the last pixel (its
// pooling kernel's zero rows).
__attribute__((target("avx512f"), always_inline)) inline __m512 Px(const float* a, const float* b,
                                                                   size_t p, size_t n, size_t c,
                                                                   __mmask16 m, __m512 alo,
                                                                   __m512 ahi) {
  if (p >= n) return _mm512_setzero_ps();
  if (!b) return _mm512_maskz_loadu_ps(m, a + p * c);  // (the mean alone: no ADD, no clamp)
  const __m512 v =
      _mm512_add_ps(_mm512_maskz_loadu_ps(m, a + p * c), _mm512_maskz_loadu_ps(m, b + p * c));
  return _mm512_min_ps(_mm512_max_ps(v, alo), ahi);
}

// The lanes of 16-channel group starting at channel k that hold channels.
inline __mmask16 GroupMask(size_t c, size_t k) {
  const size_t left = c - k;
  return left >= static_cast<size_t>(kLanes) ? static_cast<__mmask16>(0xffff)
                                             : static_cast<__mmask16>((1u << left) - 1);
}

// XNNPACK's sum of the first 7 pixels: ((x0 + x1) + x6) + ((x2 + x3) + (x4 + x5)).
__attribute__((target("avx512f"), always_inline)) inline __m512 FirstBlockSum(const __m512* x) {
  return _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(x[0], x[1]), x[6]),
                       _mm512_add_ps(_mm512_add_ps(x[2], x[3]), _mm512_add_ps(x[4], x[5])));
}

// The mean (sum x scale), clamped by the pool's activation, stored.
__attribute__((target("avx512f"), always_inline)) inline void StoreMean(
    __m512 acc, float scale, const float* clamp, __mmask16 m, float* out) {
  __m512 v = _mm512_mul_ps(acc, _mm512_set1_ps(scale));
  v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(clamp[2])), _mm512_set1_ps(clamp[3]));
  _mm512_mask_storeu_ps(out, m, v);
}

// Group g's lanes of the clamped sums a + b, 7 pixels (a block) at a time.
struct GroupPixels {
  __attribute__((target("avx512f"), always_inline)) GroupPixels(const AddMeanShape& s,
                                                                const float* clamp,
                                                                const float* a_in,
                                                                const float* b_in, int g)
      : c(static_cast<size_t>(s.channels)),
        n(static_cast<size_t>(s.pixels)),
        k(static_cast<size_t>(g) * kLanes),
        m(GroupMask(c, k)),
        alo(_mm512_set1_ps(clamp[0])),
        ahi(_mm512_set1_ps(clamp[1])),
        a(a_in + k),
        b(b_in ? b_in + k : nullptr) {}
  // Block q's 7 pixels into x.
  __attribute__((target("avx512f"), always_inline)) void Block(int q, __m512* x) const {
    const size_t p = static_cast<size_t>(q) * 7;
#pragma GCC unroll 7
    for (int j = 0; j < 7; ++j) x[j] = Px(a, b, p + j, n, c, m, alo, ahi);
  }
  size_t c, n, k;
  __mmask16 m;
  __m512 alo, ahi;
  const float* a;
  const float* b;
};

__attribute__((target("avx512f"))) void PartialBlocks(const AddMeanShape& s, const float* clamp,
                                                      const float* a, const float* b,
                                                      float* scratch, int g, int q0, int q1) {
  const GroupPixels px(s, clamp, a, b, g);
  __m512 x[7];
  for (int q = q0; q < q1; ++q) {
    float* o = scratch + static_cast<size_t>(q) * 3 * kLanes;
    px.Block(q, x);
    if (q == 0) {  // the first block's own tree (ChainBlocks)
      _mm512_storeu_ps(o, FirstBlockSum(x));
      continue;
    }
    _mm512_storeu_ps(o, _mm512_add_ps(_mm512_add_ps(x[0], x[1]), _mm512_add_ps(x[2], x[3])));
    _mm512_storeu_ps(o + kLanes, _mm512_add_ps(x[4], x[5]));
    _mm512_storeu_ps(o + 2 * kLanes, x[6]);
  }
}

// Blocks [q0, q1) of group g added to the running sum at `acc_at` in
// XNNPACK's order: block 0 starts it (FirstBlockSum), each later block adds
// ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + acc)).
__attribute__((target("avx512f"))) void ChainBlocks(const AddMeanShape& s, const float* clamp,
                                                    const float* a, const float* b, float* acc_at,
                                                    int g, int q0, int q1) {
  const GroupPixels px(s, clamp, a, b, g);
  __m512 x[7];
  __m512 acc = _mm512_loadu_ps(acc_at);
  for (int q = q0; q < q1; ++q) {
    px.Block(q, x);
    if (q == 0) {
      acc = FirstBlockSum(x);
      continue;
    }
    const __m512 s0123 = _mm512_add_ps(_mm512_add_ps(x[0], x[1]), _mm512_add_ps(x[2], x[3]));
    const __m512 s456a = _mm512_add_ps(_mm512_add_ps(x[4], x[5]), _mm512_add_ps(x[6], acc));
    acc = _mm512_add_ps(s0123, s456a);
  }
  _mm512_storeu_ps(acc_at, acc);
}

// The whole mean of group g in one pass: every block chained, then stored.
__attribute__((target("avx512f"))) void Group(const AddMeanShape& s, const float* clamp,
                                              float scale, const float* a, const float* b,
                                              float* out, int g) {
  alignas(64) float acc[kLanes] = {};
  ChainBlocks(s, clamp, a, b, acc, g, 0, (s.pixels + 6) / 7);
  const size_t k = static_cast<size_t>(g) * kLanes;
  StoreMean(_mm512_load_ps(acc), scale, clamp, GroupMask(static_cast<size_t>(s.channels), k),
            out + k);
}

// Partial's stored sums of blocks [q0, q1) of groups g0 .. g0 + 3 (those
// below `groups`; past the last, copies of it) chained in ChainBlocks' order
// into acc, from block 0's sum (q0 = 0) or the running sums at acc_at: four
// independent chains whose adds' latencies overlap (each in its own order).
__attribute__((target("avx512f"), always_inline)) inline void ChainFour(
    const float* scratch, int blocks, const float* acc_at, int g0, int groups, int q0, int q1,
    __m512* acc) {
  const size_t stride = static_cast<size_t>(blocks) * 3 * kLanes;  // a group's sums
  const float* sc[4];
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    const int g = std::min(g0 + j, groups - 1);
    sc[j] = scratch + static_cast<size_t>(g) * stride;
    acc[j] = q0 == 0 ? _mm512_loadu_ps(sc[j]) : _mm512_loadu_ps(acc_at + g * kLanes);
  }
  for (int q = q0 == 0 ? 1 : q0; q < q1; ++q) {
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      const float* o = sc[j] + static_cast<size_t>(q) * 3 * kLanes;
      const __m512 s456a = _mm512_add_ps(_mm512_loadu_ps(o + kLanes),
                                         _mm512_add_ps(_mm512_loadu_ps(o + 2 * kLanes), acc[j]));
      acc[j] = _mm512_add_ps(_mm512_loadu_ps(o), s456a);
    }
  }
}

// ChainFour over [q0, q1), the running sums stored back at acc_at.
__attribute__((target("avx512f"))) void ChainStoredFour(const float* scratch, int blocks,
                                                        float* acc_at, int g0, int groups,
                                                        int q0, int q1) {
  __m512 acc[4];
  ChainFour(scratch, blocks, acc_at, g0, groups, q0, q1, acc);
  for (int j = 0; j < 4 && g0 + j < groups; ++j) {
    _mm512_storeu_ps(acc_at + (g0 + j) * kLanes, acc[j]);
  }
}

// ChainFour from block q0 to the last, then the means stored.
__attribute__((target("avx512f"))) void FinishFour(const AddMeanShape& s, const float* clamp,
                                                   float scale, const float* scratch, int blocks,
                                                   float* out, int g0, int groups, int q0,
                                                   const float* acc_at) {
  __m512 acc[4];
  ChainFour(scratch, blocks, acc_at, g0, groups, q0, blocks, acc);
  for (int j = 0; j < 4 && g0 + j < groups; ++j) {
    const size_t k = static_cast<size_t>(g0 + j) * kLanes;
    StoreMean(acc[j], scale, clamp, GroupMask(static_cast<size_t>(s.channels), k), out + k);
  }
}
#endif

}  // namespace

bool AddMean::Supports(const AddMeanShape& s) {
  return PointwiseConvAvailable() && s.pixels > 7 && s.channels > 0;
}

AddMean::AddMean(const AddMeanShape& s, float add_min, float add_max, float pool_min,
                 float pool_max)
    : s_(s),
      clamp_{add_min, add_max, pool_min, pool_max},
      scale_(1.0f / static_cast<float>(s.pixels)) {}

void AddMean::Run(const float* a, const float* b, float* out, int group_begin,
                  int group_end) const {
#if SLUICE_ADDMEAN_AVX512
  for (int g = group_begin; g < group_end; ++g) Group(s_, clamp_, scale_, a, b, out, g);
#else
  (void)a, (void)b, (void)out, (void)group_begin, (void)group_end;
#endif
}

void AddMean::Partial(const float* a, const float* b, float* scratch, int g, int block_begin,
                      int block_end) const {
#if SLUICE_ADDMEAN_AVX512
  PartialBlocks(s_, clamp_, a, b, scratch + static_cast<size_t>(g) * blocks() * 3 * kLanes, g,
                block_begin, block_end);
#else
  (void)a, (void)b, (void)scratch, (void)g, (void)block_begin, (void)block_end;
#endif
}

void AddMean::Finish(const float* scratch, float* out, int group_begin, int group_end) const {
#if SLUICE_ADDMEAN_AVX512
  // One group at a time (threads split by group); FinishFour's three other
  // chains are copies of it, not stored.
  for (int g = group_begin; g < group_end; ++g) {
    FinishFour(s_, clamp_, scale_, scratch, blocks(), out, g, g + 1, 0, nullptr);
  }
#else
  (void)scratch, (void)out, (void)group_begin, (void)group_end;
#endif
}

void AddMean::Chain(const float* a, const float* b, float* acc, int g, int block_begin,
                    int block_end) const {
#if SLUICE_ADDMEAN_AVX512
  ChainBlocks(s_, clamp_, a, b, acc, g, block_begin, block_end);
#else
  (void)a, (void)b, (void)acc, (void)g, (void)block_begin, (void)block_end;
#endif
}

void AddMean::ChainStored(const float* scratch, float* acc, int block_begin,
                          int block_end) const {
#if SLUICE_ADDMEAN_AVX512
  if (block_end <= block_begin) return;
  for (int g = 0; g < groups(); g += 4) {
    ChainStoredFour(scratch, blocks(), acc, g, groups(), block_begin, block_end);
  }
#else
  (void)scratch, (void)acc, (void)block_begin, (void)block_end;
#endif
}

void AddMean::FinishFrom(const float* scratch, const float* acc, int block_begin,
                         float* out) const {
#if SLUICE_ADDMEAN_AVX512
  for (int g = 0; g < groups(); g += 4) {
    FinishFour(s_, clamp_, scale_, scratch, blocks(), out, g, groups(), block_begin, acc);
  }
#else
  (void)scratch, (void)acc, (void)block_begin, (void)out;
#endif
}

}  // namespace sluice::inference::xnn
