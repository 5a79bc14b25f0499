// CUDA kernel of ImageToTensorCalculator's GPU path: one thread per tensor
// pixel, the maths from image_to_tensor.h (which the CPU loop runs too).
#include "gpu/kernels/image_to_tensor.h"
#include "gpu/kernels/image_to_tensor_launch.h"

namespace sluice {
namespace gpu_kernels {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__global__ void ImageToTensorF32Kernel(const uint8_t* __restrict__ src, float* __restrict__ dst,
                                       ImageToTensorParams params) {
  const int u = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = blockIdx.y * blockDim.y + threadIdx.y;
  if (u >= params.dst_width || v >= params.dst_height) return;
  ImageToTensorPixel(src, params, u, v,
                     dst + (static_cast<long>(v) * params.dst_width + u) * params.dst_channels);
}

}  // namespace

cudaError_t LaunchImageToTensorF32(const uint8_t* src, float* dst,
                                   const ImageToTensorParams& params, cudaStream_t stream) {
  if (src == nullptr || dst == nullptr || !ImageToTensorParamsValid(params)) {
    return cudaErrorInvalidValue;
  }
  const dim3 grid((params.dst_width + kBlockX - 1) / kBlockX,
                  (params.dst_height + kBlockY - 1) / kBlockY);
  ImageToTensorF32Kernel<<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(src, dst, params);
  return cudaGetLastError();
}

}  // namespace gpu_kernels
}  // namespace sluice
