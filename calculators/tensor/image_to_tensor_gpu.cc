#include "calculators/tensor/image_to_tensor_gpu.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"
#include "gpu/gpu_tensor.h"
#include "gpu/kernels/image_to_tensor_launch.h"

namespace sluice {
namespace image_to_tensor {

absl::StatusOr<Tensor> ConvertImageToTensorGpu(GpuBuffer& image, const RotatedRect& roi,
                                               int tensor_width, int tensor_height, float range_min,
                                               float range_max, BorderMode border,
                                               const std::shared_ptr<GpuResources>& gpu,
                                               cudaStream_t stream) {
  const ImageFormat::Format format = image.format();
  if (format != ImageFormat::SRGB && format != ImageFormat::SRGBA && format != ImageFormat::GRAY8) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported image format ", ImageFormat::Format_Name(format), " (",
                     static_cast<int>(format), "); expected SRGB, SRGBA or GRAY8"));
  }
  if (!(range_min < range_max)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid output range [", range_min, ", ", range_max, "]"));
  }
  if (tensor_width <= 0 || tensor_height <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor size must be positive, got ", tensor_width, "x", tensor_height));
  }
  const gpu_kernels::ImageToTensorParams params = MakeGpuParams(
      roi, image.width(), image.height(), image.channels(), static_cast<long>(image.pitch()),
      tensor_width, tensor_height, range_min, range_max, border);
  Tensor::Shape shape{1, tensor_height, tensor_width, params.dst_channels};
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * sizeof(float);
  absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> out =
      GpuTensorBuffer::Create(gpu, bytes, stream);
  if (!out.ok()) return out.status();
  if (absl::Status s = image.WaitReady(stream); !s.ok()) return s;
  if (absl::Status s =
          CudaStatus(gpu_kernels::LaunchImageToTensorF32(
                         image.data(), static_cast<float*>((*out)->data()), params, stream),
                     "kernel ImageToTensorF32");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = image.MarkRead(stream); !s.ok()) return s;
  if (absl::Status s = (*out)->MarkReady(stream); !s.ok()) return s;
  return MakeGpuTensor(Tensor::ElementType::kFloat32, std::move(shape), *std::move(out));
}

}  // namespace image_to_tensor
}  // namespace sluice
