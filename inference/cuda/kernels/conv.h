// Per-output maths of the cuda backend's convolutions and FULLY_CONNECTED,
// compiled by the host compiler (fake-runtime launchers, CPU checks) and by
// nvcc (kernels/conv.cu). NHWC activations. Each output sums its taps from zero
// in the reference kernels' order and adds the bias last, then the fused
// activation, as inference/reference/kernels_conv.cc does.
//
// Weight layouts (repacked once at Prepare time, cuda_ops_conv.cc):
//   ConvOutput / Gemm*:     [KH,KW,IC,OC]  (1x1 and FC: [K,N]): OC innermost,
//                           so neighbouring threads (neighbouring OC) read
//                           neighbouring weights.
//   Gemv*:                  [N,K]          (FULLY_CONNECTED's own layout).
//   DepthwiseOutput:        [KH,KW,OC]     (TFLite's own layout).
//   TransposeConvOutput:    [KH,KW,IC,OC].
// Bias is always present on the device (zeros when the op has none).
#ifndef SLUICE_INFERENCE_CUDA_KERNELS_CONV_H_
#define SLUICE_INFERENCE_CUDA_KERNELS_CONV_H_

#include <math.h>
#include <stdint.h>

#include "gpu/kernels/host_device.h"
#include "inference/cuda/kernels/epilogue.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {

// Fused activation codes: the values of ir::Activation.
enum ConvActivationCode : int {
  kConvActNone = 0,
  kConvActRelu = 1,
  kConvActReluN1To1 = 2,
  kConvActRelu6 = 3,
  kConvActTanh = 4,
};

SLUICE_HOST_DEVICE float ConvActivate(float v, int act) {
  switch (act) {
    case kConvActRelu:
      return v < 0.0f ? 0.0f : v;
    case kConvActRelu6:
      return v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v);
    case kConvActReluN1To1:
      return v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v);
    case kConvActTanh:
      return tanhf(v);
    default:
      return v;
  }
}

// Geometry of a (depthwise or transposed) convolution. pt/pl: leading pads.
// epi: fused consumers (epilogue.h); zero-initialised = none.
struct ConvParams {
  int n, ih, iw, ic, oh, ow, oc, kh, kw, sh, sw, dh, dw, pt, pl;
  int act;
  Epilogue epi;
};

// Bias, activation and fused consumers of output element (n, oy, ox, oc).
SLUICE_HOST_DEVICE float ConvFinish(float acc, const float* bias, const ConvParams& p, int n,
                                    int oy, int ox, int oc) {
  const float v = ConvActivate(acc + bias[oc], p.act);
  if (p.epi.count == 0) return v;
  const int64_t i = ((static_cast<int64_t>(n) * p.oh + oy) * p.ow + ox) * p.oc + oc;
  return ApplyEpilogue(v, p.epi, i, oc, p.oc);
}

// C[m, j] = act(sum_k A[m, k] * B[k, j] + bias[j]) for m < M, j < N, k < K.
// A is row-major [M,K] (an NHWC activation seen as pixels x channels, or FC
// rows), B is [K,N]. A 1x1 stride-1 unpadded convolution and
// FULLY_CONNECTED both are this.
struct GemmParams {
  int m, n, k;
  int act;
  Epilogue epi;  // fused consumers; element m * n + j, channel j
};

SLUICE_HOST_DEVICE float GemmFinish(float acc, const float* bias, const GemmParams& p, int m,
                                    int j) {
  const float v = ConvActivate(acc + bias[j], p.act);
  if (p.epi.count == 0) return v;
  return ApplyEpilogue(v, p.epi, static_cast<int64_t>(m) * p.n + j, j, p.n);
}

// The GEMM kernel's block: a kGemmTile x kGemmTile block of C per 16x16
// threads (2x2 outputs each, strided by 16 so that a warp's loads and stores
// run along N), K in steps of kGemmTileK through shared memory. Written as
// three phases between the kernel's barriers so that the fake runtime's host
// launcher runs the very same indexing, block by block, phase by phase.
constexpr int kGemmTile = 32;
constexpr int kGemmTileK = 32;
constexpr int kGemmThreads = 256;  // 16 x 16

struct GemmTiles {
  float a[kGemmTileK][kGemmTile + 1];  // a[k][m], padded against bank conflicts
  float b[kGemmTileK][kGemmTile];      // b[k][n]
};

// Phase 1 (every thread t < kGemmThreads of the block at rows m0, columns
// n0): its share of the A and B tiles of step k0; zeros outside the matrices.
// Consecutive threads read consecutive k of an A row and consecutive n of a
// B row.
SLUICE_HOST_DEVICE void GemmLoadTiles(const float* a, const float* b, const GemmParams& p, int m0,
                                      int n0, int k0, int t, GemmTiles& s) {
  for (int e = t; e < kGemmTile * kGemmTileK; e += kGemmThreads) {
    const int row = e / kGemmTileK, col = e % kGemmTileK;
    const int m = m0 + row, k = k0 + col;
    s.a[col][row] = m < p.m && k < p.k ? a[static_cast<int64_t>(m) * p.k + k] : 0.0f;
    const int kb = k0 + e / kGemmTile, nb = n0 + e % kGemmTile;
    s.b[e / kGemmTile][e % kGemmTile] =
        kb < p.k && nb < p.n ? b[static_cast<int64_t>(kb) * p.n + nb] : 0.0f;
  }
}

