// Host launcher of ImageTransformationCalculator's CUDA kernel
// (image_transformation.cu). Plain C++ declarations: callers compile with the
// host compiler and turn the returned cudaError_t into a Status naming the
// kernel (CudaStatus).
#ifndef SLUICE_GPU_KERNELS_IMAGE_TRANSFORMATION_LAUNCH_H_
#define SLUICE_GPU_KERNELS_IMAGE_TRANSFORMATION_LAUNCH_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "gpu/kernels/image_transformation.h"

namespace sluice {
namespace gpu_kernels {

// ImageTransformPixelU8 on every pixel of `dst` (params.dst_width x
// params.dst_height, params.dst_pitch bytes per row) from `src`
// (params.src_*). Asynchronous on `stream`; the return value reports invalid
// parameters (cudaErrorInvalidValue) and launch errors only.
cudaError_t LaunchImageTransformU8(const uint8_t* src, uint8_t* dst,
                                   const ImageTransformParams& params, cudaStream_t stream);

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_IMAGE_TRANSFORMATION_LAUNCH_H_
