// Host launcher of ColorConvertCalculator's CUDA kernel (color_convert.cu).
// Plain C++ declarations: callers compile with the host compiler and turn the
// returned cudaError_t into a Status naming the kernel (CudaStatus).
#ifndef SLUICE_GPU_KERNELS_COLOR_CONVERT_LAUNCH_H_
#define SLUICE_GPU_KERNELS_COLOR_CONVERT_LAUNCH_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "gpu/kernels/color_convert.h"

namespace sluice {
namespace gpu_kernels {

// ColorConvertPixelU8 on every pixel: `src` -> `dst` (distinct buffers).
// Asynchronous on `stream`; the return value reports invalid parameters
// (cudaErrorInvalidValue) and launch errors only.
cudaError_t LaunchColorConvertU8(const uint8_t* src, uint8_t* dst, const ColorConvertParams& params,
                                 cudaStream_t stream);

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_COLOR_CONVERT_LAUNCH_H_
