// Host stand-in for the launcher of kernels/pool.cu, for the fake CUDA
// runtime: the kernels' maths (kernels/pool.h), queued on the stream: the
// global-pool reduction's two phases, or PoolOutput over every output.
#include <cstddef>
#include <cstdint>

#include "gpu/testing/fake_cuda_runtime.h"
#include "inference/cuda/kernels/pool.h"
#include "inference/cuda/kernels/pool_launch.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {

cudaError_t LaunchPool2D(const float* in, float* out, const PoolParams& p, cudaStream_t stream) {
  if (!PoolParamsValid(p)) return cudaErrorInvalidValue;
  const size_t in_bytes = static_cast<size_t>(p.n) * p.ih * p.iw * p.c * sizeof(float);
  const size_t out_bytes = static_cast<size_t>(p.n) * p.oh * p.ow * p.c * sizeof(float);
  if (!fake_cuda::CheckDeviceRange(in, in_bytes) || !fake_cuda::CheckDeviceRange(out, out_bytes)) {
    return cudaErrorInvalidValue;
  }
  if (IsGlobalPool(p)) {
    if (p.n > 65535) return cudaErrorInvalidValue;
    return fake_cuda::Enqueue(stream, [=] {
      float part[kGlobalPoolLanes];
      for (int n = 0; n < p.n; ++n)
        for (int ch = 0; ch < p.c; ++ch) {
          for (int l = 0; l < kGlobalPoolLanes; ++l) part[l] = GlobalPoolPartial(in, p, n, ch, l);
          out[static_cast<int64_t>(n) * p.c + ch] = GlobalPoolFinish(part, 1, p);
        }
    });
  }
  return fake_cuda::Enqueue(stream, [=] {
    int64_t i = 0;
    for (int n = 0; n < p.n; ++n)
      for (int oy = 0; oy < p.oh; ++oy)
        for (int ox = 0; ox < p.ow; ++ox)
          for (int ch = 0; ch < p.c; ++ch) out[i++] = PoolOutput(in, p, n, oy, ox, ch);
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice
