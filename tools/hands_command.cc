// `sluice hands`: hand tracking on an image, a folder of images, a video or a
// camera; writes landmarks as JSON Lines and/or an annotated image/video.
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "render/drawing.h"
#include "solutions/hands/hand_tracker.h"
#include "tools/commands.h"
#include "tools/frame_loop.h"
#include "tools/json_text.h"
#include "util/status_macros.h"

namespace sluice::cli {
namespace {

struct HandsArgs {
  FrameLoopArgs loop;
  std::string landmarks;
  bool show_rois = false;
  HandTrackerOptions tracker;
};

// One line of the --landmarks file (format documented in README.md).
std::string FrameJson(int64_t frame, const HandTrackingResult& r) {
  std::string out = absl::StrCat("{\"frame\": ", frame, ", \"timestamp_us\": ", r.timestamp_us,
                                 ", \"width\": ", r.width, ", \"height\": ", r.height,
                                 ", \"hands\": [");
  for (size_t h = 0; h < r.hands.size(); ++h) {
    const TrackedHand& hand = r.hands[h];
    absl::StrAppend(&out, h ? ", " : "", "{\"handedness\": ", JsonString(hand.handedness),
                    ", \"handedness_score\": ", Num(hand.handedness_score),
                    ", \"presence\": ", Num(hand.presence),
                    ", \"landmarks\": ", LandmarkPoints(hand.landmarks),
                    ", \"world_landmarks\": ", LandmarkPoints(hand.world_landmarks), "}");
  }
  return out + "]}";
}

void RunHands(const HandsArgs& args) {
  const std::string command = "hands";
  if (absl::Status s = ValidateHandTrackerOptions(args.tracker); !s.ok()) FailCommand(command, s);
  FrameLoopHooks hooks;
  std::ofstream landmarks_file;
  OpenLandmarksFile(command, args.landmarks, &landmarks_file, &hooks);
  HandTrackerOptions options = args.tracker;
  options.enable_tracing = true;  // for the per-stage summary
  absl::StatusOr<std::unique_ptr<HandTracker>> tracker = HandTracker::Create(options);
  if (!tracker.ok()) FailCommand(command, tracker.status());

  HandTrackingResult result;
  ForwardToSolution(tracker->get(), &result, &hooks);
  int64_t hands_found = 0;
  hooks.emit = [&](const LoopFrame& frame, ImageFrame* canvas) -> absl::Status {
    hands_found += static_cast<int64_t>(result.hands.size());
    if (landmarks_file.is_open()) landmarks_file << FrameJson(frame.index, result) << '\n';
    if (canvas == nullptr) return absl::OkStatus();
    for (const TrackedHand& hand : result.hands) {
      if (args.show_rois) RETURN_IF_ERROR(DrawNormalizedRect(canvas, hand.rect_from_landmarks));
      RETURN_IF_ERROR(DrawHand(canvas, hand.landmarks, &hand.handedness_classes));
    }
    for (size_t d = 0; args.show_rois && d < result.palm_detections.size(); ++d) {
      RETURN_IF_ERROR(DrawDetection(canvas, result.palm_detections[d]));
    }
    return absl::OkStatus();
  };
  hooks.found = [&] { return absl::StrCat(hands_found, " hands found"); };
  RunFrameLoop(command, args.loop, hooks);
}

}  // namespace

void AddHandsCommands(CLI::App& app) {
  auto args = std::make_shared<HandsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "hands", "Hand tracking (MediaPipe Hands): landmarks as JSON Lines and an annotated video");
  AddFrameLoopOptions(cmd, &args->loop,
                      "Annotated output: .mp4/.mkv/.avi video, .png/.jpg image, or a folder");
  cmd->add_option("--landmarks", args->landmarks, "JSON Lines file, one object per frame");
  cmd->add_flag("--static", args->tracker.static_image_mode,
                "Treat every frame on its own (no tracking)");
  cmd->add_option("--max-hands", args->tracker.max_num_hands, "Most hands to find (default 2)");
  cmd->add_option("--model-complexity", args->tracker.model_complexity,
                  "0: lite models, 1: full models (default 1)");
  cmd->add_option("--min-detection-confidence", args->tracker.min_detection_confidence,
                  "Palm detection score threshold (default 0.5)");
  cmd->add_option("--min-tracking-confidence", args->tracker.min_tracking_confidence,
                  "Hand presence threshold to keep tracking (default 0.5)");
  cmd->add_option("--device", args->tracker.device, "cpu, cuda or auto (default cpu)");
  cmd->add_flag("!--no-speculation", args->tracker.speculative_palm_detection,
                "Run palm detection only after the previous frame's landmarks, as MediaPipe "
                "does (default: speculatively, in parallel)");
  cmd->add_option("--threads", args->tracker.inference_threads,
                  "CPU threads per inference node (default 1, MediaPipe's)");
  cmd->add_flag("--show-rois", args->show_rois, "Also draw palm detections and hand ROIs");
  cmd->callback([args] { RunHands(*args); });
}

}  // namespace sluice::cli
