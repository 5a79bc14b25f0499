// Host stand-ins for the launchers of kernels/image_filters.cu, for the fake
// CUDA runtime: the same per-pixel maths, queued on the stream like a kernel
// (so it runs only once the stream's earlier work and waits have), with the
// device ranges checked.
#include <cstddef>

#include "gpu/kernels/image_filters_launch.h"
#include "gpu/kernels/luminance.h"
#include "gpu/kernels/sobel.h"
#include "gpu/testing/fake_cuda_runtime.h"

namespace sluice {
namespace gpu_kernels {
namespace {

bool RangesOk(const uint8_t* src, long src_pitch, uint8_t* dst, long dst_pitch, int width,
              int height, int channels) {
  const size_t row = static_cast<size_t>(width) * channels;
  return fake_cuda::CheckDeviceRange(src, src_pitch * (height - 1) + row) &&
         fake_cuda::CheckDeviceRange(dst, dst_pitch * (height - 1) + row);
}

}  // namespace

cudaError_t LaunchLuminanceU8(const uint8_t* src, long src_pitch, uint8_t* dst, long dst_pitch,
                              int width, int height, int channels, cudaStream_t stream) {
  if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) return cudaErrorInvalidValue;
  if (!RangesOk(src, src_pitch, dst, dst_pitch, width, height, channels)) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [=] {
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        LuminancePixelU8(src + y * src_pitch + x * channels, dst + y * dst_pitch + x * channels,
                         channels);
      }
    }
  });
}

cudaError_t LaunchSobelU8(const uint8_t* src, long src_pitch, uint8_t* dst, long dst_pitch,
                          int width, int height, int channels, cudaStream_t stream) {
  if (width <= 0 || height <= 0 || (channels != 1 && channels != 3 && channels != 4)) {
    return cudaErrorInvalidValue;
  }
  if (!RangesOk(src, src_pitch, dst, dst_pitch, width, height, channels)) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [=] {
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        SobelPixelU8(src, src_pitch, dst + y * dst_pitch + x * channels, width, height, channels,
                     x, y);
      }
    }
  });
}

}  // namespace gpu_kernels
}  // namespace sluice
