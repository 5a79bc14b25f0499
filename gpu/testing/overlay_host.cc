// Host stand-in for LaunchOverlayU8 (kernels/overlay.cu), for the fake CUDA
// runtime: the same per-pixel maths, queued on the stream like a kernel, with
// the three device ranges checked.
#include <cstddef>

#include "gpu/kernels/overlay.h"
#include "gpu/kernels/overlay_launch.h"
#include "gpu/testing/fake_cuda_runtime.h"

namespace sluice {
namespace gpu_kernels {

cudaError_t LaunchOverlayU8(const uint8_t* src, const uint8_t* layer, uint8_t* dst,
                            const OverlayParams& params, cudaStream_t stream) {
  if (src == nullptr || layer == nullptr || dst == nullptr || !OverlayParamsValid(params)) {
    return cudaErrorInvalidValue;
  }
  const OverlayParams p = params;
  const size_t row = static_cast<size_t>(p.width) * p.channels;
  const size_t rows = static_cast<size_t>(p.height - 1);
  if (!fake_cuda::CheckDeviceRange(src, p.src_pitch * rows + row) ||
      !fake_cuda::CheckDeviceRange(dst, p.dst_pitch * rows + row) ||
      !fake_cuda::CheckDeviceRange(layer,
                                   p.layer_pitch * rows + static_cast<size_t>(p.width) * 4)) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [src, layer, dst, p] { OverlayLoopU8(src, layer, dst, p); });
}

}  // namespace gpu_kernels
}  // namespace sluice
