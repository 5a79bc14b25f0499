#include "inference/xnnpack/pointwise_conv.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SLUICE_POINTWISE_AVX512 1
#else
#define SLUICE_POINTWISE_AVX512 0
#endif

namespace sluice::inference::xnn {
namespace {

constexpr int kNr = PointwiseConv::kBlockChannels;  // two zmm registers
constexpr int kMr = PointwiseConv::kTileRows;

// Rows of the next tile for `left` rows (PointwiseConv::tile_plan_): 7
// while more than 64 are left (unless `whole`); then, with t = ceil(left /
// 8), when t tiles of 7 or 8 rows cover them exactly, the next of those (8s
// first), else 7 (the last tile partial, its rows past the end aliased but
// computed). 64 rows (8x8 images): 8 x 8 instead of 9 x 7 and a tile for
// one row; 36 (6x6): 8 + 4 x 7 instead of 5 x 7 + 1; 16 (4x4): 2 x 8, not
// 7 + 7 + 2. `whole` (N <= 16, Tile<1>: 7 accumulators for 2 FMA ports x 4
// cycles of latency) plans every range so: 8-row tiles throughout
// (pose_landmark's 96 -> 16 step 0.213-0.218 -> 0.201-0.212 ms, 32 -> 16
// 0.040 -> 0.037-0.039; for wider 1x1s, on Tile<2>, 8-row tiles throughout
// measured within noise, +-3 %).
size_t TileRows(size_t left, bool whole = false) {
  if (left > 64 && !whole) return kMr;
  const size_t t = (left + 7) / 8;  // the fewest tiles of at most 8 rows
  if (left < 7 * t) return kMr;     // no exact cover
  return left > 7 * t ? 8 : kMr;    // left - 7t tiles of 8 first, then 7s
}

float* Align64(HugeFloats& v) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(v.data());
  return reinterpret_cast<float*>((p + 63) & ~uintptr_t{63});
}

#if SLUICE_POINTWISE_AVX512
struct Epilogue {
  float min, max;                   // the convolution's clamp
  const float* residual = nullptr;  // tile origin in the residual, or null
  size_t residual_stride = 0;
  __mmask16 residual_mask[2] = {0, 0};  // its channels in this block (the rest are 0)
  float add_min = 0, add_max = 0;
  const float* slope = nullptr;  // 32 slopes of this block, or null
  // NarrowTile: the residual's and the stores' channels (bit c: channel c).
  uint32_t narrow_residual = 0, narrow_store = 0;
};

// One tile: up to kRows (7, or 8: Run's tile plan, TileRows) rows x one
// block of kRegs * 16 channels. `w` = 32 biases then K rows of 32 weights.
// Rows past `mr` alias the last real row (computed, stored with the same
// values), as XNNPACK's kernels do. kRegs: a full 32-channel block (2) or a
// last block of <= 16 (1).
constexpr int kMr8 = 8;
template <int kRows, int kRegs>
__attribute__((target("avx512f"))) void Tile(size_t mr, size_t k, const float* a, size_t a_stride,
                                             const float* w, float* c, size_t c_stride,
                                             __mmask16 mask0, __mmask16 mask1, const Epilogue& e) {
  const float* ap[kRows];
  ap[0] = a;
  for (int r = 1; r < kRows; ++r)
    ap[r] = static_cast<size_t>(r) < mr ? ap[r - 1] + a_stride : ap[r - 1];
  __m512 acc[kRows][kRegs];
#pragma GCC unroll 16
  for (int j = 0; j < kRegs; ++j) {
    const __m512 b = _mm512_load_ps(w + 16 * j);
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) acc[r][j] = b;
  }
  w += kNr;
  for (size_t i = 0; i < k; ++i) {
    __m512 wv[kRegs];
#pragma GCC unroll 16
    for (int j = 0; j < kRegs; ++j) wv[j] = _mm512_load_ps(w + 16 * j);
    w += kNr;
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) {
      const __m512 b = _mm512_set1_ps(ap[r][i]);
#pragma GCC unroll 16
      for (int j = 0; j < kRegs; ++j) acc[r][j] = _mm512_fmadd_ps(b, wv[j], acc[r][j]);
    }
  }
  const __m512 lo = _mm512_set1_ps(e.min), hi = _mm512_set1_ps(e.max);
  const __m512 alo = _mm512_set1_ps(e.add_min), ahi = _mm512_set1_ps(e.add_max);
  const __mmask16 masks[2] = {mask0, mask1};
  // Highest row first: aliased rows end with the real row's values.
#pragma GCC unroll 16
  for (int r = kRows - 1; r >= 0; --r) {
    const size_t row = static_cast<size_t>(r) < mr ? r : mr - 1;
    float* cr = c + row * c_stride;
#pragma GCC unroll 16
    for (int j = 0; j < kRegs; ++j) {
      __m512 v = _mm512_min_ps(_mm512_max_ps(acc[r][j], lo), hi);
      if (e.residual) {
        const float* rr = e.residual + row * e.residual_stride + 16 * j;
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(e.residual_mask[j], rr));
        v = _mm512_min_ps(_mm512_max_ps(v, alo), ahi);
      }
      if (e.slope) {
        // By the sign bit, as XNNPACK's PRELU (-0.0 included).
        const __mmask16 neg =
            _mm512_cmp_epi32_mask(_mm512_castps_si512(v), _mm512_setzero_si512(), _MM_CMPINT_LT);
        v = _mm512_mask_mul_ps(v, neg, v, _mm512_load_ps(e.slope + 16 * j));
      }
      _mm512_mask_storeu_ps(cr + 16 * j, masks[j], v);
    }
  }
}

// The narrow tile (N <= 8 on kRegs = 1, 16 < N <= 24 on kRegs = 3): kPairs
// pairs of rows, lane 2c + p of register j = channel 8j + c of the pair's
// row p. `w` = 16 * kRegs biases then K rows of 16 * kRegs weights (each
// channel's weight twice). The tile's inputs are first copied to `buf` with
// each pair's two rows interleaved, so that one 64-bit broadcast gives a
// pair its two inputs of channel i. Rows past `mr` alias the last real row,
// as in Tile.
constexpr int kNarrowMaxK = 128;  // buf: 2 * kNarrowMaxK floats per pair
template <int kPairs, int kRegs>
__attribute__((target("avx512f"))) void NarrowTile(size_t mr, size_t k, const float* a,
                                                   size_t a_stride, const float* w, float* c,
                                                   size_t n, const Epilogue& e, float* buf) {
  // Interleave: (x0 y0 x1 y1 ...) from rows x, y, 16 input channels at a time.
  const __m512i lo_idx = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i hi_idx =
      _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  for (int p = 0; p < kPairs; ++p) {
    const float* x = a + std::min<size_t>(2 * p, mr - 1) * a_stride;
    const float* y = a + std::min<size_t>(2 * p + 1, mr - 1) * a_stride;
    float* d = buf + p * (2 * kNarrowMaxK);
    for (size_t i = 0; i < k; i += 16) {
      const size_t left = k - i;
      const __mmask16 m = left >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << left) - 1);
      const __m512 xv = _mm512_maskz_loadu_ps(m, x + i), yv = _mm512_maskz_loadu_ps(m, y + i);
      _mm512_store_ps(d + 2 * i, _mm512_permutex2var_ps(xv, lo_idx, yv));
      if (left > 8) _mm512_store_ps(d + 2 * i + 16, _mm512_permutex2var_ps(xv, hi_idx, yv));
    }
  }
  __m512 acc[kPairs][kRegs];
