#include "media/frame_sink.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "formats/image_frame_opencv.h"
#include "media/frame_source.h"
#include "opencv2/core/utils/logger.hpp"
#include "opencv2/imgcodecs.hpp"
#include "opencv2/imgproc.hpp"
#include "opencv2/videoio.hpp"

namespace sluice {
namespace {

namespace fs = std::filesystem;

// OpenCV wants BGR(A); frames are RGB(A) or gray.
absl::StatusOr<cv::Mat> ToBgr(const ImageFrame& frame, const std::string& what) {
  if (frame.IsEmpty()) return absl::InvalidArgumentError(absl::StrCat(what, ": empty frame"));
  const cv::Mat view = MatView(frame);
  cv::Mat bgr;
  switch (frame.Format()) {
    case ImageFormat::SRGB:
      cv::cvtColor(view, bgr, cv::COLOR_RGB2BGR);
      return bgr;
    case ImageFormat::SRGBA:
      cv::cvtColor(view, bgr, cv::COLOR_RGBA2BGR);
      return bgr;
    case ImageFormat::GRAY8:
      cv::cvtColor(view, bgr, cv::COLOR_GRAY2BGR);
      return bgr;
    default:
      return absl::InvalidArgumentError(absl::StrCat(what, ": cannot write ",
                                                     ImageFormat::Format_Name(frame.Format()),
                                                     " frames (SRGB, SRGBA or GRAY8 only)"));
  }
}

// `image` scaled to fit `size` with its aspect ratio kept, centred on black.
cv::Mat Letterbox(const cv::Mat& image, cv::Size size) {
  const double scale = std::min(static_cast<double>(size.width) / image.cols,
                                static_cast<double>(size.height) / image.rows);
  const int w = std::clamp(static_cast<int>(std::lround(image.cols * scale)), 1, size.width);
  const int h = std::clamp(static_cast<int>(std::lround(image.rows * scale)), 1, size.height);
  cv::Mat out(size, image.type(), cv::Scalar::all(0));
  cv::resize(image, out(cv::Rect((size.width - w) / 2, (size.height - h) / 2, w, h)),
             cv::Size(w, h), 0, 0, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
  return out;
}

bool IsVideoPath(const std::string& path) {
  const std::string ext = absl::AsciiStrToLower(fs::path(path).extension().string());
  return ext == ".mp4" || ext == ".m4v" || ext == ".mov" || ext == ".avi" || ext == ".mkv";
}

class SingleImageSink : public FrameSink {
 public:
  explicit SingleImageSink(std::string path) : path_(std::move(path)) {}
  absl::Status Write(const ImageFrame& frame) override {
    if (written_) {
      return absl::FailedPreconditionError(absl::StrCat(
          Description(), " takes one frame; write a video (.mp4) or a folder for more"));
    }
    written_ = true;
    return WriteImage(frame, path_);
  }
  absl::Status Close() override { return absl::OkStatus(); }
  std::string Description() const override { return absl::StrCat("image file \"", path_, "\""); }

 private:
  std::string path_;
  bool written_ = false;
};

class FolderSink : public FrameSink {
 public:
  explicit FolderSink(std::string dir) : dir_(std::move(dir)) {}
  absl::Status Write(const ImageFrame& frame) override {
    const fs::path path = fs::path(dir_) / absl::StrFormat("%06d.png", next_++);
    return WriteImage(frame, path.string());
  }
  absl::Status Close() override { return absl::OkStatus(); }
  std::string Description() const override { return absl::StrCat("image folder \"", dir_, "\""); }

 private:
  std::string dir_;
  int next_ = 0;
};

class VideoSink : public FrameSink {
 public:
  VideoSink(std::string path, double fps) : path_(std::move(path)), fps_(fps) {}
  ~VideoSink() override { Close().IgnoreError(); }

  absl::Status Write(const ImageFrame& frame) override {
    const std::string what = absl::StrCat("video file \"", path_, "\"");
    if (closed_) return absl::FailedPreconditionError(absl::StrCat(what, " is closed"));
    absl::StatusOr<cv::Mat> bgr = ToBgr(frame, what);
    if (!bgr.ok()) return bgr.status();
    if (!writer_.isOpened()) {
      // 4:2:0 encoders need even sizes: odd ones lose their last column/row.
      first_size_ = bgr->size();
      absl::Status opened =
          Open(cv::Size(std::max(2, first_size_.width & ~1), std::max(2, first_size_.height & ~1)));
      if (!opened.ok()) return opened;
    }
    if (bgr->size() == first_size_ && first_size_ != size_) {
      *bgr = (*bgr)(
          cv::Rect(0, 0, std::min(size_.width, bgr->cols), std::min(size_.height, bgr->rows)));
    }
    if (bgr->size() != size_) *bgr = Letterbox(*bgr, size_);
    try {
      writer_.write(*bgr);
    } catch (const cv::Exception& e) {
      return absl::InternalError(absl::StrCat(what, ": cannot encode frame: ", e.what()));
    }
    return absl::OkStatus();
  }

  absl::Status Close() override {
    if (closed_) return absl::OkStatus();
    closed_ = true;
    if (writer_.isOpened()) writer_.release();
    return absl::OkStatus();
  }

  std::string Description() const override {
    std::string d = absl::StrCat("video file \"", path_, "\"");
    if (!codec_.empty()) {
      absl::StrAppend(&d, " (", codec_ == "avc1" ? "H.264/avc1" : codec_, ", ", fps_, " fps)");
    }
    return d;
  }
  std::string Codec() const override { return codec_; }

 private:
  absl::Status Open(cv::Size size) {
    // H.264 is what players expect; mp4v when FFmpeg has no H.264 encoder. MP4
    // containers only; others take what FFmpeg picks for mp4v.
    const std::string ext = absl::AsciiStrToLower(fs::path(path_).extension().string());
    std::vector<std::string> codecs = {"avc1", "mp4v"};
    if (ext == ".avi") codecs = {"MJPG", "mp4v"};
    // Failed attempts make OpenCV and FFmpeg log errors; they are expected.
    const cv::utils::logging::LogLevel old_level =
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
    for (const std::string& c : codecs) {
      try {
        const int fourcc = cv::VideoWriter::fourcc(c[0], c[1], c[2], c[3]);
        if (writer_.open(path_, cv::CAP_FFMPEG, fourcc, fps_, size, true) && writer_.isOpened()) {
          codec_ = c;
          break;
        }
      } catch (const cv::Exception&) {
      }
    }
    cv::utils::logging::setLogLevel(old_level);
    if (!writer_.isOpened()) {
      return absl::UnavailableError(absl::StrCat("cannot create video file \"", path_,
                                                 "\": no usable encoder or unwritable path"));
    }
    size_ = size;
    return absl::OkStatus();
  }

  std::string path_;
  double fps_;
  cv::VideoWriter writer_;
  cv::Size first_size_;  // Of the first frame.
  cv::Size size_;        // Of the video.
  std::string codec_;
  bool closed_ = false;
};

}  // namespace

absl::Status WriteImage(const ImageFrame& frame, const std::string& path) {
  const std::string what = absl::StrCat("image file \"", path, "\"");
  absl::StatusOr<cv::Mat> bgr = ToBgr(frame, what);
  if (!bgr.ok()) return bgr.status();
  std::vector<int> params;
  const std::string ext = absl::AsciiStrToLower(fs::path(path).extension().string());
  if (ext == ".jpg" || ext == ".jpeg") params = {cv::IMWRITE_JPEG_QUALITY, 95};
  try {
    if (!cv::imwrite(path, *bgr, params)) {
      return absl::PermissionDeniedError(absl::StrCat("cannot write ", what));
    }
  } catch (const cv::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", what, ": ", e.what()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<FrameSink>> OpenFrameSink(const std::string& path, double fps) {
  if (path.empty()) return absl::InvalidArgumentError("no output path given");
  std::error_code ec;
  if (path.back() == '/' || fs::is_directory(path, ec)) {
    fs::create_directories(path, ec);
    if (ec) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create output folder \"", path, "\": ", ec.message()));
    }
    return std::unique_ptr<FrameSink>(new FolderSink(path));
  }
  if (IsVideoPath(path)) {
    return std::unique_ptr<FrameSink>(new VideoSink(path, fps > 0 ? fps : 30.0));
  }
  if (HasImageExtension(path)) return std::unique_ptr<FrameSink>(new SingleImageSink(path));
  return absl::InvalidArgumentError(
      absl::StrCat("output \"", path,
                   "\": unknown kind (use .mp4/.mov/.mkv/.avi, an image extension, or a folder)"));
}

}  // namespace sluice
