// Host stand-in for LaunchImageToTensorF32 (kernels/image_to_tensor.cu), for
// the fake CUDA runtime: the same per-pixel maths, queued on the stream like
// a kernel, with both device ranges checked.
#include <cstddef>

#include "gpu/kernels/image_to_tensor.h"
#include "gpu/kernels/image_to_tensor_launch.h"
#include "gpu/testing/fake_cuda_runtime.h"

namespace sluice {
namespace gpu_kernels {

cudaError_t LaunchImageToTensorF32(const uint8_t* src, float* dst,
                                   const ImageToTensorParams& params, cudaStream_t stream) {
  if (src == nullptr || dst == nullptr || !ImageToTensorParamsValid(params)) {
    return cudaErrorInvalidValue;
  }
  const ImageToTensorParams p = params;
  const size_t src_bytes = static_cast<size_t>(p.src_pitch) * (p.src_height - 1) +
                           static_cast<size_t>(p.src_width) * p.src_channels;
  const size_t dst_bytes =
      sizeof(float) * static_cast<size_t>(p.dst_width) * p.dst_height * p.dst_channels;
  if (!fake_cuda::CheckDeviceRange(src, src_bytes) ||
      !fake_cuda::CheckDeviceRange(dst, dst_bytes)) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [src, dst, p] { ImageToTensorLoopF32(src, p, dst); });
}

}  // namespace gpu_kernels
}  // namespace sluice
