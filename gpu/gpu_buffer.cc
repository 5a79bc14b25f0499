#include "gpu/gpu_buffer.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"

namespace sluice {
namespace {

size_t AlignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

}  // namespace

GpuBuffer::GpuBuffer(std::shared_ptr<GpuResources> gpu, ImageFormat::Format format, int width,
                     int height, int channels, int byte_depth, size_t pitch)
    : DeviceBlock(std::move(gpu), "GpuBuffer"),
      format_(format),
      width_(width),
      height_(height),
      channels_(channels),
      byte_depth_(byte_depth),
      pitch_(pitch) {}

absl::StatusOr<std::shared_ptr<GpuBuffer>> GpuBuffer::Create(std::shared_ptr<GpuResources> gpu,
                                                             ImageFormat::Format format, int width,
                                                             int height, cudaStream_t stream) {
  if (gpu == nullptr) return absl::FailedPreconditionError("GpuBuffer: no GPU resources");
  if (width <= 0 || height <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("GpuBuffer: size must be positive, got ", width, "x", height));
  }
  absl::StatusOr<int> channels = ImageFrame::NumberOfChannelsForFormat(format);
  if (!channels.ok()) return channels.status();
  absl::StatusOr<int> depth = ImageFrame::ByteDepthForFormat(format);
  if (!depth.ok()) return depth.status();
  const size_t pitch = AlignUp(static_cast<size_t>(width) * *channels * *depth, kPitchAlignment);
  std::shared_ptr<GpuBuffer> buffer(
      new GpuBuffer(gpu, format, width, height, *channels, *depth, pitch));
  if (absl::Status s = buffer->Allocate(pitch * height, stream); !s.ok()) return s;
  return buffer;
}

absl::StatusOr<std::shared_ptr<GpuBuffer>> GpuBuffer::Upload(std::shared_ptr<GpuResources> gpu,
                                                             const ImageFrame& frame,
                                                             cudaStream_t stream) {
  if (frame.IsEmpty()) return absl::InvalidArgumentError("GpuBuffer::Upload: empty ImageFrame");
  absl::StatusOr<std::shared_ptr<GpuBuffer>> buffer =
      Create(gpu, frame.Format(), frame.Width(), frame.Height(), stream);
  if (!buffer.ok()) return buffer.status();
  GpuBuffer& b = **buffer;
  const size_t row = b.row_bytes();
  const size_t bytes = row * b.height_;
  absl::StatusOr<void*> staging = gpu->AcquirePinnedMemory(bytes);
  if (!staging.ok()) return staging.status();
  uint8_t* host = static_cast<uint8_t*>(*staging);
  for (int y = 0; y < b.height_; ++y) std::memcpy(host + y * row, frame.Row(y), row);
  if (absl::Status s = b.UploadFromPinned(host, row, b.pitch_, b.height_, stream); !s.ok()) {
    return s;
  }
  return buffer;
}

absl::StatusOr<ImageFrame> GpuBuffer::Download(cudaStream_t stream) {
  const size_t bytes = row_bytes() * height_;
  absl::StatusOr<void*> staging = gpu_->AcquirePinnedMemory(bytes);
  if (!staging.ok()) return staging.status();
  uint8_t* host = static_cast<uint8_t*>(*staging);
  if (absl::Status s = CopyToPinned(host, row_bytes(), pitch_, height_, stream); !s.ok()) {
    gpu_->ReleasePinnedMemory(host, bytes, nullptr);
    return s;
  }
  // The frame adopts the pinned block: no second copy, and the block returns
  // to the pool when the last reader lets go of the frame.
  std::shared_ptr<GpuResources> gpu = gpu_;
  return ImageFrame::Adopt(
      format_, width_, height_, static_cast<int>(row_bytes()), host,
      [gpu, bytes](uint8_t* p) { gpu->ReleasePinnedMemory(p, bytes, nullptr); });
}

absl::Status GpuBuffer::DownloadTo(ImageFrame& dst) {
  if (dst.Width() != width_ || dst.Height() != height_ || dst.Format() != format_) {
    return absl::InvalidArgumentError("GpuBuffer::DownloadTo: frame size or format differs");
  }
  // A stream of its own, so a CPU reader does not queue behind the kernels of
  // later frames on the shared context.
  absl::StatusOr<GpuContext*> ctx = gpu_->Context("auto:download");
  if (!ctx.ok()) return ctx.status();
  const size_t row = row_bytes();
  const size_t bytes = row * height_;
  absl::StatusOr<void*> staging = gpu_->AcquirePinnedMemory(bytes);
  if (!staging.ok()) return staging.status();
  uint8_t* host = static_cast<uint8_t*>(*staging);
  absl::Status s = CopyToPinned(host, row, pitch_, height_, (*ctx)->stream());
  if (s.ok()) {
    for (int y = 0; y < height_; ++y) std::memcpy(dst.MutableRow(y), host + y * row, row);
  }
  gpu_->ReleasePinnedMemory(host, bytes, nullptr);
  return s;
}

absl::StatusOr<std::shared_ptr<GpuBuffer>> GpuBufferOf(const Image& image,
                                                       std::shared_ptr<GpuResources> gpu,
                                                       cudaStream_t stream) {
  if (image.IsEmpty()) return absl::InvalidArgumentError("GpuBufferOf: the image is empty");
  if (std::shared_ptr<ImageGpuStorage> storage = image.GpuStorage()) {
    auto buffer = std::dynamic_pointer_cast<GpuBuffer>(storage);
    if (buffer == nullptr) {
      return absl::FailedPreconditionError(
          "GpuBufferOf: the image's GPU side is not a CUDA GpuBuffer");
    }
    if (gpu != nullptr && buffer->resources().device() != gpu->device()) {
      return absl::FailedPreconditionError(
          absl::StrCat("GpuBufferOf: the image lives on CUDA device ", buffer->resources().device(),
                       ", this node uses device ", gpu->device()));
    }
    return buffer;
  }
  absl::StatusOr<std::shared_ptr<const ImageFrame>> cpu = image.CpuView();
  if (!cpu.ok()) return cpu.status();
  absl::StatusOr<std::shared_ptr<GpuBuffer>> buffer = GpuBuffer::Upload(gpu, **cpu, stream);
  if (!buffer.ok()) return buffer.status();
  image.SetGpuStorage(*buffer);
  return buffer;
}

Image MakeGpuImage(std::shared_ptr<GpuBuffer> buffer) {
  if (buffer == nullptr) return Image();
  const ImageFormat::Format format = buffer->format();
  const int w = buffer->width();
  const int h = buffer->height();
  return Image(format, w, h, std::move(buffer));
}

}  // namespace sluice
