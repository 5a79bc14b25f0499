#include "media/frame_source.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "formats/image_io.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;

// Still images from a list of files: one file, or a folder's images by name.
class ImageListSource : public FrameSource {
 public:
  ImageListSource(std::vector<std::string> paths, std::string description)
      : paths_(std::move(paths)), description_(std::move(description)) {}

  bool Next(SourceFrame* frame) override {
    if (next_ >= paths_.size()) return false;
    const std::string& path = paths_[next_];
    frame->index = static_cast<int64_t>(next_);
    frame->timestamp_us = frame->index * kStillFrameIntervalUs;
    frame->name = fs::path(path).filename().string();
    absl::StatusOr<ImageFrame> image = ReadImageFile(path, ImageFormat::SRGB);
    if (image.ok()) {
      frame->status = absl::OkStatus();
      frame->image = *std::move(image);
    } else {
      frame->status = image.status();
      frame->image = ImageFrame();
    }
    ++next_;
    return true;
  }
  int64_t FrameCount() const override { return static_cast<int64_t>(paths_.size()); }
  double Fps() const override { return 0; }
  std::string Description() const override { return description_; }

 private:
  std::vector<std::string> paths_;
  std::string description_;
  size_t next_ = 0;
};

// "/dev/video3" -> 3, "2" -> 2, anything else -> -1.
int CameraIndex(const std::string& s) {
  std::string digits = s;
  if (absl::StartsWith(s, "/dev/video")) digits = s.substr(10);
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return -1;
  }
  int index = -1;
  if (!absl::SimpleAtoi(digits, &index)) return -1;
  return index;
}

}  // namespace

bool HasImageExtension(const std::string& path) {
  static const char* const kExtensions[] = {".png", ".jpg",  ".jpeg", ".bmp", ".webp",
                                            ".tif", ".tiff", ".ppm",  ".pgm", ".pnm"};
  const std::string ext = absl::AsciiStrToLower(fs::path(path).extension().string());
  for (const char* e : kExtensions) {
    if (ext == e) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<FrameSource>> OpenFrameSource(const std::string& path_or_device) {
  if (path_or_device.empty()) return absl::InvalidArgumentError("no input path given");
  const int camera = CameraIndex(path_or_device);
  if (camera >= 0) return OpenCameraSource(camera, path_or_device);

  std::error_code ec;
  const fs::file_status st = fs::status(path_or_device, ec);
  if (st.type() == fs::file_type::not_found) {
    return absl::NotFoundError(absl::StrCat("input \"", path_or_device, "\" does not exist"));
  }
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot access input \"", path_or_device, "\": ", ec.message()));
  }
  if (fs::is_directory(st)) {
    std::vector<std::string> paths;
    for (fs::directory_iterator it(path_or_device, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_regular_file(type_ec) && HasImageExtension(it->path().string())) {
        paths.push_back(it->path().string());
      }
    }
    if (ec) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot list folder \"", path_or_device, "\": ", ec.message()));
    }
    if (paths.empty()) {
      return absl::NotFoundError(
          absl::StrCat("folder \"", path_or_device, "\" holds no image files"));
    }
    std::sort(paths.begin(), paths.end());
    return std::unique_ptr<FrameSource>(new ImageListSource(
        std::move(paths), absl::StrCat("image folder \"", path_or_device, "\"")));
  }
  if (HasImageExtension(path_or_device)) {
    // Decode now so that an unreadable single image is an open error.
    absl::StatusOr<ImageFrame> probe = ReadImageFile(path_or_device, ImageFormat::SRGB);
    if (!probe.ok()) return probe.status();
    return std::unique_ptr<FrameSource>(
        new ImageListSource({path_or_device}, absl::StrCat("image file \"", path_or_device, "\"")));
  }
  return OpenVideoFileSource(path_or_device);
}

}  // namespace sluice
