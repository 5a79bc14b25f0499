// CUDA kernel of ColorConvertCalculator's GPU path: one thread per pixel, the
// maths from color_convert.h (integer only, so the device gives the CPU
// loop's bytes).
#include "gpu/kernels/color_convert.h"
#include "gpu/kernels/color_convert_launch.h"

namespace sluice {
namespace gpu_kernels {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__global__ void ColorConvertU8Kernel(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst,
                                     ColorConvertParams params) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= params.width || y >= params.height) return;
  ColorConvertPixelAtU8(src, dst, params, x, y);
}

}  // namespace

cudaError_t LaunchColorConvertU8(const uint8_t* src, uint8_t* dst,
                                 const ColorConvertParams& params, cudaStream_t stream) {
  if (src == nullptr || dst == nullptr || !ColorConvertParamsValid(params)) {
    return cudaErrorInvalidValue;
  }
  const dim3 grid((params.width + kBlockX - 1) / kBlockX, (params.height + kBlockY - 1) / kBlockY);
  ColorConvertU8Kernel<<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(src, dst, params);
  return cudaGetLastError();
}

}  // namespace gpu_kernels
}  // namespace sluice
