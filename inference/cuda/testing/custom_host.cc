// Host stand-ins for the launchers of kernels/custom.cu, for the fake CUDA
// runtime: the same maths (kernels/custom.h), queued on the stream, device
// ranges checked.
#include <cstddef>
#include <cstdint>

#include "gpu/testing/fake_cuda_runtime.h"
#include "inference/cuda/kernels/custom.h"
#include "inference/cuda/kernels/custom_launch.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {
namespace {

bool FloatsOk(const float* p, int64_t count) {
  return fake_cuda::CheckDeviceRange(p, static_cast<size_t>(count) * sizeof(float));
}

}  // namespace

cudaError_t LaunchLandmarksToMatrix(const float* landmarks, const int* subset, float* out,
                                    const LandmarksToMatrixParams& p, cudaStream_t stream) {
  if (!LandmarksToMatrixParamsValid(p)) return cudaErrorInvalidValue;
  if (!FloatsOk(landmarks, static_cast<int64_t>(p.num_landmarks) * 3) || !FloatsOk(out, 16) ||
      !fake_cuda::CheckDeviceRange(subset, static_cast<size_t>(p.num_subset) * sizeof(int))) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [=] { LandmarksToMatrix(landmarks, subset, p, out); });
}

cudaError_t LaunchTransformLandmarks(const float* in, const float* mat, float* out, int dims,
                                     int64_t count, cudaStream_t stream) {
  if ((dims != 2 && dims != 3) || count < 0) return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  if (!FloatsOk(in, count * dims) || !FloatsOk(mat, 16) || !FloatsOk(out, count * dims)) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [=] {
    for (int64_t i = 0; i < count; ++i) TransformLandmark(in, mat, out, dims, i);
  });
}

cudaError_t LaunchTransformTensorBilinear(const float* in, const float* mat, float* out,
                                          const TransformBilinearParams& p, cudaStream_t stream) {
  if (!TransformBilinearParamsValid(p)) return cudaErrorInvalidValue;
  if (!FloatsOk(in, static_cast<int64_t>(p.ih) * p.iw * p.c) || !FloatsOk(mat, 16) ||
      !FloatsOk(out, static_cast<int64_t>(p.oh) * p.ow * p.c)) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [=] {
    int64_t i = 0;
    for (int oy = 0; oy < p.oh; ++oy)
      for (int ox = 0; ox < p.ow; ++ox)
        for (int k = 0; k < p.c; ++k) out[i++] = TransformBilinearOutput(in, mat, p, oy, ox, k);
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice
