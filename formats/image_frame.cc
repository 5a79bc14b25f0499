#include "formats/image_frame.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice {
namespace {

bool IsPowerOfTwo(int v) { return v > 0 && (v & (v - 1)) == 0; }

std::string FormatName(ImageFormat::Format format) {
  const std::string& name = ImageFormat::Format_Name(format);
  return name.empty() ? absl::StrCat("format ", static_cast<int>(format)) : name;
}

struct Layout {
  int channels;
  int byte_depth;
};

absl::StatusOr<Layout> LayoutOf(ImageFormat::Format format) {
  switch (format) {
    case ImageFormat::SRGB:
    case ImageFormat::LAB8:
      return Layout{3, 1};
    case ImageFormat::SRGBA:
    case ImageFormat::SBGRA:
      return Layout{4, 1};
    case ImageFormat::GRAY8:
      return Layout{1, 1};
    case ImageFormat::GRAY16:
      return Layout{1, 2};
    case ImageFormat::SRGB48:
      return Layout{3, 2};
    case ImageFormat::SRGBA64:
      return Layout{4, 2};
    case ImageFormat::VEC32F1:
      return Layout{1, 4};
    case ImageFormat::VEC32F2:
      return Layout{2, 4};
    case ImageFormat::VEC32F4:
      return Layout{4, 4};
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("ImageFrame: unsupported image format ", FormatName(format)));
  }
}

// Checks dimensions and that height * width_step fits in memory arithmetic.
absl::Status CheckSize(ImageFormat::Format format, int width, int height, int64_t width_step,
                       const Layout& layout) {
  if (width <= 0 || height <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ImageFrame: invalid size ", width, "x", height, " for ", FormatName(format)));
  }
  const int64_t row = static_cast<int64_t>(width) * layout.channels * layout.byte_depth;
  if (row > std::numeric_limits<int>::max() / 2 ||
      width_step * height > std::numeric_limits<int64_t>::max() / 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("ImageFrame: size ", width, "x", height, " is too large"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> ImageFrame::NumberOfChannelsForFormat(ImageFormat::Format format) {
  absl::StatusOr<Layout> l = LayoutOf(format);
  if (!l.ok()) return l.status();
  return l->channels;
}

absl::StatusOr<int> ImageFrame::ByteDepthForFormat(ImageFormat::Format format) {
  absl::StatusOr<Layout> l = LayoutOf(format);
  if (!l.ok()) return l.status();
  return l->byte_depth;
}

absl::StatusOr<ImageFrame> ImageFrame::Create(ImageFormat::Format format, int width, int height,
                                              int alignment_boundary) {
  absl::StatusOr<Layout> layout = LayoutOf(format);
  if (!layout.ok()) return layout.status();
  if (!IsPowerOfTwo(alignment_boundary)) {
    return absl::InvalidArgumentError(absl::StrCat("ImageFrame: alignment boundary ",
                                                   alignment_boundary, " is not a power of two"));
  }
  absl::Status s = CheckSize(format, width, height, 0, *layout);
  if (!s.ok()) return s;
  const int row = width * layout->channels * layout->byte_depth;
  const int step = (row + alignment_boundary - 1) / alignment_boundary * alignment_boundary;
  const size_t bytes = static_cast<size_t>(step) * height;
  // aligned_alloc wants a size that is a multiple of the alignment (step is).
  const size_t align = alignment_boundary < static_cast<int>(sizeof(void*))
                           ? sizeof(void*)
                           : static_cast<size_t>(alignment_boundary);
  const size_t alloc = (bytes + align - 1) / align * align;
  auto* data = static_cast<uint8_t*>(std::aligned_alloc(align, alloc));
  if (data == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("ImageFrame: cannot allocate ", bytes, " bytes"));
  }
  std::memset(data, 0, bytes);
  return Adopt(format, width, height, step, data, [](uint8_t* p) { std::free(p); });
}

absl::StatusOr<ImageFrame> ImageFrame::Adopt(ImageFormat::Format format, int width, int height,
                                             int width_step, uint8_t* pixel_data, Deleter deleter) {
  absl::StatusOr<Layout> layout = LayoutOf(format);
  if (!layout.ok()) return layout.status();
  absl::Status s = CheckSize(format, width, height, width_step, *layout);
  if (!s.ok()) return s;
  const int row = width * layout->channels * layout->byte_depth;
  if (width_step < row) {
    return absl::InvalidArgumentError(absl::StrCat("ImageFrame: width_step ", width_step,
                                                   " is smaller than a row (", row, " bytes)"));
  }
  if (pixel_data == nullptr) {
    return absl::InvalidArgumentError("ImageFrame: null pixel data");
  }
  ImageFrame f;
  f.format_ = format;
  f.width_ = width;
  f.height_ = height;
  f.width_step_ = width_step;
  f.channels_ = layout->channels;
  f.byte_depth_ = layout->byte_depth;
  if (!deleter) deleter = [](uint8_t*) {};
  f.pixels_ = std::unique_ptr<uint8_t[], Deleter>(pixel_data, std::move(deleter));
  return f;
}

bool ImageFrame::IsAligned(int boundary) const {
  if (IsEmpty() || !IsPowerOfTwo(boundary)) return false;
  return reinterpret_cast<uintptr_t>(pixels_.get()) % boundary == 0 && width_step_ % boundary == 0;
}

absl::StatusOr<ImageFrame> ImageFrame::Clone(int alignment_boundary) const {
  if (IsEmpty()) return absl::FailedPreconditionError("ImageFrame::Clone: the frame is empty");
  absl::StatusOr<ImageFrame> out = Create(format_, width_, height_, alignment_boundary);
  if (!out.ok()) return out.status();
  for (int y = 0; y < height_; ++y) std::memcpy(out->MutableRow(y), Row(y), RowBytes());
  return out;
}

absl::Status ImageFrame::CopyToBuffer(uint8_t* buffer, size_t size) const {
  if (IsEmpty()) return absl::FailedPreconditionError("ImageFrame::CopyToBuffer: empty frame");
  if (buffer == nullptr || size < PixelDataSize()) {
    return absl::InvalidArgumentError(absl::StrCat("ImageFrame::CopyToBuffer: buffer of ", size,
                                                   " bytes, need ", PixelDataSize()));
  }
  for (int y = 0; y < height_; ++y) {
    std::memcpy(buffer + static_cast<size_t>(y) * RowBytes(), Row(y), RowBytes());
  }
  return absl::OkStatus();
}

}  // namespace sluice
