#include "calculators/image/image_transformation_gpu.h"

#include <utility>

#include "absl/status/status.h"
#include "gpu/cuda_status.h"
#include "gpu/kernels/image_transformation_launch.h"

namespace sluice {
namespace image_transformation {

bool GpuTransformSupports(const GpuBuffer& image) {
  return image.byte_depth() == 1 && image.channels() >= 1 && image.channels() <= 4;
}

absl::StatusOr<std::shared_ptr<GpuBuffer>> TransformImageGpu(
    GpuBuffer& image, gpu_kernels::ImageTransformParams params,
    const std::shared_ptr<GpuResources>& gpu, cudaStream_t stream) {
  if (!GpuTransformSupports(image)) {
    return absl::InvalidArgumentError("the GPU path takes 8-bit images of 1 to 4 channels");
  }
  absl::StatusOr<std::shared_ptr<GpuBuffer>> out =
      GpuBuffer::Create(gpu, image.format(), params.dst_width, params.dst_height, stream);
  if (!out.ok()) return out.status();
  params.src_pitch = static_cast<long>(image.pitch());
  params.dst_pitch = static_cast<long>((*out)->pitch());
  if (absl::Status s = image.WaitReady(stream); !s.ok()) return s;
  if (absl::Status s = CudaStatus(
          gpu_kernels::LaunchImageTransformU8(image.data(), (*out)->data(), params, stream),
          "kernel ImageTransformU8");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = image.MarkRead(stream); !s.ok()) return s;
  if (absl::Status s = (*out)->MarkReady(stream); !s.ok()) return s;
  return out;
}

}  // namespace image_transformation
}  // namespace sluice
