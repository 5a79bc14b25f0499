// CUDA kernels of the simple image filters: one thread per output pixel, the
// per-pixel maths from the headers the CPU path uses too.
#include "gpu/kernels/image_filters_launch.h"
#include "gpu/kernels/luminance.h"
#include "gpu/kernels/sobel.h"

namespace sluice {
namespace gpu_kernels {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

dim3 GridFor(int width, int height) {
  return dim3((width + kBlockX - 1) / kBlockX, (height + kBlockY - 1) / kBlockY);
}

__global__ void LuminanceU8Kernel(const uint8_t* __restrict__ src, long src_pitch,
                                  uint8_t* __restrict__ dst, long dst_pitch, int width, int height,
                                  int channels) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  LuminancePixelU8(src + y * src_pitch + static_cast<long>(x) * channels,
                   dst + y * dst_pitch + static_cast<long>(x) * channels, channels);
}

__global__ void SobelU8Kernel(const uint8_t* __restrict__ src, long src_pitch,
                              uint8_t* __restrict__ dst, long dst_pitch, int width, int height,
                              int channels) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  SobelPixelU8(src, src_pitch, dst + y * dst_pitch + static_cast<long>(x) * channels, width,
               height, channels, x, y);
}

}  // namespace

cudaError_t LaunchLuminanceU8(const uint8_t* src, long src_pitch, uint8_t* dst, long dst_pitch,
                              int width, int height, int channels, cudaStream_t stream) {
  if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) return cudaErrorInvalidValue;
  LuminanceU8Kernel<<<GridFor(width, height), dim3(kBlockX, kBlockY), 0, stream>>>(
      src, src_pitch, dst, dst_pitch, width, height, channels);
  return cudaGetLastError();
}

cudaError_t LaunchSobelU8(const uint8_t* src, long src_pitch, uint8_t* dst, long dst_pitch,
                          int width, int height, int channels, cudaStream_t stream) {
  if (width <= 0 || height <= 0 || (channels != 1 && channels != 3 && channels != 4)) {
    return cudaErrorInvalidValue;
  }
  SobelU8Kernel<<<GridFor(width, height), dim3(kBlockX, kBlockY), 0, stream>>>(
      src, src_pitch, dst, dst_pitch, width, height, channels);
  return cudaGetLastError();
}

}  // namespace gpu_kernels
}  // namespace sluice
