// Video files and cameras through OpenCV's VideoCapture (FFmpeg / V4L2).
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "formats/image_frame_opencv.h"
#include "media/frame_source.h"
#include "opencv2/core/utils/logger.hpp"
#include "opencv2/imgproc.hpp"
#include "opencv2/videoio.hpp"

namespace sluice {
namespace {

// Failed reads in a row after which a video is taken to have ended; shorter
// damaged stretches are reported frame by frame.
constexpr int kMaxConsecutiveFailures = 8;

absl::StatusOr<ImageFrame> ToSrgb(const cv::Mat& bgr, const std::string& what) {
  if (bgr.empty() || bgr.depth() != CV_8U) {
    return absl::DataLossError(absl::StrCat(what, ": decoder returned no 8-bit image"));
  }
  absl::StatusOr<ImageFrame> frame = ImageFrame::Create(ImageFormat::SRGB, bgr.cols, bgr.rows);
  if (!frame.ok()) return frame.status();
  cv::Mat dst = MatView(&*frame);
  const int ch = bgr.channels();
  cv::cvtColor(bgr, dst,
               ch == 1   ? cv::COLOR_GRAY2RGB
               : ch == 4 ? cv::COLOR_BGRA2RGB
                         : cv::COLOR_BGR2RGB);
  return frame;
}

class VideoCaptureSource : public FrameSource {
 public:
  VideoCaptureSource(cv::VideoCapture cap, std::string description, bool live)
      : cap_(std::move(cap)), description_(std::move(description)), live_(live) {
    fps_ = cap_.get(cv::CAP_PROP_FPS);
    if (!std::isfinite(fps_) || fps_ <= 0 || fps_ > 1000) fps_ = 0;
    const double count = live_ ? -1 : cap_.get(cv::CAP_PROP_FRAME_COUNT);
    frame_count_ = count > 0 && std::isfinite(count) ? static_cast<int64_t>(count) : -1;
    start_ = std::chrono::steady_clock::now();
  }

  bool Next(SourceFrame* frame) override {
    frame->name.clear();
    frame->index = index_;
    if (pending_.empty()) {
      if (ended_) return false;
      // After a failed read, read ahead: a later good frame means the failed
      // ones were damaged (reported one by one); none means the stream ended
      // (a frame count estimated from the duration may be a little high).
      bool ok = Read(&pending_, &pending_pos_ms_);
      while (!ok && pending_errors_ < kMaxConsecutiveFailures) {
        ++pending_errors_;
        ok = Read(&pending_, &pending_pos_ms_);
      }
      if (!ok) {
        ended_ = true;
        pending_ = cv::Mat();
        return false;
      }
    }
    if (pending_errors_ > 0) {
      --pending_errors_;
      frame->timestamp_us = NextTimestamp(-1);
      frame->status =
          absl::DataLossError(absl::StrCat(description_, ": cannot decode frame ", index_));
      frame->image = ImageFrame();
      ++index_;
      return true;
    }
    frame->timestamp_us = NextTimestamp(pending_pos_ms_);
    absl::StatusOr<ImageFrame> image =
        ToSrgb(pending_, absl::StrCat(description_, " frame ", index_));
    pending_ = cv::Mat();
    frame->status = image.status();
    frame->image = image.ok() ? *std::move(image) : ImageFrame();
    ++index_;
    return true;
  }

  int64_t FrameCount() const override { return frame_count_; }
  double Fps() const override { return fps_; }
  std::string Description() const override { return description_; }

 private:
  bool Read(cv::Mat* bgr, double* pos_ms) {
    try {
      if (!cap_.read(*bgr) || bgr->empty()) return false;
    } catch (const cv::Exception&) {
      return false;
    }
    *pos_ms = live_ ? -1 : cap_.get(cv::CAP_PROP_POS_MSEC);
    return true;
  }

  // Container time when the decoder gives one, else wall time (cameras) or
  // index / fps; forced strictly increasing, as graphs need.
  int64_t NextTimestamp(double pos_ms) {
    int64_t ts;
    if (live_) {
      ts = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                 start_)
               .count();
    } else if (pos_ms >= 0 && std::isfinite(pos_ms) && (pos_ms > 0 || index_ == 0)) {
      ts = std::llround(pos_ms * 1000.0);
    } else {
      ts = fps_ > 0 ? std::llround(index_ * 1e6 / fps_) : index_ * kStillFrameIntervalUs;
    }
    if (last_ts_ >= 0 && ts <= last_ts_) ts = last_ts_ + 1;
    last_ts_ = ts;
    return ts;
  }

  cv::VideoCapture cap_;
  std::string description_;
  bool live_;
  double fps_ = 0;
  int64_t frame_count_ = -1;
  int64_t index_ = 0;
  int64_t last_ts_ = -1;
  cv::Mat pending_;  // A decoded frame waiting behind pending_errors_ bad ones.
  double pending_pos_ms_ = -1;
  int pending_errors_ = 0;
  bool ended_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<FrameSource>> OpenVideoFileSource(const std::string& path) {
  const std::string what = absl::StrCat("video file \"", path, "\"");
  if (!std::ifstream(path, std::ios::binary)) {
    return absl::NotFoundError(absl::StrCat("cannot open ", what));
  }
  cv::VideoCapture cap;
  try {
    cap.open(path, cv::CAP_FFMPEG);
  } catch (const cv::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", what, ": ", e.what()));
  }
  if (!cap.isOpened()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read ", what, ": not an image or a video FFmpeg can decode"));
  }
  return std::unique_ptr<FrameSource>(new VideoCaptureSource(std::move(cap), what, false));
}

absl::StatusOr<std::unique_ptr<FrameSource>> OpenCameraSource(int index, const std::string& name) {
  const std::string what = absl::StrCat("camera \"", name, "\"");
  const std::string device = absl::StrCat("/dev/video", index);
  std::error_code ec;
  if (!std::filesystem::exists(device, ec)) {
    return absl::NotFoundError(absl::StrCat("cannot open ", what, ": ", device, " does not exist"));
  }
  cv::VideoCapture cap;
  // A refused device makes every backend log; our error says it once.
  const cv::utils::logging::LogLevel old_level =
      cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  try {
    cap.open(index, cv::CAP_V4L2);
    if (!cap.isOpened()) cap.open(index, cv::CAP_ANY);
  } catch (const cv::Exception&) {
    cap.release();
  }
  cv::utils::logging::setLogLevel(old_level);
  if (!cap.isOpened()) {
    return absl::UnavailableError(
        absl::StrCat("cannot open ", what, ": no such device or it is busy"));
  }
  return std::unique_ptr<FrameSource>(new VideoCaptureSource(std::move(cap), what, true));
}

}  // namespace sluice
