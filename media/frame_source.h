// Frame sources: a single image, a folder of images, a video file or a camera,
// all delivering SRGB ImageFrames with an index and a timestamp.
#ifndef SLUICE_MEDIA_FRAME_SOURCE_H_
#define SLUICE_MEDIA_FRAME_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image_frame.h"

namespace sluice {

// Timestamp step between still images: MediaPipe's Python solutions feed
// images ~30 fps apart.
inline constexpr int64_t kStillFrameIntervalUs = 33333;

struct SourceFrame {
  int64_t index = 0;         // 0-based position in the source.
  int64_t timestamp_us = 0;  // Strictly increasing within a source.
  // Not OK when this one frame could not be read (a corrupt video frame, an
  // unreadable file in a folder); `image` is then empty and the source goes
  // on with the next frame.
  absl::Status status;
  ImageFrame image;  // SRGB.
  std::string name;  // File name for images; empty for video and cameras.
};

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // Fills `frame` with the next frame (or its per-frame error); false at the end.
  virtual bool Next(SourceFrame* frame) = 0;
  // Number of frames when known (files, folders, most videos), else -1.
  virtual int64_t FrameCount() const = 0;
  // Frames per second of videos and cameras; 0 when unknown.
  virtual double Fps() const = 0;
  // What is being read, for messages: "video file \"x.mp4\"".
  virtual std::string Description() const = 0;
};

// Picks the source for `path_or_device`: an integer or /dev/videoN is a
// camera, a directory is a folder of images, a file with an image extension
// is one image, any other file is tried as a video. Missing or unreadable
// inputs give an error naming the path.
absl::StatusOr<std::unique_ptr<FrameSource>> OpenFrameSource(const std::string& path_or_device);

// Whether `path`'s extension is one of the image formats we read (case-insensitive).
bool HasImageExtension(const std::string& path);

// Video files and cameras, via OpenCV's VideoCapture (video_capture_source.cc).
absl::StatusOr<std::unique_ptr<FrameSource>> OpenVideoFileSource(const std::string& path);
absl::StatusOr<std::unique_ptr<FrameSource>> OpenCameraSource(int index, const std::string& name);

}  // namespace sluice

#endif  // SLUICE_MEDIA_FRAME_SOURCE_H_