#pragma GCC unroll 4
  for (int j = 0; j < kRegs; ++j) {
    const __m512 b = _mm512_load_ps(w + 16 * j);
#pragma GCC unroll 16
    for (int p = 0; p < kPairs; ++p) acc[p][j] = b;
  }
  w += 16 * kRegs;
  for (size_t i = 0; i < k; ++i) {
    __m512 wv[kRegs];
#pragma GCC unroll 4
    for (int j = 0; j < kRegs; ++j) wv[j] = _mm512_load_ps(w + 16 * (kRegs * i + j));
#pragma GCC unroll 16
    for (int p = 0; p < kPairs; ++p) {
      const double* pair = reinterpret_cast<const double*>(buf + p * (2 * kNarrowMaxK) + 2 * i);
      const __m512 b = _mm512_castpd_ps(_mm512_broadcastsd_pd(_mm_load_sd(pair)));
#pragma GCC unroll 4
      for (int j = 0; j < kRegs; ++j) acc[p][j] = _mm512_fmadd_ps(b, wv[j], acc[p][j]);
    }
  }
  // Lanes to [row 0's 8 channels | row 1's 8 channels].
  const __m512i split = _mm512_set_epi32(15, 13, 11, 9, 7, 5, 3, 1, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512 lo = _mm512_set1_ps(e.min), hi = _mm512_set1_ps(e.max);
  const __m512 alo = _mm512_set1_ps(e.add_min), ahi = _mm512_set1_ps(e.add_max);
#pragma GCC unroll 16
  for (int p = kPairs - 1; p >= 0; --p) {
    const size_t r0 = std::min<size_t>(2 * p, mr - 1), r1 = std::min<size_t>(2 * p + 1, mr - 1);
    // Register j last to first: aliased rows end with the real row's values.
#pragma GCC unroll 4
    for (int j = kRegs - 1; j >= 0; --j) {
      // Channels 8j.. of the residual and of the stores (masks of 8 lanes).
      const __mmask16 res_mask = static_cast<__mmask16>((e.narrow_residual >> (8 * j)) & 0xFF);
      const __mmask16 store_mask = static_cast<__mmask16>((e.narrow_store >> (8 * j)) & 0xFF);
      __m512 v = _mm512_permutexvar_ps(split, acc[p][j]);
      v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
      if (e.residual) {
        const float* rx = e.residual + r0 * e.residual_stride + 8 * j;
        const float* ry = e.residual + r1 * e.residual_stride + 8 * j;
        const __m512 x = _mm512_maskz_loadu_ps(res_mask, rx);
        const __m512 y = _mm512_maskz_loadu_ps(res_mask, ry);
        v = _mm512_add_ps(v, _mm512_shuffle_f32x4(x, y, 0x44));  // [x 0..7 | y 0..7]
        v = _mm512_min_ps(_mm512_max_ps(v, alo), ahi);
      }
      if (e.slope) {
        const __mmask16 neg =
            _mm512_cmp_epi32_mask(_mm512_castps_si512(v), _mm512_setzero_si512(), _MM_CMPINT_LT);
        v = _mm512_mask_mul_ps(v, neg, v, _mm512_load_ps(e.slope + 16 * j));
      }
      _mm512_mask_storeu_ps(c + r1 * n + 8 * j, store_mask, _mm512_shuffle_f32x4(v, v, 0xEE));
      _mm512_mask_storeu_ps(c + r0 * n + 8 * j, store_mask, v);
    }
  }
}

