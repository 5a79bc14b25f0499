// Reading and writing image files (PNG, JPEG, ...) with OpenCV's imgcodecs.
#ifndef SLUICE_FORMATS_IMAGE_IO_H_
#define SLUICE_FORMATS_IMAGE_IO_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image_frame.h"

namespace sluice {

// Decodes the file at `path` into a frame of `format` (SRGB, SRGBA or GRAY8;
// colour images are converted, a missing alpha becomes 255).
absl::StatusOr<ImageFrame> ReadImageFile(const std::string& path,
                                         ImageFormat::Format format = ImageFormat::SRGB);
// Same from encoded bytes; `what` names the source in errors.
absl::StatusOr<ImageFrame> DecodeImage(const std::string& bytes,
                                       ImageFormat::Format format = ImageFormat::SRGB,
                                       const std::string& what = "image data");
// Writes `frame` (SRGB, SRGBA, GRAY8 or GRAY16) as PNG.
absl::Status WritePngFile(const ImageFrame& frame, const std::string& path);

}  // namespace sluice

#endif  // SLUICE_FORMATS_IMAGE_IO_H_
