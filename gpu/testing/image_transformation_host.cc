// Host stand-in for LaunchImageTransformU8 (kernels/image_transformation.cu),
// for the fake CUDA runtime: the same per-pixel maths, queued on the stream
// like a kernel, with both device ranges checked.
#include <cstddef>

#include "gpu/kernels/image_transformation.h"
#include "gpu/kernels/image_transformation_launch.h"
#include "gpu/testing/fake_cuda_runtime.h"

namespace sluice {
namespace gpu_kernels {

cudaError_t LaunchImageTransformU8(const uint8_t* src, uint8_t* dst,
                                   const ImageTransformParams& params, cudaStream_t stream) {
  if (src == nullptr || dst == nullptr || !ImageTransformParamsValid(params)) {
    return cudaErrorInvalidValue;
  }
  const ImageTransformParams p = params;
  const size_t src_bytes = static_cast<size_t>(p.src_pitch) * (p.src_height - 1) +
                           static_cast<size_t>(p.src_width) * p.channels;
  const size_t dst_bytes = static_cast<size_t>(p.dst_pitch) * (p.dst_height - 1) +
                           static_cast<size_t>(p.dst_width) * p.channels;
  if (!fake_cuda::CheckDeviceRange(src, src_bytes) ||
      !fake_cuda::CheckDeviceRange(dst, dst_bytes)) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [src, dst, p] { ImageTransformLoopU8(src, p, dst); });
}

}  // namespace gpu_kernels
}  // namespace sluice
