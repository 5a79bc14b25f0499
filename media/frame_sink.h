// Frame sinks: where annotated frames go (an image file, a folder of images,
// or an mp4 video).
#ifndef SLUICE_MEDIA_FRAME_SINK_H_
#define SLUICE_MEDIA_FRAME_SINK_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image_frame.h"

namespace sluice {

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // Writes one SRGB, SRGBA or GRAY8 frame.
  virtual absl::Status Write(const ImageFrame& frame) = 0;
  // Finishes the file (also done by the destructor, which drops errors).
  virtual absl::Status Close() = 0;
  // What is being written, e.g. "video file \"out.mp4\" (H.264/avc1, 30 fps)".
  virtual std::string Description() const = 0;
  // The fourcc a video sink ended up using ("avc1", "mp4v", ...); "" for image
  // sinks and before the first frame.
  virtual std::string Codec() const { return ""; }
};

// Picks the sink for `path`:
//  - ".mp4", ".m4v", ".mov", ".mkv": a video sized from the first frame at
//    `fps` (<= 0 means 30), H.264 (fourcc avc1) when FFmpeg has an encoder for
//    it, else MPEG-4 Part 2 (mp4v); Description() and Codec() say which.
//    Later frames of another size are scaled to fit, aspect kept, on black
//    (e.g. a folder of photos of mixed sizes). Odd widths/heights lose their
//    last column/row (4:2:0 video needs even sizes).
//  - ".avi": Motion JPEG (MJPG), falling back to mp4v.
//  - ".png", ".jpg", ".jpeg", ".bmp", ...: one image; a second Write is an error.
//  - an existing directory or a path ending in '/': one PNG per frame,
//    named 000000.png, 000001.png, ...
absl::StatusOr<std::unique_ptr<FrameSink>> OpenFrameSink(const std::string& path,
                                                         double fps = 30.0);

// Writes `frame` as PNG or JPEG (by `path`'s extension; JPEG quality 95).
absl::Status WriteImage(const ImageFrame& frame, const std::string& path);

}  // namespace sluice

#endif  // SLUICE_MEDIA_FRAME_SINK_H_
