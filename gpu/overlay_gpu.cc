#include "gpu/overlay_gpu.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"
#include "gpu/kernels/overlay.h"
#include "gpu/kernels/overlay_launch.h"

namespace sluice {

bool GpuOverlaySupports(const GpuBuffer& image) {
  return image.format() == ImageFormat::SRGB || image.format() == ImageFormat::SRGBA;
}

absl::StatusOr<std::shared_ptr<GpuBuffer>> OverlayLayerGpu(GpuBuffer& image,
                                                           const ImageFrame& layer,
                                                           const std::shared_ptr<GpuResources>& gpu,
                                                           cudaStream_t stream) {
  if (!GpuOverlaySupports(image)) {
    return absl::InvalidArgumentError(
        absl::StrCat("OverlayLayerGpu: can only draw on SRGB or SRGBA images, not ",
                     ImageFormat::Format_Name(image.format())));
  }
  if (layer.Format() != ImageFormat::SRGBA || layer.Width() != image.width() ||
      layer.Height() != image.height()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "OverlayLayerGpu: the layer must be SRGBA ", image.width(), "x", image.height(), ", got ",
        ImageFormat::Format_Name(layer.Format()), " ", layer.Width(), "x", layer.Height()));
  }
  absl::StatusOr<std::shared_ptr<GpuBuffer>> layer_gpu = GpuBuffer::Upload(gpu, layer, stream);
  if (!layer_gpu.ok()) return layer_gpu.status();
  absl::StatusOr<std::shared_ptr<GpuBuffer>> out =
      GpuBuffer::Create(gpu, image.format(), image.width(), image.height(), stream);
  if (!out.ok()) return out.status();

  gpu_kernels::OverlayParams p;
  p.width = image.width();
  p.height = image.height();
  p.channels = image.channels();
  p.src_pitch = static_cast<long>(image.pitch());
  p.layer_pitch = static_cast<long>((*layer_gpu)->pitch());
  p.dst_pitch = static_cast<long>((*out)->pitch());
  if (absl::Status s = image.WaitReady(stream); !s.ok()) return s;
  if (absl::Status s = (*layer_gpu)->WaitReady(stream); !s.ok()) return s;
  if (absl::Status s = CudaStatus(gpu_kernels::LaunchOverlayU8(image.data(), (*layer_gpu)->data(),
                                                               (*out)->data(), p, stream),
                                  "kernel OverlayU8");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = image.MarkRead(stream); !s.ok()) return s;
  // The layer goes back to the pool when this function returns, with this
  // read event, so its next owner waits for the kernel.
  if (absl::Status s = (*layer_gpu)->MarkRead(stream); !s.ok()) return s;
  if (absl::Status s = (*out)->MarkReady(stream); !s.ok()) return s;
  return out;
}

}  // namespace sluice