// Rows [row_begin, row_end) through NarrowTile: 2 * kB-row tiles, then
// tiles of at most 2 * kS rows; kRegs registers a row pair.
template <int kB, int kS, int kRegs>
__attribute__((target("avx512f"))) void NarrowRows(size_t k, size_t n, const float* in,
                                                   const float* w, const float* residual,
                                                   size_t residual_channels, bool has_residual,
                                                   float* out, size_t row_begin, size_t row_end,
                                                   Epilogue& e, float* buf) {
  for (size_t r = row_begin; r < row_end;) {
    const size_t left = row_end - r;
    e.residual = has_residual ? residual + r * residual_channels : nullptr;
    const size_t mr = left >= 2 * kB ? 2 * kB : std::min<size_t>(2 * kS, left);
    if (left >= 2 * kB) {
      NarrowTile<kB, kRegs>(mr, k, in + r * k, k, w, out + r * n, n, e, buf);
    } else {
      NarrowTile<kS, kRegs>(mr, k, in + r * k, k, w, out + r * n, n, e, buf);
    }
    r += mr;
  }
}
// The register-weight tile (N <= 16, K = kK = 16 or 24): the block's 16
// weights of each of the first 16 input channels stay in registers for all
// of Run's rows, so a step is one input broadcast per FMA and no weight load
// (past 16 input channels: one weight load per kRegRows FMAs), on kRegRows
// accumulators (Tile<1> does 8 loads per 7 FMAs, has 7 accumulators for 2
// ports x 4 cycles of latency, and sets up a tile every 7 rows). Whole tiles
// of kRegRows rows from `a`; returns the rows done. Same float operations in
// the same order as Tile, so the same bits.
constexpr int kRegRows = 12;
template <int kK>
__attribute__((target("avx512f"))) size_t RegTiles(size_t rows, const float* a, const float* w,
                                                   float* c, size_t c_stride, __mmask16 mask,
                                                   const Epilogue& e) {
  constexpr int kHeld = kK < 16 ? kK : 16;  // with 12 accumulators: 28 of 32 registers
  __m512 wv[kHeld];
#pragma GCC unroll 32
  for (int i = 0; i < kHeld; ++i) wv[i] = _mm512_load_ps(w + kNr * (i + 1));
  size_t r = 0;
  for (; r + kRegRows <= rows; r += kRegRows) {
    const float* ar = a + r * kK;
    __m512 acc[kRegRows];
#pragma GCC unroll 16
    for (int p = 0; p < kRegRows; ++p) acc[p] = _mm512_load_ps(w);
#pragma GCC unroll 32
    for (int i = 0; i < kK; ++i) {
      // (The inner test keeps the unused branch's index in bounds.)
      const __m512 wi = i < kHeld ? wv[i < kHeld ? i : 0] : _mm512_load_ps(w + kNr * (i + 1));
#pragma GCC unroll 16
      for (int p = 0; p < kRegRows; ++p) {
        acc[p] = _mm512_fmadd_ps(_mm512_set1_ps(ar[p * kK + i]), wi, acc[p]);
      }
    }
#pragma GCC unroll 16
    for (int p = 0; p < kRegRows; ++p) {
      __m512 v = _mm512_max_ps(acc[p], _mm512_set1_ps(e.min));
      v = _mm512_min_ps(v, _mm512_set1_ps(e.max));
      if (e.residual) {
        const float* rr = e.residual + (r + p) * e.residual_stride;
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(e.residual_mask[0], rr));
        v = _mm512_max_ps(v, _mm512_set1_ps(e.add_min));
        v = _mm512_min_ps(v, _mm512_set1_ps(e.add_max));
      }
      if (e.slope) {
        const __mmask16 neg =
            _mm512_cmp_epi32_mask(_mm512_castps_si512(v), _mm512_setzero_si512(), _MM_CMPINT_LT);
        v = _mm512_mask_mul_ps(v, neg, v, _mm512_load_ps(e.slope));
      }
      _mm512_mask_storeu_ps(c + (r + p) * c_stride, mask, v);
    }
  }
  return r;
}
// The K = 8 register-weight tile (16 < N <= 32, one block, no residual or
// PRELU: the streamed 8 -> 32 expands): the block's 8 x 32 weights stay in
// 16 registers for all of Run's rows, so a 7-row tile loads only its inputs
// (Tile<7, 2> reloads 2 biases and 16 weight registers per 7 rows, and at
// K = 8 that set-up weighs as much as the FMAs). Same float operations in
// the same order as Tile, so the same bits. Whole 7-row tiles; returns the
// rows done.
__attribute__((target("avx512f"))) size_t RegTilesK8(size_t rows, const float* a, const float* w,
                                                     float* c, size_t c_stride, __mmask16 mask1,
                                                     const Epilogue& e) {
  constexpr int kK = 8, kRows = 7;
  __m512 wv[kK][2];
#pragma GCC unroll 8
  for (int i = 0; i < kK; ++i) {
    wv[i][0] = _mm512_load_ps(w + kNr * (i + 1));
    wv[i][1] = _mm512_load_ps(w + kNr * (i + 1) + 16);
  }
  size_t r = 0;
  for (; r + kRows <= rows; r += kRows) {
    const float* ar = a + r * kK;
    __m512 acc[kRows][2];
#pragma GCC unroll 8
    for (int p = 0; p < kRows; ++p) {
      acc[p][0] = _mm512_load_ps(w);
      acc[p][1] = _mm512_load_ps(w + 16);
    }
#pragma GCC unroll 8
    for (int i = 0; i < kK; ++i) {
#pragma GCC unroll 8
      for (int p = 0; p < kRows; ++p) {
        const __m512 b = _mm512_set1_ps(ar[p * kK + i]);
        acc[p][0] = _mm512_fmadd_ps(b, wv[i][0], acc[p][0]);
        acc[p][1] = _mm512_fmadd_ps(b, wv[i][1], acc[p][1]);
      }
    }
#pragma GCC unroll 8
    for (int p = 0; p < kRows; ++p) {
      float* cr = c + (r + p) * c_stride;
      const __m512 lo = _mm512_set1_ps(e.min), hi = _mm512_set1_ps(e.max);
      _mm512_storeu_ps(cr, _mm512_min_ps(_mm512_max_ps(acc[p][0], lo), hi));
      _mm512_mask_storeu_ps(cr + 16, mask1, _mm512_min_ps(_mm512_max_ps(acc[p][1], lo), hi));
    }
  }
  return r;
}
#endif

}  // namespace

