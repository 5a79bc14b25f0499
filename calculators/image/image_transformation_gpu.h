// GPU (CUDA) path of ImageTransformationCalculator: the kernel of
// gpu/kernels/image_transformation.cu (the maths of
// gpu/kernels/image_transformation.h, planned by
// image_transformation_gpu_params.h) on the caller's stream, into a new
// GpuBuffer that stays on the GPU. Only in builds with the GPU layer
// (SLUICE_HAVE_GPU).
#ifndef SLUICE_CALCULATORS_IMAGE_IMAGE_TRANSFORMATION_GPU_H_
#define SLUICE_CALCULATORS_IMAGE_IMAGE_TRANSFORMATION_GPU_H_

#include <cuda_runtime_api.h>

#include <memory>

#include "absl/status/statusor.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#include "gpu/kernels/image_transformation.h"

namespace sluice {
namespace image_transformation {

// Whether the GPU path handles `image`'s format (8-bit, 1 to 4 channels);
// others take the CPU path.
bool GpuTransformSupports(const GpuBuffer& image);

// Runs the kernel on `stream` over `image` with `params` (from
// PlanImageTransform; the pitches are filled in here) and returns the output
// buffer. The stream waits on the image's ready event; the output carries
// its own. Nothing waits on the host.
absl::StatusOr<std::shared_ptr<GpuBuffer>> TransformImageGpu(
    GpuBuffer& image, gpu_kernels::ImageTransformParams params,
    const std::shared_ptr<GpuResources>& gpu, cudaStream_t stream);

}  // namespace image_transformation
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_IMAGE_IMAGE_TRANSFORMATION_GPU_H_
