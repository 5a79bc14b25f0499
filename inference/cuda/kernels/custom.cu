// CUDA kernels of MediaPipe's face-mesh custom ops; the maths is custom.h's.
#include <stdint.h>

#include "inference/cuda/kernels/custom.h"
#include "inference/cuda/kernels/custom_launch.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;

// One thread: the matrix is 16 numbers from ~100 landmarks.
__global__ void LandmarksToMatrixKernel(const float* __restrict__ lm,
                                        const int* __restrict__ subset, float* __restrict__ out,
                                        LandmarksToMatrixParams p) {
  if (blockIdx.x == 0 && threadIdx.x == 0) LandmarksToMatrix(lm, subset, p, out);
}

__global__ void TransformLandmarksKernel(const float* __restrict__ in,
                                         const float* __restrict__ mat, float* __restrict__ out,
                                         int dims, int64_t count) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) TransformLandmark(in, mat, out, dims, i);
}

__global__ void TransformBilinearKernel(const float* __restrict__ in,
                                        const float* __restrict__ mat, float* __restrict__ out,
                                        TransformBilinearParams p, int64_t total) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const int k = static_cast<int>(i % p.c);
  const int64_t r = i / p.c;
  out[i] = TransformBilinearOutput(in, mat, p, static_cast<int>(r / p.ow),
                                   static_cast<int>(r % p.ow), k);
}

}  // namespace

cudaError_t LaunchLandmarksToMatrix(const float* landmarks, const int* subset, float* out,
                                    const LandmarksToMatrixParams& p, cudaStream_t stream) {
  if (!LandmarksToMatrixParamsValid(p)) return cudaErrorInvalidValue;
  LandmarksToMatrixKernel<<<1, 32, 0, stream>>>(landmarks, subset, out, p);
  return cudaGetLastError();
}

cudaError_t LaunchTransformLandmarks(const float* in, const float* mat, float* out, int dims,
                                     int64_t count, cudaStream_t stream) {
  if ((dims != 2 && dims != 3) || count < 0) return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  TransformLandmarksKernel<<<static_cast<unsigned>((count + kThreads - 1) / kThreads), kThreads,
                             0, stream>>>(in, mat, out, dims, count);
  return cudaGetLastError();
}

cudaError_t LaunchTransformTensorBilinear(const float* in, const float* mat, float* out,
                                          const TransformBilinearParams& p, cudaStream_t stream) {
  if (!TransformBilinearParamsValid(p)) return cudaErrorInvalidValue;
  const int64_t total = static_cast<int64_t>(p.oh) * p.ow * p.c;
  TransformBilinearKernel<<<static_cast<unsigned>((total + kThreads - 1) / kThreads), kThreads, 0,
                            stream>>>(in, mat, out, p, total);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice
