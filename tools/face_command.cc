// `sluice face`: face detection on an image, a folder of images, a video or a
// camera; writes detections as JSON Lines and/or an annotated image/video.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <memory>
#include <string>

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "media/frame_sink.h"
#include "media/frame_source.h"
#include "media/progress.h"
#include "render/drawing.h"
#include "solutions/face_detection/face_detector.h"
#include "tools/commands.h"

namespace sluice::cli {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Fail(const absl::Status& status) {
  std::fprintf(stderr, "sluice face: %s\n", std::string(status.message()).c_str());
  throw CLI::RuntimeError(1);
}

struct FaceArgs {
  std::string input;
  std::string output;
  std::string landmarks;
  std::string trace;
  bool quiet = false;
  float min_detection_confidence = 0;
  CLI::Option* min_detection_confidence_option = nullptr;
  FaceDetectorOptions detector;
};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// JSON numbers: finite floats with enough digits to round-trip what we print.
std::string Num(double v) { return std::isfinite(v) ? absl::StrFormat("%.7g", v) : "null"; }

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

// A frame read from the source and sent to the detector, awaiting its result.
struct InFlight {
  int64_t index;
  std::shared_ptr<const ImageFrame> image;
};

void RunFace(const FaceArgs& args) {
  FaceDetectorOptions options = args.detector;
  if (args.min_detection_confidence_option != nullptr &&
      args.min_detection_confidence_option->count() > 0) {
    options.min_detection_confidence = args.min_detection_confidence;
  }
  if (absl::Status s = ValidateFaceDetectorOptions(options); !s.ok()) Fail(s);
  absl::StatusOr<std::unique_ptr<FrameSource>> source = OpenFrameSource(args.input);
  if (!source.ok()) Fail(source.status());
  std::ofstream landmarks_file;
  if (!args.landmarks.empty()) {
    landmarks_file.open(args.landmarks, std::ios::out | std::ios::trunc);
    if (!landmarks_file) {
      Fail(absl::PermissionDeniedError(
          absl::StrCat("cannot write --landmarks file \"", args.landmarks, "\"")));
    }
  }
  options.enable_tracing = true;  // for the per-stage summary
  absl::StatusOr<std::unique_ptr<FaceDetector>> detector = FaceDetector::Create(options);
  if (!detector.ok()) Fail(detector.status());

  std::unique_ptr<FrameSink> sink;
  std::deque<InFlight> in_flight;
  ProgressLine progress((*source)->FrameCount(), !args.quiet && isatty(2));
  int64_t frames_done = 0, frames_skipped = 0, faces_found = 0;
  double decode_s = 0, output_s = 0;
  absl::Status output_error;

  // Writes one finished frame to the outputs.
  auto handle = [&](const FaceDetectionResult& r) {
    const Clock::time_point t0 = Clock::now();
    if (in_flight.empty()) return;  // cannot happen: one result per frame sent
    InFlight f = std::move(in_flight.front());
    in_flight.pop_front();
    faces_found += static_cast<int64_t>(r.faces.size());
    if (landmarks_file.is_open()) landmarks_file << FrameJson(f.index, r) << '\n';
    if (!args.output.empty() && output_error.ok()) {
      absl::StatusOr<ImageFrame> canvas = f.image->Clone();
      absl::Status s = canvas.status();
      for (size_t i = 0; s.ok() && i < r.faces.size(); ++i) {
        s = DrawDetection(&*canvas, r.faces[i].detection);
      }
      if (s.ok() && sink == nullptr) {
        absl::StatusOr<std::unique_ptr<FrameSink>> opened =
            OpenFrameSink(args.output, (*source)->Fps());
        s = opened.status();
        if (opened.ok()) sink = std::move(*opened);
      }
      if (s.ok()) s = sink->Write(*canvas);
      if (!s.ok()) output_error = s;
    }
    ++frames_done;
    progress.Update(frames_done + frames_skipped);
    output_s += Seconds(Clock::now() - t0);
  };

  const Clock::time_point start = Clock::now();
  absl::Status run_error;
  SourceFrame frame;
  for (;;) {
    const Clock::time_point t0 = Clock::now();
    if (!(*source)->Next(&frame)) break;
    decode_s += Seconds(Clock::now() - t0);
    if (!frame.status.ok()) {
      progress.Finish();
      std::fprintf(stderr, "sluice face: warning: frame %lld skipped: %s\n",
                   static_cast<long long>(frame.index), std::string(frame.status.message()).c_str());
      ++frames_skipped;
      continue;
    }
    in_flight.push_back(InFlight{frame.index, nullptr});
    run_error =
        (*detector)->Send(std::move(frame.image), frame.timestamp_us, &in_flight.back().image);
    if (!run_error.ok()) {
      in_flight.pop_back();
      break;
    }
    FaceDetectionResult r;
    while ((*detector)->TryNext(&r)) handle(r);
    if (!output_error.ok()) break;
  }
  absl::Status closed = (*detector)->Close();
  FaceDetectionResult r;
  while ((*detector)->Next(&r)) handle(r);
  progress.Finish();
  if (run_error.ok()) run_error = closed;
  const double wall_s = Seconds(Clock::now() - start);

  // Keep what was produced, whatever failed.
  if (landmarks_file.is_open()) landmarks_file.close();
  if (sink != nullptr) {
    if (absl::Status s = sink->Close(); !s.ok() && output_error.ok()) output_error = s;
  }
  if (!args.trace.empty()) {
    if (absl::Status s = (*detector)->WriteTrace(args.trace); !s.ok() && output_error.ok()) {
      output_error = s;
    }
  }

  if (!args.quiet && frames_done + frames_skipped > 0) {
    std::string stages;
    for (const FaceStageTime& st : (*detector)->StageTimes()) {
      if (st.invocations == 0) continue;
      absl::StrAppend(&stages, stages.empty() ? "" : ", ", st.stage, " ",
                      absl::StrFormat("%.1f ms", frames_done ? st.total_ms / frames_done : 0.0));
    }
    std::fprintf(stderr,
                 "face: %lld frames (%lld skipped), %lld faces found, %.1f fps; per frame: "
                 "decode %.1f ms, %s%sdrawing+writing %.1f ms\n",
                 static_cast<long long>(frames_done), static_cast<long long>(frames_skipped),
                 static_cast<long long>(faces_found), wall_s > 0 ? frames_done / wall_s : 0.0,
                 frames_done ? 1000 * decode_s / frames_done : 0.0, stages.c_str(),
                 stages.empty() ? "" : ", ", frames_done ? 1000 * output_s / frames_done : 0.0);
    if (!args.landmarks.empty()) std::fprintf(stderr, "landmarks: %s\n", args.landmarks.c_str());
    if (sink != nullptr) std::fprintf(stderr, "annotated: %s\n", sink->Description().c_str());
    if (!args.trace.empty()) std::fprintf(stderr, "trace: %s\n", args.trace.c_str());
  }
  if (!run_error.ok()) Fail(run_error);
  if (!output_error.ok()) Fail(output_error);
  if (frames_done == 0) {
    Fail(absl::InvalidArgumentError(
        absl::StrCat("no frame of ", (*source)->Description(), " could be read")));
  }
}

}  // namespace

void AddFaceCommands(CLI::App& app) {
  auto args = std::make_shared<FaceArgs>();
  CLI::App* cmd = app.add_subcommand(
      "face", "Face detection (MediaPipe Face Detection): boxes and 6 keypoints as JSON Lines "
              "and an annotated video");
  cmd->add_option("--input,-i", args->input,
                  "Image, folder of images, video file, or camera (index or /dev/videoN)")
      ->required();
  cmd->add_option("--output,-o", args->output,
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
  cmd->add_option("--trace", args->trace, "Write a Chrome/Perfetto trace of the graph");
  cmd->add_flag("--quiet,-q", args->quiet, "No progress line and no summary");
  cmd->callback([args] { RunFace(*args); });
}

}  // namespace sluice::cli
