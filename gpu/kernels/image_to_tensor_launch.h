// Host launcher of ImageToTensorCalculator's CUDA kernel (image_to_tensor.cu).
// Plain C++ declarations: callers compile with the host compiler and turn the
// returned cudaError_t into a Status naming the kernel (CudaStatus).
#ifndef SLUICE_GPU_KERNELS_IMAGE_TO_TENSOR_LAUNCH_H_
#define SLUICE_GPU_KERNELS_IMAGE_TO_TENSOR_LAUNCH_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "gpu/kernels/image_to_tensor.h"

namespace sluice {
namespace gpu_kernels {

// ImageToTensorPixel on every pixel of the dense float NHWC tensor `dst`
// (params.dst_height x params.dst_width x params.dst_channels) from the 8-bit
// image `src` (params.src_*). Asynchronous on `stream`; the return value
// reports invalid parameters (cudaErrorInvalidValue) and launch errors only.
cudaError_t LaunchImageToTensorF32(const uint8_t* src, float* dst,
                                   const ImageToTensorParams& params, cudaStream_t stream);

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_IMAGE_TO_TENSOR_LAUNCH_H_
