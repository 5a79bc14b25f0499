// Host launcher of the cuda backend's pooling kernels (pool.cu); same
// contract as conv_launch.h. testing/pool_host.cc has the fake-runtime version.
#ifndef SLUICE_INFERENCE_CUDA_KERNELS_POOL_LAUNCH_H_
#define SLUICE_INFERENCE_CUDA_KERNELS_POOL_LAUNCH_H_

#include <cuda_runtime_api.h>

#include "inference/cuda/kernels/pool.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {

// AVERAGE_POOL_2D / MAX_POOL_2D. A window covering the whole (unpadded) input
// takes a block reduction per channel group instead of one thread per output.
cudaError_t LaunchPool2D(const float* in, float* out, const PoolParams& p, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice

#endif  // SLUICE_INFERENCE_CUDA_KERNELS_POOL_LAUNCH_H_
