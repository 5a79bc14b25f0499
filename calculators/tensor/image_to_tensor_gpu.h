// GPU (CUDA) conversion of an image region into a tensor, for
// ImageToTensorCalculator: the kernel of gpu/kernels/image_to_tensor.cu (the
// maths of gpu/kernels/image_to_tensor.h, MediaPipe's GL sampling) on the
// caller's stream, into a float32 NHWC tensor that stays on the GPU (a Tensor
// with a CUDA view and no CPU buffer until someone reads it there). Only in
// builds with the GPU layer (SLUICE_HAVE_GPU).
#ifndef SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_GPU_H_
#define SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_GPU_H_

#include <cuda_runtime_api.h>

#include <memory>

#include "absl/status/statusor.h"
#include "calculators/tensor/image_to_tensor_cpu.h"
#include "calculators/tensor/image_to_tensor_gpu_params.h"
#include "calculators/tensor/image_to_tensor_math.h"
#include "formats/image.h"
#include "formats/tensor.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"

namespace sluice {
namespace image_to_tensor {

// Runs the kernel on `stream` over `image` (SRGB, SRGBA or GRAY8, ready or
// marked ready on some stream) and returns the GPU-resident float32 tensor
// [1, tensor_height, tensor_width, C]. The stream waits on the image's ready
// event and the tensor carries its own; nothing waits on the host.
absl::StatusOr<Tensor> ConvertImageToTensorGpu(GpuBuffer& image, const RotatedRect& roi,
                                               int tensor_width, int tensor_height, float range_min,
                                               float range_max, BorderMode border,
                                               const std::shared_ptr<GpuResources>& gpu,
                                               cudaStream_t stream);

}  // namespace image_to_tensor
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_GPU_H_
