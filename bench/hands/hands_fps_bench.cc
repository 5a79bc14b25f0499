// Hand tracking frames per second on pre-decoded frames: decoding and resizing
// happen once, before timing, so the figure is the tracker alone (the graph:
// palm detection, landmarks, post-processing) on the chosen device.
//
//   hands_fps_bench --input VIDEO_OR_IMAGE [--device cpu|cuda] [--static]
//                   [--size 1280x720] [--frames 300] [--warmup 10]
//                   [--max-hands 1] [--model-complexity 1]
//
// The input's frames (up to --frames; a single image is repeated) are scaled
// to --size (stretched, linear) and kept in memory. --warmup of them go
// through Process() untimed (model load, CUDA graph capture, pools); then all
// frames go through the pipelined Send()/Next() API, as `sluice hands` feeds
// them, and fps = frames / wall time from the first Send() to the last
// result. Each Send() gets a copy of its frame (a decoder would hand over a
// fresh one too). The last line is fixed, for scripts:
//   hands-fps DEVICE MODE WxH frames=N seconds=S fps=F hands=H
// (MODE: tracking or static; H: hands found over all timed frames).
// Exit: 0 done, 1 error, 2 bad arguments, 77 --device cuda without a usable
// CUDA GPU or in a build without CUDA (the tracker's own check).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "formats/image_frame.h"
#include "formats/image_frame_opencv.h"
#include "media/frame_source.h"
#include "opencv2/imgproc.hpp"
#include "solutions/hands/hand_tracker.h"

