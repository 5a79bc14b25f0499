// `sluice face`: face detection on an image, a folder of images, a video or a
// camera; writes detections as JSON Lines and/or an annotated image/video.
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "render/drawing.h"
#include "solutions/face_detection/face_detector.h"
#include "tools/commands.h"
#include "tools/frame_loop.h"
#include "tools/json_text.h"
#include "util/status_macros.h"

namespace sluice::cli {
namespace {

struct FaceArgs {
  FrameLoopArgs loop;
  std::string landmarks;
  float min_detection_confidence = 0;
  CLI::Option* min_detection_confidence_option = nullptr;
  FaceDetectorOptions detector;
};

// One line of the --landmarks file (format documented in README.md).
std::string FrameJson(int64_t frame, const FaceDetectionResult& r) {
  std::string out = absl::StrCat("{\"frame\": ", frame, ", \"timestamp_us\": ", r.timestamp_us,
                                 ", \"width\": ", r.width, ", \"height\": ", r.height,
                                 ", \"faces\": [");
  for (size_t f = 0; f < r.faces.size(); ++f) {
    const DetectedFace& face = r.faces[f];
    absl::StrAppend(&out, f ? ", " : "", "{\"box\": [", Num(face.xmin), ", ", Num(face.ymin), ", ",
                    Num(face.width), ", ", Num(face.height), "], \"score\": ", Num(face.score),
                    ", \"keypoints\": [");
    for (int k = 0; k < kNumFaceKeypoints; ++k) {
      absl::StrAppend(&out, k ? ", " : "", "[", Num(face.keypoints[k][0]), ", ",
                      Num(face.keypoints[k][1]), "]");
    }
    absl::StrAppend(&out, "]}");
  }
  return out + "]}";
}

void RunFace(const FaceArgs& args) {
  const std::string command = "face";
  FaceDetectorOptions options = args.detector;
  // Unset unless given: the models' own thresholds, as Google's package uses.
  if (args.min_detection_confidence_option != nullptr &&
      args.min_detection_confidence_option->count() > 0) {
    options.min_detection_confidence = args.min_detection_confidence;
  }
  if (absl::Status s = ValidateFaceDetectorOptions(options); !s.ok()) FailCommand(command, s);
  FrameLoopHooks hooks;
  std::ofstream landmarks_file;
  OpenLandmarksFile(command, args.landmarks, &landmarks_file, &hooks);
  options.enable_tracing = true;  // for the per-stage summary
  absl::StatusOr<std::unique_ptr<FaceDetector>> detector = FaceDetector::Create(options);
  if (!detector.ok()) FailCommand(command, detector.status());

  FaceDetectionResult result;
  ForwardToSolution(detector->get(), &result, &hooks);
  int64_t faces_found = 0;
  hooks.emit = [&](const LoopFrame& frame, ImageFrame* canvas) -> absl::Status {
    faces_found += static_cast<int64_t>(result.faces.size());
    if (landmarks_file.is_open()) landmarks_file << FrameJson(frame.index, result) << '\n';
    if (canvas == nullptr) return absl::OkStatus();
    for (const DetectedFace& face : result.faces) {
      RETURN_IF_ERROR(DrawDetection(canvas, face.detection));
    }
    return absl::OkStatus();
  };
  hooks.found = [&] { return absl::StrCat(faces_found, " faces found"); };
  RunFrameLoop(command, args.loop, hooks);
}

}  // namespace

void AddFaceCommands(CLI::App& app) {
  auto args = std::make_shared<FaceArgs>();
  CLI::App* cmd = app.add_subcommand(
      "face", "Face detection (MediaPipe Face Detection): boxes and 6 keypoints as JSON Lines "
              "and an annotated video");
  AddFrameLoopOptions(cmd, &args->loop,
                      "Annotated output: .mp4/.mkv/.avi video, .png/.jpg image, or a folder");
  cmd->add_option("--landmarks", args->landmarks, "JSON Lines file, one object per frame");
  cmd->add_option("--model-selection", args->detector.model_selection,
                  "0: short range (faces within ~2 m, default), 1: full range (within ~5 m)");
  args->min_detection_confidence_option = cmd->add_option(
      "--min-detection-confidence", args->min_detection_confidence,
      "Detection score threshold (default: the model's, 0.5 short range / 0.6 full range, "
      "which is what Google's Python package always uses)");
  cmd->add_option("--device", args->detector.device, "cpu, cuda or auto (default cpu)");
  cmd->add_option("--threads", args->detector.inference_threads,
                  "CPU threads of the inference node (default 1, MediaPipe's)");
  cmd->callback([args] { RunFace(*args); });
}

}  // namespace sluice::cli
