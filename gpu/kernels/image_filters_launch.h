// Host launchers of the image filter kernels (image_filters.cu). Plain C++
// declarations: callers compile with the host compiler, and turn the returned
// cudaError_t into a Status naming the kernel (CudaStatus).
#ifndef SLUICE_GPU_KERNELS_IMAGE_FILTERS_LAUNCH_H_
#define SLUICE_GPU_KERNELS_IMAGE_FILTERS_LAUNCH_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

namespace sluice {
namespace gpu_kernels {

// 8-bit images with `channels` interleaved bytes per pixel, rows `*_pitch`
// bytes apart, both width x height. The launch is asynchronous on `stream`;
// the return value reports launch errors only.

// LuminancePixelU8 on every pixel; channels 3 or 4. `src` and `dst` must not alias.
cudaError_t LaunchLuminanceU8(const uint8_t* src, long src_pitch, uint8_t* dst, long dst_pitch,
                              int width, int height, int channels, cudaStream_t stream);

// SobelPixelU8 on every pixel; channels 1, 3 or 4. `src` and `dst` must not alias.
cudaError_t LaunchSobelU8(const uint8_t* src, long src_pitch, uint8_t* dst, long dst_pitch,
                          int width, int height, int channels, cudaStream_t stream);

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_IMAGE_FILTERS_LAUNCH_H_