namespace sluice {
namespace {

struct Args {
  std::string input;
  std::string device = "cpu";
  bool static_mode = false;
  int width = 1280;
  int height = 720;
  int frames = 300;
  int warmup = 10;
  int max_hands = 1;
  int complexity = 1;
};

int Usage(const char* why) {
  std::fprintf(stderr,
               "hands_fps_bench: %s\nusage: hands_fps_bench --input VIDEO_OR_IMAGE [--device cpu|cuda] "
               "[--static] [--size WxH] [--frames N] [--warmup N] [--max-hands N] "
               "[--model-complexity 0|1]\n",
               why);
  return 2;
}

bool ParseInt(const char* s, int min, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < min || v > 1000000) return false;
  *out = static_cast<int>(v);
  return true;
}

int Fail(const absl::Status& s, const char* what) {
  std::fprintf(stderr, "hands_fps_bench: %s: %s\n", what, std::string(s.message()).c_str());
  return 1;
}

int Run(const Args& a) {
  HandTrackerOptions options;
  options.static_image_mode = a.static_mode;
  options.max_num_hands = a.max_hands;
  options.model_complexity = a.complexity;
  options.device = a.device;
  absl::StatusOr<std::unique_ptr<HandTracker>> tracker = HandTracker::Create(options);
  if (!tracker.ok()) {
    // The tracker's device check ("device cuda: no usable CUDA GPU found", or
    // "this build has no CUDA inference backend").
    if (a.device == "cuda" && (absl::StrContains(tracker.status().message(), "no usable CUDA GPU") ||
                               absl::StrContains(tracker.status().message(), "no CUDA inference backend"))) {
      std::printf("SKIP: %s\n", std::string(tracker.status().message()).c_str());
      return 77;
    }
    return Fail(tracker.status(), "HandTracker::Create");
  }

  // Decode and scale once.
  absl::StatusOr<std::unique_ptr<FrameSource>> source = OpenFrameSource(a.input);
  if (!source.ok()) return Fail(source.status(), "input");
  std::vector<ImageFrame> frames;
  SourceFrame f;
  while (static_cast<int>(frames.size()) < a.frames && (*source)->Next(&f)) {
    if (!f.status.ok()) return Fail(f.status, "decoding");
    ImageFrame scaled = *ImageFrame::Create(ImageFormat::SRGB, a.width, a.height);
    cv::Mat out = MatView(&scaled);
    cv::resize(MatView(f.image), out, out.size(), 0, 0, cv::INTER_LINEAR);
    frames.push_back(std::move(scaled));
  }
  if (frames.empty()) return Fail(absl::NotFoundError("no frame decoded"), a.input.c_str());
  // A single image (or a short clip) is repeated up to --frames.
  for (size_t i = 0; static_cast<int>(frames.size()) < a.frames; ++i) {
    absl::StatusOr<ImageFrame> copy = frames[i].Clone();
    if (!copy.ok()) return Fail(copy.status(), "copy");
    frames.push_back(std::move(*copy));
  }

  HandTracker& t = **tracker;
  int64_t ts = 0;
  constexpr int64_t kStep = 33333;  // 30 fps timestamps
  for (int i = 0; i < a.warmup; ++i) {
    absl::StatusOr<HandTrackingResult> r = t.Process(frames[i % frames.size()], ts += kStep);
    if (!r.ok()) return Fail(r.status(), "warm-up frame");
  }

  // Pipelined: Send() blocks while max_in_flight frames are in the graph, so
  // take results as they come.
  int64_t hands = 0;
  size_t done = 0;
  HandTrackingResult result;
  const auto t0 = std::chrono::steady_clock::now();
  for (const ImageFrame& frame : frames) {
    absl::StatusOr<ImageFrame> copy = frame.Clone();
    if (!copy.ok()) return Fail(copy.status(), "copy");
    if (absl::Status s = t.Send(std::move(*copy), ts += kStep); !s.ok()) return Fail(s, "Send");
    while (t.TryNext(&result)) {
      hands += static_cast<int64_t>(result.hands.size());
      ++done;
    }
  }
  if (absl::Status s = t.Close(); !s.ok()) return Fail(s, "Close");
  while (t.Next(&result)) {
    hands += static_cast<int64_t>(result.hands.size());
    ++done;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!t.status().ok()) return Fail(t.status(), "graph");
  if (done != frames.size()) {
    std::fprintf(stderr, "hands_fps_bench: %zu results for %zu frames\n", done, frames.size());
    return 1;
  }
  std::printf("hands-fps %s %s %dx%d frames=%zu seconds=%.3f fps=%.1f hands=%lld\n", a.device.c_str(),
              a.static_mode ? "static" : "tracking", a.width, a.height, frames.size(), seconds,
              frames.size() / seconds, static_cast<long long>(hands));
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  sluice::Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    auto need = [&]() { return v != nullptr && (++i, true); };
    if (arg == "--static") {
      a.static_mode = true;
    } else if (arg == "--input" && need()) {
      a.input = v;
    } else if (arg == "--device" && need()) {
      a.device = v;
      if (a.device != "cpu" && a.device != "cuda") return sluice::Usage("--device: cpu or cuda");
    } else if (arg == "--size" && need()) {
      if (std::sscanf(v, "%dx%d", &a.width, &a.height) != 2 || a.width < 16 || a.height < 16) {
        return sluice::Usage("--size: WxH, e.g. 1280x720");
      }
    } else if (arg == "--frames" && need()) {
      if (!sluice::ParseInt(v, 1, &a.frames)) return sluice::Usage("--frames: an integer >= 1");
    } else if (arg == "--warmup" && need()) {
      if (!sluice::ParseInt(v, 0, &a.warmup)) return sluice::Usage("--warmup: an integer >= 0");
    } else if (arg == "--max-hands" && need()) {
      if (!sluice::ParseInt(v, 1, &a.max_hands)) return sluice::Usage("--max-hands: an integer >= 1");
    } else if (arg == "--model-complexity" && need()) {
      if (!sluice::ParseInt(v, 0, &a.complexity) || a.complexity > 1) {
        return sluice::Usage("--model-complexity: 0 or 1");
      }
    } else {
      return sluice::Usage(("unknown or incomplete argument '" + arg + "'").c_str());
    }
  }
  if (a.input.empty()) return sluice::Usage("--input is required");
  return sluice::Run(a);
}
