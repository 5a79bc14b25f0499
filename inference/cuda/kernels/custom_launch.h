// Host launchers of the cuda backend's MediaPipe custom-op kernels
// (custom.cu); same contract as conv_launch.h. testing/custom_host.cc has the
// fake-runtime versions.
#ifndef SLUICE_INFERENCE_CUDA_KERNELS_CUSTOM_LAUNCH_H_
#define SLUICE_INFERENCE_CUDA_KERNELS_CUSTOM_LAUNCH_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "inference/cuda/kernels/custom.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {

// Landmarks2TransformMatrix: `landmarks` [num_landmarks,3], `subset`
// [num_subset] device ints, `out` 16 floats.
cudaError_t LaunchLandmarksToMatrix(const float* landmarks, const int* subset, float* out,
                                    const LandmarksToMatrixParams& p, cudaStream_t stream);

// TransformLandmarks: `count` landmarks of `dims` (2 or 3) floats; `mat` 16 floats.
cudaError_t LaunchTransformLandmarks(const float* in, const float* mat, float* out, int dims,
                                     int64_t count, cudaStream_t stream);

// TransformTensorBilinear (batch 1): `in` [ih,iw,c], `out` [oh,ow,c].
cudaError_t LaunchTransformTensorBilinear(const float* in, const float* mat, float* out,
                                          const TransformBilinearParams& p, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice

#endif  // SLUICE_INFERENCE_CUDA_KERNELS_CUSTOM_LAUNCH_H_