bool PointwiseConvAvailable() {
#if SLUICE_POINTWISE_AVX512
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
#else
  return false;
#endif
}

PointwiseConv::PointwiseConv(int k, int n, const float* weights, const float* bias, float out_min,
                             float out_max)
    : k_(k), n_(n), min_(out_min), max_(out_max) {
  const size_t blocks = (static_cast<size_t>(n) + kNr - 1) / kNr;
  const size_t block_floats = static_cast<size_t>(kNr) * (k + 1);
  storage_.assign(blocks * block_floats + 16, 0.0f);
  packed_ = Align64(storage_);
  for (size_t blk = 0; blk < blocks; ++blk) {
    float* dst = packed_ + blk * block_floats;
    for (int j = 0; j < kNr; ++j) {
      const size_t o = blk * kNr + j;
      if (o >= static_cast<size_t>(n)) break;
      dst[j] = bias ? bias[o] : 0.0f;
      for (int i = 0; i < k; ++i) dst[kNr * (i + 1) + j] = weights[o * k + i];
    }
  }
#if SLUICE_POINTWISE_AVX512
  const char* e = std::getenv("SLUICE_XNNPACK_PW_NARROW");
  narrow_ = n <= 8 && k <= kNarrowMaxK && !(e && std::strcmp(e, "0") == 0);
  const char* e24 = std::getenv("SLUICE_XNNPACK_PW_NARROW24");
  if (n > 16 && n <= 24 && k <= kNarrowMaxK && !(e24 && std::strcmp(e24, "0") == 0)) {
    narrow_ = true;
    narrow_regs_ = 3;
  }
  const char* plan = std::getenv("SLUICE_XNNPACK_PW_TILE8");
  tile_plan_ = !(plan && std::strcmp(plan, "0") == 0);
  const char* regs = std::getenv("SLUICE_XNNPACK_PW_REGS");
  regs_ = !narrow_ && n <= 16 && (k == 16 || k == 24) && !(regs && std::strcmp(regs, "0") == 0);
  const char* tail = std::getenv("SLUICE_XNNPACK_PW_REGS_TAIL");
  const int last = n % kNr;
  regs_tail_ = !narrow_ && n > kNr && last > 0 && last <= 16 && (k == 16 || k == 24) &&
               !(tail && std::strcmp(tail, "0") == 0);
  const char* k8 = std::getenv("SLUICE_XNNPACK_PW_K8");
  k8_ = !narrow_ && k == 8 && n > 16 && n <= kNr && !(k8 && std::strcmp(k8, "0") == 0);
  if (narrow_) {
    const size_t row = 16 * static_cast<size_t>(narrow_regs_);  // floats per K row
    narrow_storage_.assign(row * (static_cast<size_t>(k) + 1) + 16, 0.0f);
    narrow_packed_ = Align64(narrow_storage_);
    for (int o = 0; o < n; ++o) {
      const size_t lane = 16 * (o / 8) + 2 * (o % 8);  // register o / 8, lane 2c + p
      for (int p = 0; p < 2; ++p) {
        narrow_packed_[lane + p] = bias ? bias[o] : 0.0f;
        for (int i = 0; i < k; ++i) narrow_packed_[row * (i + 1) + lane + p] = weights[o * k + i];
      }
    }
  }
#endif
}

void PointwiseConv::SetResidualAdd(float add_min, float add_max, int residual_channels) {
  has_residual_ = true;
  residual_channels_ = residual_channels > 0 ? std::min(residual_channels, n_) : n_;
  add_min_ = add_min;
  add_max_ = add_max;
}

void PointwiseConv::SetPrelu(const float* slope) {
  const size_t padded = (static_cast<size_t>(n_) + kNr - 1) / kNr * kNr;
  slope_storage_.assign(padded + 16, 0.0f);
  slope_ = Align64(slope_storage_);
  std::memcpy(slope_, slope, static_cast<size_t>(n_) * sizeof(float));
  // The narrow tile's [row 0 | row 1] slopes per 8 channels.
  if (narrow_) {
    narrow_slope_storage_.assign(16 * static_cast<size_t>(narrow_regs_) + 16, 0.0f);
    narrow_slope_ = Align64(narrow_slope_storage_);
    for (int o = 0; o < n_; ++o) {
      narrow_slope_[16 * (o / 8) + o % 8] = narrow_slope_[16 * (o / 8) + 8 + o % 8] = slope[o];
    }
  }
  has_prelu_ = true;
}

