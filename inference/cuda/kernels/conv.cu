// CUDA kernels of the cuda backend's convolutions and FULLY_CONNECTED. The
// per-output maths and the GEMM's tile phases are conv.h's (the fake
// runtime's host launchers run the same functions).
#include <stdint.h>

#include "inference/cuda/kernels/conv.h"
#include "inference/cuda/kernels/conv_launch.h"
#include "inference/cuda/kernels/nhwc_index.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;

unsigned BlocksFor(int64_t total) { return static_cast<unsigned>((total + kThreads - 1) / kThreads); }

// One thread per output element, channels fastest (neighbouring threads read
// neighbouring weights and share input pixels).
__global__ void Conv2DKernel(const float* __restrict__ in, const float* __restrict__ w,
                             const float* __restrict__ bias, float* __restrict__ out,
                             ConvParams p, int64_t total) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const NhwcIndex o = SplitNhwc(i, p.oh, p.ow, p.oc);
  out[i] = ConvOutput(in, w, bias, p, o.n, o.y, o.x, o.c);
}

template <int K>
__global__ void DepthwiseKernel(const float* __restrict__ in, const float* __restrict__ w,
                                const float* __restrict__ bias, float* __restrict__ out,
                                ConvParams p, int64_t total) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const NhwcIndex o = SplitNhwc(i, p.oh, p.ow, p.oc);
  out[i] = DepthwiseOutput<K>(in, w, bias, p, o.n, o.y, o.x, o.c);
}

__global__ void TransposeConvKernel(const float* __restrict__ in, const float* __restrict__ w,
                                    const float* __restrict__ bias, float* __restrict__ out,
                                    ConvParams p, int64_t total) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const NhwcIndex o = SplitNhwc(i, p.oh, p.ow, p.oc);
  out[i] = TransposeConvOutput(in, w, bias, p, o.n, o.y, o.x, o.c);
}

// Blocks of 16x16 threads; grid x over M tiles (up to 2^31 - 1), y over N.
__global__ void __launch_bounds__(kGemmThreads) GemmKernel(const float* __restrict__ a,
                                                           const float* __restrict__ b,
                                                           const float* __restrict__ bias,
                                                           float* __restrict__ c, GemmParams p) {
  __shared__ GemmTiles tiles;
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
  const int m0 = blockIdx.x * kGemmTile, n0 = blockIdx.y * kGemmTile;
  float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
  for (int k0 = 0; k0 < p.k; k0 += kGemmTileK) {
    GemmLoadTiles(a, b, p, m0, n0, k0, t, tiles);
    __syncthreads();
    GemmAccumulate(tiles, tx, ty, acc);
    __syncthreads();
  }
  GemmStore(acc, bias, c, p, m0, n0, tx, ty);
}

// Small GEMMs (conv.h GemmUsesRowKernel): grid x over kRowGemmRows rows, y
// over kRowGemmCols columns.
__global__ void __launch_bounds__(kRowGemmThreads) GemmRowKernel(const float* __restrict__ a,
                                                                 const float* __restrict__ b,
                                                                 const float* __restrict__ bias,
                                                                 float* __restrict__ c,
                                                                 GemmParams p) {
  GemmRowOutput(a, b, bias, c, p, blockIdx.x * kRowGemmRows, blockIdx.y * kRowGemmCols,
                threadIdx.x);
}

// Blocks of kGemvWarps warps, one output column each.
constexpr int kGemvWarps = 4;

__global__ void GemvKernel(const float* __restrict__ a, const float* __restrict__ w,
                           const float* __restrict__ bias, float* __restrict__ c, GemmParams p) {
  const int lane = threadIdx.x % kGemvLanes;
  const int j = blockIdx.x * kGemvWarps + threadIdx.x / kGemvLanes;
  if (j >= p.n) return;  // whole warps leave together
  for (int m = 0; m < p.m; ++m) {
    float v = GemvLanePartial(a, w, p, m, j, lane);
    for (int offset = kGemvLanes / 2; offset > 0; offset /= 2) {
      v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    if (lane == 0) c[static_cast<int64_t>(m) * p.n + j] = GemmFinish(v, bias, p, m, j);
  }
}

int64_t OutputCount(const ConvParams& p) {
  return static_cast<int64_t>(p.n) * p.oh * p.ow * p.oc;
}

}  // namespace

cudaError_t LaunchConv2D(const float* in, const float* w, const float* bias, float* out,
                         const ConvParams& p, cudaStream_t stream) {
  if (!ConvParamsValid(p)) return cudaErrorInvalidValue;
  const int64_t total = OutputCount(p);
  Conv2DKernel<<<BlocksFor(total), kThreads, 0, stream>>>(in, w, bias, out, p, total);
  return cudaGetLastError();
}

cudaError_t LaunchGemm(const float* a, const float* b, const float* bias, float* c,
                       const GemmParams& p, cudaStream_t stream) {
  if (!GemmParamsValid(p)) return cudaErrorInvalidValue;
  if (GemmUsesRowKernel(p)) {
    const dim3 grid((p.m + kRowGemmRows - 1) / kRowGemmRows,
                    (p.n + kRowGemmCols - 1) / kRowGemmCols);
    if (grid.y > 65535) return cudaErrorInvalidValue;
    GemmRowKernel<<<grid, kRowGemmThreads, 0, stream>>>(a, b, bias, c, p);
    return cudaGetLastError();
  }
  const dim3 grid((p.m + kGemmTile - 1) / kGemmTile, (p.n + kGemmTile - 1) / kGemmTile);
  if (grid.y > 65535) return cudaErrorInvalidValue;
  GemmKernel<<<grid, dim3(16, 16), 0, stream>>>(a, b, bias, c, p);
  return cudaGetLastError();
}

cudaError_t LaunchGemv(const float* a, const float* w_nk, const float* bias, float* c,
                       const GemmParams& p, cudaStream_t stream) {
  if (!GemmParamsValid(p) || p.m > kGemvMaxRows) return cudaErrorInvalidValue;
  GemvKernel<<<(p.n + kGemvWarps - 1) / kGemvWarps, kGemvWarps * kGemvLanes, 0, stream>>>(
      a, w_nk, bias, c, p);
  return cudaGetLastError();
}

cudaError_t LaunchDepthwiseConv2D(const float* in, const float* w, const float* bias, float* out,
                                  const ConvParams& p, cudaStream_t stream) {
  if (!ConvParamsValid(p) || p.oc % p.ic != 0) return cudaErrorInvalidValue;
  const int64_t total = OutputCount(p);
  switch (DepthwiseVariant(p)) {
    case 3:
      DepthwiseKernel<3><<<BlocksFor(total), kThreads, 0, stream>>>(in, w, bias, out, p, total);
      break;
    case 5:
      DepthwiseKernel<5><<<BlocksFor(total), kThreads, 0, stream>>>(in, w, bias, out, p, total);
      break;
    default:
      DepthwiseKernel<0><<<BlocksFor(total), kThreads, 0, stream>>>(in, w, bias, out, p, total);
  }
  return cudaGetLastError();
}

cudaError_t LaunchTransposeConv(const float* in, const float* w, const float* bias, float* out,
                                const ConvParams& p, cudaStream_t stream) {
  if (!ConvParamsValid(p)) return cudaErrorInvalidValue;
  const int64_t total = OutputCount(p);
  TransposeConvKernel<<<BlocksFor(total), kThreads, 0, stream>>>(in, w, bias, out, p, total);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice
