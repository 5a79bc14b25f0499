// ImageFrame: pixels of one image in CPU memory (interleaved channels, rows
// `WidthStep()` bytes apart), owned or adopted from elsewhere.
#ifndef SLUICE_FORMATS_IMAGE_FRAME_H_
#define SLUICE_FORMATS_IMAGE_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image_format.pb.h"

namespace sluice {

using ImageFormat = ::mediapipe::ImageFormat;

class ImageFrame {
 public:
  // Releases adopted pixel memory.
  using Deleter = std::function<void(uint8_t*)>;

  // Rows of frames we allocate start at multiples of this many bytes (SIMD
  // friendly); 1 means tightly packed rows.
  static constexpr int kDefaultAlignmentBoundary = 16;

  // Channels / bytes per channel of a format; errors for planar or unknown ones.
  static absl::StatusOr<int> NumberOfChannelsForFormat(ImageFormat::Format format);
  static absl::StatusOr<int> ByteDepthForFormat(ImageFormat::Format format);

  // Allocates a zero-filled frame. `alignment_boundary` must be a power of two.
  static absl::StatusOr<ImageFrame> Create(ImageFormat::Format format, int width, int height,
                                           int alignment_boundary = kDefaultAlignmentBoundary);
  // Adopts `pixel_data` (rows `width_step` bytes apart) without copying;
  // `deleter` runs when the frame lets go of it (pass a no-op to borrow).
  static absl::StatusOr<ImageFrame> Adopt(ImageFormat::Format format, int width, int height,
                                          int width_step, uint8_t* pixel_data, Deleter deleter);

  // An empty frame (IsEmpty()).
  ImageFrame() = default;
  ImageFrame(ImageFrame&&) noexcept = default;
  ImageFrame& operator=(ImageFrame&&) noexcept = default;
  ImageFrame(const ImageFrame&) = delete;
  ImageFrame& operator=(const ImageFrame&) = delete;

  bool IsEmpty() const { return pixels_ == nullptr; }
  ImageFormat::Format Format() const { return format_; }
  int Width() const { return width_; }
  int Height() const { return height_; }
  // Bytes from one row to the next (>= Width() * NumberOfChannels() * ByteDepth()).
  int WidthStep() const { return width_step_; }
  int NumberOfChannels() const { return channels_; }
  int ByteDepth() const { return byte_depth_; }
  // Bytes of one pixel.
  int PixelStride() const { return channels_ * byte_depth_; }
  // Bytes of the pixels of one row (no padding).
  int RowBytes() const { return width_ * PixelStride(); }
  // Bytes of the pixels when rows are packed tightly.
  size_t PixelDataSize() const { return static_cast<size_t>(RowBytes()) * height_; }
  bool IsContiguous() const { return width_step_ == RowBytes(); }
  // Whether the data and every row start at a multiple of `boundary` bytes.
  bool IsAligned(int boundary) const;

  const uint8_t* PixelData() const { return pixels_.get(); }
  uint8_t* MutablePixelData() { return pixels_.get(); }
  const uint8_t* Row(int y) const { return pixels_.get() + static_cast<size_t>(y) * width_step_; }
  uint8_t* MutableRow(int y) { return pixels_.get() + static_cast<size_t>(y) * width_step_; }

  // A deep copy with rows aligned to `alignment_boundary`.
  absl::StatusOr<ImageFrame> Clone(int alignment_boundary = kDefaultAlignmentBoundary) const;
  // Copies the pixels, rows packed tightly, into `buffer` of `size` bytes.
  absl::Status CopyToBuffer(uint8_t* buffer, size_t size) const;

 private:
  ImageFormat::Format format_ = ImageFormat::UNKNOWN;
  int width_ = 0;
  int height_ = 0;
  int width_step_ = 0;
  int channels_ = 0;
  int byte_depth_ = 0;
  std::unique_ptr<uint8_t[], Deleter> pixels_;
};

}  // namespace sluice

#endif  // SLUICE_FORMATS_IMAGE_FRAME_H_