bool PointwiseConv::BlocksOuter() const {
  // SLUICE_XNNPACK_BLOCKS_OUTER_KB: the weight size above which blocks go
  // outer (default 512 KiB, a quarter of Sapphire Rapids' L2; for A/B).
  static const size_t limit = [] {
    const char* e = std::getenv("SLUICE_XNNPACK_BLOCKS_OUTER_KB");
    return (e && *e ? static_cast<size_t>(std::strtoull(e, nullptr, 10)) : size_t{512}) * 1024;
  }();
  return blocks() * (static_cast<size_t>(kBlockChannels) * (k_ + 1)) * sizeof(float) > limit;
}

void PointwiseConv::Run(const float* in, const float* residual, float* out, size_t row_begin,
                        size_t row_end, size_t block_begin, size_t block_end) const {
#if SLUICE_POINTWISE_AVX512
  // (3-register narrow tiles: not for a few rows, the SE convs' 1x1x24,
  // where staging the pairs costs more than the idle lanes.)
  if (narrow_ && (narrow_regs_ == 1 || row_end - row_begin >= 4)) {
    if (block_begin == 0 && block_end > 0) RunNarrow(in, residual, out, row_begin, row_end);
    return;
  }
  const size_t blocks = std::min(block_end, (static_cast<size_t>(n_) + kNr - 1) / kNr);
  const size_t block_floats = static_cast<size_t>(kNr) * (k_ + 1);
  Epilogue e;
  e.min = min_, e.max = max_;
  e.add_min = add_min_, e.add_max = add_max_;
  e.residual_stride = residual_channels_;
  if (regs_ && block_begin == 0 && blocks > 0) {
    // One block (N <= 16): whole register-weight tiles first, the rest of
    // the rows on Tile<1> below.
    e.residual = has_residual_ ? residual + row_begin * residual_channels_ : nullptr;
    e.residual_mask[0] = static_cast<__mmask16>((1u << std::min(16, residual_channels_)) - 1);
    e.slope = has_prelu_ ? slope_ : nullptr;
    const __mmask16 mask = static_cast<__mmask16>((1u << n_) - 1);
    row_begin += k_ == 16 ? RegTiles<16>(row_end - row_begin, in + row_begin * k_, packed_,
                                         out + row_begin * n_, n_, mask, e)
                          : RegTiles<24>(row_end - row_begin, in + row_begin * k_, packed_,
                                         out + row_begin * n_, n_, mask, e);
  }
  if (k8_ && !has_residual_ && !has_prelu_ && block_begin == 0 && blocks > 0) {
    e.residual = nullptr, e.slope = nullptr;
    const __mmask16 mask1 = static_cast<__mmask16>((1u << (n_ - 16)) - 1);
    row_begin += RegTilesK8(row_end - row_begin, in + row_begin * k_, packed_,
                            out + row_begin * n_, n_, mask1, e);
  }
  auto setup = [&](size_t r, size_t blk) {
    if (has_residual_) {
      e.residual = residual + r * residual_channels_ + blk * kNr;
      for (int j = 0; j < 2; ++j) {
        const int have =
            std::max(0, std::min(16, residual_channels_ - static_cast<int>(blk) * kNr - 16 * j));
        e.residual_mask[j] = static_cast<__mmask16>((1u << have) - 1);
      }
    } else {
      e.residual = nullptr;
    }
    e.slope = has_prelu_ ? slope_ + blk * kNr : nullptr;
  };
  auto tile = [&](size_t r, size_t blk, size_t height = kMr) {
    const size_t mr = std::min<size_t>(height, row_end - r);
    const int left = n_ - static_cast<int>(blk) * kNr;
    const int n0 = std::min(left, 16), n1 = std::max(0, std::min(left - 16, 16));
    const __mmask16 m0 = static_cast<__mmask16>((1u << n0) - 1);
    const __mmask16 m1 = static_cast<__mmask16>((1u << n1) - 1);
    const float* w = packed_ + blk * block_floats;
    const size_t origin = r * n_ + blk * kNr;
    setup(r, blk);
    if (height == 8) {
      if (n1 == 0) {
        Tile<kMr8, 1>(mr, k_, in + r * k_, k_, w, out + origin, n_, m0, m1, e);
      } else {
        Tile<kMr8, 2>(mr, k_, in + r * k_, k_, w, out + origin, n_, m0, m1, e);
      }
    } else if (n1 == 0) {
      Tile<kMr, 1>(mr, k_, in + r * k_, k_, w, out + origin, n_, m0, m1, e);
    } else {
      Tile<kMr, 2>(mr, k_, in + r * k_, k_, w, out + origin, n_, m0, m1, e);
    }
  };
  if (BlocksOuter()) {
    // Channel blocks outer: each block of weights (K x 32 floats) is read
    // once and stays in L1/L2 while the rows pass over it. Rows outer would
    // stream all the weights again for every 7-row tile, from L3 once they
    // outgrow L2 (pose_landmark_heavy's 8x8x1632 layers).
    for (size_t blk = block_begin; blk < blocks; ++blk) {
      for (size_t r = row_begin; r < row_end; r += kMr) tile(r, blk);
    }
    return;
  }
  if (regs_tail_ && block_begin < blocks && blocks == this->blocks()) {
    // The last block (<= 16 channels, e.g. 16 -> 72's last 8) on RegTiles
    // instead of Tile<1> (8 loads per 7 FMAs): per chunk of rows (inputs in
    // L1), the whole blocks on Tile<2>, then the last block's 12-row tiles,
    // then its leftover rows on Tile<1>.
    const size_t last = blocks - 1;
    const __mmask16 mask = static_cast<__mmask16>((1u << (n_ - static_cast<int>(last) * kNr)) - 1);
    constexpr size_t kChunk = 7 * kRegRows;  // a multiple of both tiles' rows
    for (size_t r0 = row_begin; r0 < row_end; r0 += kChunk) {
      const size_t r1 = std::min(row_end, r0 + kChunk);
      for (size_t r = r0; r < r1; r += kMr) {
        for (size_t blk = block_begin; blk < last; ++blk) tile(r, blk);
      }
      setup(r0, last);
      const size_t done =
          k_ == 16 ? RegTiles<16>(r1 - r0, in + r0 * k_, packed_ + last * block_floats,
                                  out + r0 * n_ + last * kNr, n_, mask, e)
                   : RegTiles<24>(r1 - r0, in + r0 * k_, packed_ + last * block_floats,
                                  out + r0 * n_ + last * kNr, n_, mask, e);
      for (size_t r = r0 + done; r < r1; r += kMr) tile(r, last);
    }
    return;
  }
  // Rows outer, channel blocks inner: the rows' inputs stay in L1 while every
  // block of weights (in L2) passes over them, and outputs are written in order.
  for (size_t r = row_begin; r < row_end;) {
    const size_t height = tile_plan_ ? TileRows(row_end - r, n_ <= 16) : kMr;
    for (size_t blk = block_begin; blk < blocks; ++blk) tile(r, blk, height);
    r += height;
  }
#else
  (void)in, (void)residual, (void)out, (void)row_begin, (void)row_end, (void)block_begin,
      (void)block_end;
#endif
}

