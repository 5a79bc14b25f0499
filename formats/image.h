// Image: one frame shared by reference that may live on the CPU, on a GPU, or
// both. Each side is a *view* materialised on demand and cached, so a CPU
// calculator reading a GPU image pays one download and the next reader none.
//
// The GPU side plugs in through ImageGpuStorage: the GPU layer (gpu/) wraps
// its device buffer (with its ready event) in a subclass and builds the Image
// from it; the first CPU read downloads once through DownloadTo(). For the
// other direction, a GPU calculator handed a CPU-only image uploads it with
// the GPU layer's helpers and records the result with SetGpuStorage(), so
// later GPU readers reuse it. Nothing here depends on CUDA.
#ifndef SLUICE_FORMATS_IMAGE_H_
#define SLUICE_FORMATS_IMAGE_H_

#include <memory>
#include <mutex>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image_frame.h"

namespace sluice {

// Device pixels of an Image (implemented by the GPU layer).
class ImageGpuStorage {
 public:
  virtual ~ImageGpuStorage() = default;
  // Copies the device pixels into `dst` (already allocated with the image's
  // size and format), waiting for the producer as needed.
  virtual absl::Status DownloadTo(ImageFrame& dst) = 0;
};

class Image {
 public:
  // An empty image (IsEmpty()).
  Image() = default;
  // A CPU image sharing `frame` (which must not be empty to be useful).
  explicit Image(std::shared_ptr<ImageFrame> frame);
  // Takes ownership of `frame`.
  explicit Image(ImageFrame&& frame);
  // A GPU-resident image of the given size and format.
  Image(ImageFormat::Format format, int width, int height, std::shared_ptr<ImageGpuStorage> gpu);

  bool IsEmpty() const { return state_ == nullptr; }
  int width() const { return state_ ? state_->width : 0; }
  int height() const { return state_ ? state_->height : 0; }
  int channels() const { return state_ ? state_->channels : 0; }
  ImageFormat::Format image_format() const {
    return state_ ? state_->format : ImageFormat::UNKNOWN;
  }
  // True when the current content is on the GPU only or also there
  // (MediaPipe's meaning: the GPU side is the one producers wrote last).
  bool UsesGpu() const;
  bool HasCpuView() const;

  // The CPU pixels, downloading from the GPU the first time if needed.
  absl::StatusOr<std::shared_ptr<const ImageFrame>> CpuView() const;
  // Same, nullptr when unavailable (MediaPipe's name).
  std::shared_ptr<const ImageFrame> GetImageFrameSharedPtr() const;
  // The GPU side, or nullptr when the image was never on the GPU.
  std::shared_ptr<ImageGpuStorage> GpuStorage() const;
  // Records an up-to-date GPU copy (after the GPU layer uploaded the pixels).
  void SetGpuStorage(std::shared_ptr<ImageGpuStorage> gpu) const;

 private:
  struct State {
    ImageFormat::Format format = ImageFormat::UNKNOWN;
    int width = 0;
    int height = 0;
    int channels = 0;
    mutable std::mutex mu;  // Guards the views below.
    std::shared_ptr<ImageFrame> cpu;
    std::shared_ptr<ImageGpuStorage> gpu;
  };
  std::shared_ptr<State> state_;
};

}  // namespace sluice

#endif  // SLUICE_FORMATS_IMAGE_H_
