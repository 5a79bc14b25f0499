// The annotation overlay's GPU (CUDA) path: an annotation layer drawn on the
// CPU (render/overlay_layer.h) is uploaded and composited over a GpuBuffer
// image by the kernel of kernels/overlay.cu (the maths of kernels/overlay.h),
// into a new GpuBuffer that stays on the GPU.
#ifndef SLUICE_GPU_OVERLAY_GPU_H_
#define SLUICE_GPU_OVERLAY_GPU_H_

#include <cuda_runtime_api.h>

#include <memory>

#include "absl/status/statusor.h"
#include "formats/image_frame.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"

namespace sluice {

// Whether the GPU overlay handles `image` (8-bit SRGB or SRGBA, what the CPU
// drawing accepts).
bool GpuOverlaySupports(const GpuBuffer& image);

// Uploads `layer` (SRGBA, premultiplied, image's size) on `stream` (one
// upload, through pinned memory) and composites it over `image` into a new
// buffer of image's format. The stream waits on the image's ready event; the
// output carries its own. Nothing waits on the host. `image` is not modified
// (other readers of the same Image keep their pixels). Errors:
// InvalidArgument for an unsupported image or a layer of another size or
// format; CUDA errors naming the kernel or copy.
absl::StatusOr<std::shared_ptr<GpuBuffer>> OverlayLayerGpu(GpuBuffer& image,
                                                           const ImageFrame& layer,
                                                           const std::shared_ptr<GpuResources>& gpu,
                                                           cudaStream_t stream);

}  // namespace sluice

#endif  // SLUICE_GPU_OVERLAY_GPU_H_