void PointwiseConv::RunNarrow(const float* in, const float* residual, float* out,
                              size_t row_begin, size_t row_end) const {
#if SLUICE_POINTWISE_AVX512
  constexpr int kBig = 14, kSmall = 4;  // pairs: 28-row tiles, then 8-row ones
  constexpr int kBig3 = 7, kSmall3 = 2;  // 3 registers a pair: 14-row tiles, then 4-row ones
  alignas(64) float buf[kBig * 2 * kNarrowMaxK];
  Epilogue e;
  e.min = min_, e.max = max_;
  e.add_min = add_min_, e.add_max = add_max_;
  e.residual_stride = residual_channels_;
  e.narrow_residual = (1u << residual_channels_) - 1;
  e.narrow_store = (1u << n_) - 1;
  e.slope = has_prelu_ ? narrow_slope_ : nullptr;
  if (narrow_regs_ == 3) {
    NarrowRows<kBig3, kSmall3, 3>(k_, n_, in, narrow_packed_, residual, residual_channels_,
                                  has_residual_, out, row_begin, row_end, e, buf);
  } else {
    NarrowRows<kBig, kSmall, 1>(k_, n_, in, narrow_packed_, residual, residual_channels_,
                                has_residual_, out, row_begin, row_end, e, buf);
  }
#else
  (void)in, (void)residual, (void)out, (void)row_begin, (void)row_end;
#endif
}

}  // namespace sluice::inference::xnn
