// CUDA kernel of the annotation overlay's GPU path: one thread per pixel, the
// maths from overlay.h (which the CPU loop runs too). Integer maths only.
#include "gpu/kernels/overlay.h"
#include "gpu/kernels/overlay_launch.h"

namespace sluice {
namespace gpu_kernels {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__global__ void OverlayU8Kernel(const uint8_t* src, const uint8_t* __restrict__ layer,
                                uint8_t* dst, OverlayParams params) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= params.width || y >= params.height) return;
  OverlayPixelU8(src, layer, dst, params, x, y);
}

}  // namespace

cudaError_t LaunchOverlayU8(const uint8_t* src, const uint8_t* layer, uint8_t* dst,
                            const OverlayParams& params, cudaStream_t stream) {
  if (src == nullptr || layer == nullptr || dst == nullptr || !OverlayParamsValid(params)) {
    return cudaErrorInvalidValue;
  }
  const dim3 grid((params.width + kBlockX - 1) / kBlockX, (params.height + kBlockY - 1) / kBlockY);
  OverlayU8Kernel<<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(src, layer, dst, params);
  return cudaGetLastError();
}

}  // namespace gpu_kernels
}  // namespace sluice
