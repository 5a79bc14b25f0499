// GpuBuffer: the device pixels of one image (width, height, ImageFormat, row
// pitch) from GpuResources' pool, plus the "ready" event of the work that
// wrote them. It is the GPU side of an Image (ImageGpuStorage): graphs pass
// `Image`s, and a GPU calculator reaches the buffer with GpuBufferOf(image).
//
// Synchronisation: DeviceBlock's contract (MarkReady / WaitReady / MarkRead;
// no host waits on the GPU -> GPU path).
// Downloads (to a CPU ImageFrame) go through pinned memory on the caller's
// stream; the host waits for that one copy only.
#ifndef SLUICE_GPU_GPU_BUFFER_H_
#define SLUICE_GPU_GPU_BUFFER_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "gpu/device_block.h"
#include "gpu/gpu_service.h"

namespace sluice {

class GpuBuffer : public ImageGpuStorage, public DeviceBlock {
 public:
  // Rows of pooled buffers start at multiples of this many bytes (coalesced
  // loads; equal sizes map to equal pool keys).
  static constexpr int kPitchAlignment = 256;

  // An uninitialised buffer whose contents `stream` may write from now on.
  // Formats: any interleaved ImageFormat ImageFrame supports (SRGB, SRGBA,
  // GRAY8, VEC32F1, ...).
  static absl::StatusOr<std::shared_ptr<GpuBuffer>> Create(
      std::shared_ptr<GpuResources> gpu, ImageFormat::Format format, int width, int height,
      cudaStream_t stream);
  // Copies `frame` to a new buffer on `stream` through pinned staging memory
  // (counted as one upload); the buffer is ready when that copy is.
  static absl::StatusOr<std::shared_ptr<GpuBuffer>> Upload(std::shared_ptr<GpuResources> gpu,
                                                           const ImageFrame& frame,
                                                           cudaStream_t stream);

  int width() const { return width_; }
  int height() const { return height_; }
  ImageFormat::Format format() const { return format_; }
  int channels() const { return channels_; }
  int byte_depth() const { return byte_depth_; }
  // Bytes from one row to the next.
  size_t pitch() const { return pitch_; }
  // Bytes of the pixels of one row.
  size_t row_bytes() const { return static_cast<size_t>(width_) * channels_ * byte_depth_; }
  uint8_t* data() const { return static_cast<uint8_t*>(DeviceBlock::data()); }

  // Downloads into a new ImageFrame that lives in pinned memory (returned to
  // the pool when the frame dies); the copy runs on `stream`, the host waits
  // for it only. Counted as one download.
  absl::StatusOr<ImageFrame> Download(cudaStream_t stream);
  // ImageGpuStorage: the first CPU read of a GPU Image lands here.
  absl::Status DownloadTo(ImageFrame& dst) override;

 private:
  GpuBuffer(std::shared_ptr<GpuResources> gpu, ImageFormat::Format format, int width, int height,
            int channels, int byte_depth, size_t pitch);

  ImageFormat::Format format_;
  int width_, height_, channels_, byte_depth_;
  size_t pitch_;
};

// The GPU side of `image`: its GpuBuffer when it has one, else uploads its
// CPU pixels on `stream` (one upload) and caches the result in the image, so
// later GPU readers of the same Image reuse it.
absl::StatusOr<std::shared_ptr<GpuBuffer>> GpuBufferOf(const Image& image,
                                                       std::shared_ptr<GpuResources> gpu,
                                                       cudaStream_t stream);

// An Image whose pixels are `buffer` (GPU-only until a CPU reader downloads).
Image MakeGpuImage(std::shared_ptr<GpuBuffer> buffer);

}  // namespace sluice

#endif  // SLUICE_GPU_GPU_BUFFER_H_