// Phase 2 (thread tx, ty): adds the step's products to its 2x2 outputs, k
// ascending (the reference's tap order; the zero padding adds exact zeros).
SLUICE_HOST_DEVICE void GemmAccumulate(const GemmTiles& s, int tx, int ty, float acc[2][2]) {
  for (int k = 0; k < kGemmTileK; ++k) {
    const float a0 = s.a[k][ty], a1 = s.a[k][ty + 16];
    const float b0 = s.b[k][tx], b1 = s.b[k][tx + 16];
    acc[0][0] += a0 * b0;
    acc[0][1] += a0 * b1;
    acc[1][0] += a1 * b0;
    acc[1][1] += a1 * b1;
  }
}

// Phase 3 (thread tx, ty): bias, activation, store inside C.
SLUICE_HOST_DEVICE void GemmStore(const float acc[2][2], const float* bias, float* c,
                                  const GemmParams& p, int m0, int n0, int tx, int ty) {
  for (int i = 0; i < 2; ++i) {
    const int m = m0 + ty + 16 * i;
    if (m >= p.m) continue;
    for (int j = 0; j < 2; ++j) {
      const int n = n0 + tx + 16 * j;
      if (n < p.n) c[static_cast<int64_t>(m) * p.n + n] = GemmFinish(acc[i][j], bias, p, m, n);
    }
  }
}

// Small GEMMs, whose kGemmTile tiles would not fill an H100 once (the 1x1
// convolutions at 7x7 to 24x24 pixels of the landmark and detection models:
// 2 to 72 blocks walking K up to 1152 through shared memory, 18-36 us each)
// take one output per thread instead: a block of kRowGemmRows x 32 threads,
// warp r on row m0 + r (its A values are broadcasts), lane l on column n0 + l
// (a warp reads a weight row coalesced). 4 to 32 times more blocks and no
// barriers; each thread adds k ascending, the order of the tiled kernel and
// of the reference, so the result does not depend on the kernel chosen.
constexpr int kRowGemmRows = 8;
constexpr int kRowGemmCols = 32;
constexpr int kRowGemmThreads = kRowGemmRows * kRowGemmCols;

// Whether LaunchGemm takes the row kernel (device and host launchers alike).
SLUICE_HOST_DEVICE bool GemmUsesRowKernel(const GemmParams& p) {
  const long long tiles = static_cast<long long>((p.m + kGemmTile - 1) / kGemmTile) *
                          ((p.n + kGemmTile - 1) / kGemmTile);
  return tiles < 132;
}

// Thread t of the row kernel's block at rows m0, columns n0: its output.
SLUICE_HOST_DEVICE void GemmRowOutput(const float* a, const float* b, const float* bias, float* c,
                                      const GemmParams& p, int m0, int n0, int t) {
  const int m = m0 + t / kRowGemmCols, n = n0 + t % kRowGemmCols;
  if (m >= p.m || n >= p.n) return;
  const float* ar = a + static_cast<int64_t>(m) * p.k;
  const float* bc = b + n;
  float acc = 0.0f;
#ifdef __CUDA_ARCH__
#pragma unroll 8
#endif
  for (int k = 0; k < p.k; ++k) acc += ar[k] * bc[static_cast<int64_t>(k) * p.n];
  c[static_cast<int64_t>(m) * p.n + n] = GemmFinish(acc, bias, p, m, n);
}

// FULLY_CONNECTED with few rows (batch 1): one warp per output column j, the
// weights kept in TFLite's [N,K] layout so that a warp reads a contiguous
// row. Lane l sums k = l, l + 32, ... (phase 1); a shuffle tree adds the 32
// partials, lane + 16, + 8, ..., + 1 (GemvTreeSum is that tree on an array;
// the kernel does it with __shfl_down_sync in the same order).
constexpr int kGemvMaxRows = 4;
constexpr int kGemvLanes = 32;

SLUICE_HOST_DEVICE float GemvLanePartial(const float* a, const float* w_nk, const GemmParams& p,
                                         int m, int j, int lane) {
  const float* ar = a + static_cast<int64_t>(m) * p.k;
  const float* wr = w_nk + static_cast<int64_t>(j) * p.k;
  float acc = 0.0f;
  for (int k = lane; k < p.k; k += kGemvLanes) acc += ar[k] * wr[k];
  return acc;
}

SLUICE_HOST_DEVICE float GemvTreeSum(float* part) {
  for (int offset = kGemvLanes / 2; offset > 0; offset /= 2)
    for (int l = 0; l + offset < kGemvLanes; ++l) part[l] += part[l + offset];
  return part[0];
}

// Output element (n, oy, ox, oc) of CONV_2D; taps in (ky, kx, ic) order.
SLUICE_HOST_DEVICE float ConvOutput(const float* in, const float* w, const float* bias,
                                    const ConvParams& p, int n, int oy, int ox, int oc) {
  float acc = 0.0f;
  for (int ky = 0; ky < p.kh; ++ky) {
    const int iy = oy * p.sh - p.pt + ky * p.dh;
    if (iy < 0 || iy >= p.ih) continue;
    for (int kx = 0; kx < p.kw; ++kx) {
      const int ix = ox * p.sw - p.pl + kx * p.dw;
      if (ix < 0 || ix >= p.iw) continue;
      const float* ip = in + ((static_cast<int64_t>(n) * p.ih + iy) * p.iw + ix) * p.ic;
      const float* wp = w + (static_cast<int64_t>(ky) * p.kw + kx) * p.ic * p.oc + oc;
      for (int ic = 0; ic < p.ic; ++ic) acc += ip[ic] * wp[static_cast<int64_t>(ic) * p.oc];
    }
  }
  return ConvFinish(acc, bias, p, n, oy, ox, oc);
}

// Output element (n, oy, ox, oc) of DEPTHWISE_CONV_2D: input channel
// oc / multiplier (multiplier = p.oc / p.ic). K > 0: a KxK filter without
// dilation known at compile time (the loops unroll); K == 0: from `p`.
template <int K>
SLUICE_HOST_DEVICE float DepthwiseOutput(const float* in, const float* w, const float* bias,
                                         const ConvParams& p, int n, int oy, int ox, int oc) {
  const int kh = K > 0 ? K : p.kh, kw = K > 0 ? K : p.kw;
  const int dh = K > 0 ? 1 : p.dh, dw = K > 0 ? 1 : p.dw;
  const int ch = p.oc == p.ic ? oc : oc / (p.oc / p.ic);
  const int y0 = oy * p.sh - p.pt, x0 = ox * p.sw - p.pl;
  const float* ib = in + static_cast<int64_t>(n) * p.ih * p.iw * p.ic + ch;
  float acc = 0.0f;
  for (int ky = 0; ky < kh; ++ky) {
    const int iy = y0 + ky * dh;
    if (iy < 0 || iy >= p.ih) continue;
    for (int kx = 0; kx < kw; ++kx) {
      const int ix = x0 + kx * dw;
      if (ix < 0 || ix >= p.iw) continue;
      acc += ib[(static_cast<int64_t>(iy) * p.iw + ix) * p.ic] * w[(ky * kw + kx) * p.oc + oc];
    }
  }
  return ConvFinish(acc, bias, p, n, oy, ox, oc);
}

// Which DepthwiseOutput<K> a launcher runs (the device and host launchers
// choose alike): 3 or 5 for square undilated filters, else 0.
SLUICE_HOST_DEVICE int DepthwiseVariant(const ConvParams& p) {
  if (p.kh != p.kw || p.dh != 1 || p.dw != 1) return 0;
  return p.kh == 3 || p.kh == 5 ? p.kh : 0;
}

SLUICE_HOST_DEVICE bool ConvParamsValid(const ConvParams& p) {
  return p.n > 0 && p.ih > 0 && p.iw > 0 && p.ic > 0 && p.oh > 0 && p.ow > 0 && p.oc > 0 &&
         p.kh > 0 && p.kw > 0 && p.sh > 0 && p.sw > 0 && p.dh > 0 && p.dw > 0;
}

SLUICE_HOST_DEVICE bool GemmParamsValid(const GemmParams& p) {
  return p.m > 0 && p.n > 0 && p.k > 0;
}

// Output element (n, oy, ox, oc) of MediaPipe's Convolution2DTransposeBias,
// gathered: input pixel (iy, ix) reaches output oy = iy * sh - pt + ky. The
// reference scatters input pixels in raster order onto the bias, one (ky, kx)
// per input pixel and output, so gathering with iy, ix ascending (ky, kx
// descending) adds the same partial sums in the same order.
SLUICE_HOST_DEVICE float TransposeConvOutput(const float* in, const float* w, const float* bias,
                                             const ConvParams& p, int n, int oy, int ox, int oc) {
  float acc = bias[oc];
  for (int ky = p.kh - 1; ky >= 0; --ky) {
    const int ty = oy + p.pt - ky;
    if (ty < 0 || ty % p.sh != 0) continue;
    const int iy = ty / p.sh;
    if (iy >= p.ih) continue;
    for (int kx = p.kw - 1; kx >= 0; --kx) {
      const int tx = ox + p.pl - kx;
      if (tx < 0 || tx % p.sw != 0) continue;
      const int ix = tx / p.sw;
      if (ix >= p.iw) continue;
      const float* ip = in + ((static_cast<int64_t>(n) * p.ih + iy) * p.iw + ix) * p.ic;
      const float* wp = w + (static_cast<int64_t>(ky) * p.kw + kx) * p.ic * p.oc + oc;
      float s = 0.0f;
      for (int ic = 0; ic < p.ic; ++ic) s += ip[ic] * wp[static_cast<int64_t>(ic) * p.oc];
      acc += s;
    }
  }
  return acc;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice

#endif  // SLUICE_INFERENCE_CUDA_KERNELS_CONV_H_
