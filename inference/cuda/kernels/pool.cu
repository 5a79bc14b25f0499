// CUDA kernels of AVERAGE_POOL_2D / MAX_POOL_2D: one thread per output
// (pool.h's maths), or, for a window covering the whole unpadded input (the
// selfie models' global average pools, up to 128x128 taps), one block per
// 32 channels that reduces the pixels in shared memory (pool.h's two phases).
#include <stdint.h>

#include "inference/cuda/kernels/pool.h"
#include "inference/cuda/kernels/pool_launch.h"
#include "inference/cuda/kernels/nhwc_index.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;

__global__ void Pool2DKernel(const float* __restrict__ in, float* __restrict__ out, PoolParams p,
                             int64_t total) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const NhwcIndex o = SplitNhwc(i, p.oh, p.ow, p.c);
  out[i] = PoolOutput(in, p, o.n, o.y, o.x, o.c);
}

// Block (32 channels, kGlobalPoolLanes pixel lanes); grid (channel groups, batch).
__global__ void __launch_bounds__(32 * kGlobalPoolLanes)
    GlobalPoolKernel(const float* __restrict__ in, float* __restrict__ out, PoolParams p) {
  __shared__ float part[kGlobalPoolLanes][32];
  const int ch = blockIdx.x * 32 + threadIdx.x, n = blockIdx.y;
  part[threadIdx.y][threadIdx.x] = ch < p.c ? GlobalPoolPartial(in, p, n, ch, threadIdx.y) : 0.0f;
  __syncthreads();
  if (threadIdx.y == 0 && ch < p.c) {
    out[static_cast<int64_t>(n) * p.c + ch] = GlobalPoolFinish(&part[0][threadIdx.x], 32, p);
  }
}

}  // namespace

cudaError_t LaunchPool2D(const float* in, float* out, const PoolParams& p, cudaStream_t stream) {
  if (!PoolParamsValid(p)) return cudaErrorInvalidValue;
  if (IsGlobalPool(p)) {
    if (p.n > 65535) return cudaErrorInvalidValue;
    GlobalPoolKernel<<<dim3((p.c + 31) / 32, p.n), dim3(32, kGlobalPoolLanes), 0, stream>>>(
        in, out, p);
  } else {
    const int64_t total = static_cast<int64_t>(p.n) * p.oh * p.ow * p.c;
    Pool2DKernel<<<static_cast<unsigned>((total + kThreads - 1) / kThreads), kThreads, 0,
                   stream>>>(in, out, p, total);
  }
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice
