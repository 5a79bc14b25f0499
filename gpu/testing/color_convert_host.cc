// Host stand-in for LaunchColorConvertU8 (kernels/color_convert.cu), for the
// fake CUDA runtime: the same per-pixel maths, queued on the stream like a
// kernel, with both device ranges checked.
#include <cstddef>

#include "gpu/kernels/color_convert.h"
#include "gpu/kernels/color_convert_launch.h"
#include "gpu/testing/fake_cuda_runtime.h"

namespace sluice {
namespace gpu_kernels {

cudaError_t LaunchColorConvertU8(const uint8_t* src, uint8_t* dst, const ColorConvertParams& params,
                                 cudaStream_t stream) {
  if (src == nullptr || dst == nullptr || !ColorConvertParamsValid(params)) {
    return cudaErrorInvalidValue;
  }
  const ColorConvertParams p = params;
  const size_t rows = static_cast<size_t>(p.height - 1);
  const size_t src_bytes =
      p.src_pitch * rows + static_cast<size_t>(p.width) * ColorConvertSrcChannels(p.conversion);
  const size_t dst_bytes =
      p.dst_pitch * rows + static_cast<size_t>(p.width) * ColorConvertDstChannels(p.conversion);
  if (!fake_cuda::CheckDeviceRange(src, src_bytes) ||
      !fake_cuda::CheckDeviceRange(dst, dst_bytes)) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [src, dst, p] { ColorConvertLoopU8(src, dst, p); });
}

}  // namespace gpu_kernels
}  // namespace sluice
