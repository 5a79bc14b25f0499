// GpuBuffer: the device pixels of one image (width, height, ImageFormat, row
// pitch) from GpuResources' pool, plus the "ready" event of the work that
// wrote them. It is the GPU side of an Image (ImageGpuStorage): graphs pass
// `Image`s, and a GPU calculator reaches the buffer with GpuBufferOf(image).
//
// Synchronisation contract (no host waits on the GPU -> GPU path):
//  * the producer enqueues its writes on its stream, then MarkReady(stream);
//  * a consumer calls WaitReady(its stream) before enqueuing reads, and
//    MarkRead(its stream) after, so the memory is not recycled under it;
//  * when the last reference goes, the memory returns to the pool with those
//    events, and its next owner's stream waits on them.
// Downloads (to a CPU ImageFrame) go through pinned memory on the caller's
// stream; the host waits for that one copy only.
#ifndef SLUICE_GPU_GPU_BUFFER_H_
#define SLUICE_GPU_GPU_BUFFER_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "gpu/gpu_service.h"

namespace sluice {

class GpuBuffer : public ImageGpuStorage {
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

  ~GpuBuffer() override;
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;

  int width() const { return width_; }
  int height() const { return height_; }
  ImageFormat::Format format() const { return format_; }
  int channels() const { return channels_; }
  int byte_depth() const { return byte_depth_; }
  // Bytes from one row to the next.
  size_t pitch() const { return pitch_; }
  // Bytes of the pixels of one row.
  size_t row_bytes() const { return static_cast<size_t>(width_) * channels_ * byte_depth_; }
  uint8_t* data() const { return static_cast<uint8_t*>(data_); }
  GpuResources& resources() const { return *gpu_; }
  const std::shared_ptr<GpuResources>& shared_resources() const { return gpu_; }

  // Records that the pixels are complete once the work queued so far on
  // `stream` is.
  absl::Status MarkReady(cudaStream_t stream);
  // Makes `stream` wait until the pixels are ready (no-op if never marked).
  absl::Status WaitReady(cudaStream_t stream) const;
  // Records that `stream` reads the pixels up to the work queued so far.
  absl::Status MarkRead(cudaStream_t stream);

  // Downloads into a new ImageFrame that lives in pinned memory (returned to
  // the pool when the frame dies); the copy runs on `stream`, the host waits
  // for it only. Counted as one download.
  absl::StatusOr<ImageFrame> Download(cudaStream_t stream);
  // ImageGpuStorage: the first CPU read of a GPU Image lands here.
  absl::Status DownloadTo(ImageFrame& dst) override;

 private:
  GpuBuffer(std::shared_ptr<GpuResources> gpu, ImageFormat::Format format, int width, int height,
            int channels, int byte_depth, size_t pitch);
  // Copies into pinned `staging` (rows packed) on `stream`, waits for it.
  absl::Status CopyToPinned(uint8_t* staging, cudaStream_t stream);

  std::shared_ptr<GpuResources> gpu_;
  ImageFormat::Format format_;
  int width_, height_, channels_, byte_depth_;
  size_t pitch_;
  void* data_ = nullptr;

  mutable std::mutex mu_;
  cudaEvent_t ready_ = nullptr;
  bool ready_recorded_ = false;
  // One event per reading stream, re-recorded on each read.
  std::vector<std::pair<cudaStream_t, cudaEvent_t>> reads_;
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
