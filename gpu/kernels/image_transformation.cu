// CUDA kernel of ImageTransformationCalculator's GPU path: one thread per
// output pixel, the maths from image_transformation.h (which the CPU loop
// runs too).
#include "gpu/kernels/image_transformation.h"
#include "gpu/kernels/image_transformation_launch.h"

namespace sluice {
namespace gpu_kernels {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__global__ void ImageTransformU8Kernel(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst,
                                       ImageTransformParams params) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= params.dst_width || y >= params.dst_height) return;
  ImageTransformPixelU8(src, params, x, y,
                        dst + y * params.dst_pitch + static_cast<long>(x) * params.channels);
}

}  // namespace

cudaError_t LaunchImageTransformU8(const uint8_t* src, uint8_t* dst,
                                   const ImageTransformParams& params, cudaStream_t stream) {
  if (src == nullptr || dst == nullptr || !ImageTransformParamsValid(params)) {
    return cudaErrorInvalidValue;
  }
  const dim3 grid((params.dst_width + kBlockX - 1) / kBlockX,
                  (params.dst_height + kBlockY - 1) / kBlockY);
  ImageTransformU8Kernel<<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(src, dst, params);
  return cudaGetLastError();
}

}  // namespace gpu_kernels
}  // namespace sluice
