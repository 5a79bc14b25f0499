// `sluice face-mesh`: face mesh (468 or 478 landmarks per face) on an image, a
// folder of images, a video or a camera; writes landmarks as JSON Lines and/or
// an annotated image/video.
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
#include "render/face_mesh_connections.h"
#include "solutions/face_mesh/face_mesh.h"
#include "tools/commands.h"

namespace sluice::cli {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Fail(const absl::Status& status) {
  std::fprintf(stderr, "sluice face-mesh: %s\n", std::string(status.message()).c_str());
  throw CLI::RuntimeError(1);
}

struct FaceMeshArgs {
  std::string input;
  std::string output;
  std::string landmarks;
  std::string trace;
  bool quiet = false;
  bool show_rois = false;
  FaceMeshOptions mesh;
};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// JSON numbers: finite floats with enough digits to round-trip what we print.
std::string Num(double v) { return std::isfinite(v) ? absl::StrFormat("%.7g", v) : "null"; }

// One line of the --landmarks file (format documented in README.md).
std::string FrameJson(int64_t frame, const FaceMeshResult& r) {
  std::string out = absl::StrCat("{\"frame\": ", frame, ", \"timestamp_us\": ", r.timestamp_us,
                                 ", \"width\": ", r.width, ", \"height\": ", r.height,
                                 ", \"faces\": [");
  for (size_t f = 0; f < r.faces.size(); ++f) {
    absl::StrAppend(&out, f ? ", " : "", "{\"landmarks\": [");
    const auto& lms = r.faces[f].landmarks;
    for (int i = 0; i < lms.landmark_size(); ++i) {
      const auto& l = lms.landmark(i);
      absl::StrAppend(&out, i ? ", " : "", "[", Num(l.x()), ", ", Num(l.y()), ", ", Num(l.z()), "]");
    }
    absl::StrAppend(&out, "]}");
  }
  return out + "]}";
}

// A frame read from the source and sent to the graph, awaiting its result.
struct InFlight {
  int64_t index;
  std::shared_ptr<const ImageFrame> image;
};

void RunFaceMesh(const FaceMeshArgs& args) {
  FaceMeshOptions options = args.mesh;
  if (absl::Status s = ValidateFaceMeshOptions(options); !s.ok()) Fail(s);
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
  absl::StatusOr<std::unique_ptr<FaceMesh>> mesh = FaceMesh::Create(options);
  if (!mesh.ok()) Fail(mesh.status());

  std::unique_ptr<FrameSink> sink;
  std::deque<InFlight> in_flight;
  ProgressLine progress((*source)->FrameCount(), !args.quiet && isatty(2));
  int64_t frames_done = 0, frames_skipped = 0, faces_found = 0;
  double decode_s = 0, output_s = 0;
  absl::Status output_error;

  // Writes one finished frame to the outputs.
  auto handle = [&](const FaceMeshResult& r) {
    const Clock::time_point t0 = Clock::now();
    if (in_flight.empty()) return;  // cannot happen: one result per frame sent
    InFlight f = std::move(in_flight.front());
    in_flight.pop_front();
    faces_found += static_cast<int64_t>(r.faces.size());
    if (landmarks_file.is_open()) landmarks_file << FrameJson(f.index, r) << '\n';
    if (!args.output.empty() && output_error.ok()) {
      absl::StatusOr<ImageFrame> canvas = f.image->Clone();
      absl::Status s = canvas.status();
      for (size_t i = 0; s.ok() && args.show_rois && i < r.face_detections.size(); ++i) {
        s = DrawDetection(&*canvas, r.face_detections[i]);
      }
      for (size_t i = 0; s.ok() && args.show_rois && i < r.faces.size(); ++i) {
        s = DrawNormalizedRect(&*canvas, r.faces[i].rect_from_landmarks);
      }
      for (size_t i = 0; s.ok() && i < r.faces.size(); ++i) {
        s = DrawFaceMesh(&*canvas, r.faces[i].landmarks);
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
      std::fprintf(stderr, "sluice face-mesh: warning: frame %lld skipped: %s\n",
                   static_cast<long long>(frame.index), std::string(frame.status.message()).c_str());
      ++frames_skipped;
      continue;
    }
    in_flight.push_back(InFlight{frame.index, nullptr});
    run_error =
        (*mesh)->Send(std::move(frame.image), frame.timestamp_us, &in_flight.back().image);
    if (!run_error.ok()) {
      in_flight.pop_back();
      break;
    }
    FaceMeshResult r;
    while ((*mesh)->TryNext(&r)) handle(r);
    if (!output_error.ok()) break;
  }
  absl::Status closed = (*mesh)->Close();
  FaceMeshResult r;
  while ((*mesh)->Next(&r)) handle(r);
  progress.Finish();
  if (run_error.ok()) run_error = closed;
  const double wall_s = Seconds(Clock::now() - start);

  // Keep what was produced, whatever failed.
  if (landmarks_file.is_open()) landmarks_file.close();
  if (sink != nullptr) {
    if (absl::Status s = sink->Close(); !s.ok() && output_error.ok()) output_error = s;
  }
  if (!args.trace.empty()) {
    if (absl::Status s = (*mesh)->WriteTrace(args.trace); !s.ok() && output_error.ok()) {
      output_error = s;
    }
  }

  if (!args.quiet && frames_done + frames_skipped > 0) {
    std::string stages;
    for (const StageTime& st : (*mesh)->StageTimes()) {
      if (st.invocations == 0) continue;
      absl::StrAppend(&stages, stages.empty() ? "" : ", ", st.stage, " ",
                      absl::StrFormat("%.1f ms", frames_done ? st.total_ms / frames_done : 0.0));
    }
    std::fprintf(stderr,
                 "face-mesh: %lld frames (%lld skipped), %lld faces found, %.1f fps; per frame: "
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

void AddFaceMeshCommands(CLI::App& app) {
  auto args = std::make_shared<FaceMeshArgs>();
  CLI::App* cmd = app.add_subcommand(
      "face-mesh", "Face mesh (MediaPipe Face Mesh): 468/478 landmarks per face as JSON Lines "
                   "and an annotated video");
  cmd->add_option("--input,-i", args->input,
                  "Image, folder of images, video file, or camera (index or /dev/videoN)")
      ->required();
  cmd->add_option("--output,-o", args->output,
                  "Annotated output: .mp4/.mkv/.avi video, .png/.jpg image, or a folder");
  cmd->add_option("--landmarks", args->landmarks, "JSON Lines file, one object per frame");
  cmd->add_flag("--static", args->mesh.static_image_mode,
                "Treat every frame on its own (no tracking)");
  cmd->add_option("--max-faces", args->mesh.max_num_faces, "Most faces to find (default 1)");
  cmd->add_flag("--refine-landmarks", args->mesh.refine_landmarks,
                "Attention model: refined lips and eyes plus 10 iris landmarks (478)");
  cmd->add_option("--min-detection-confidence", args->mesh.min_detection_confidence,
                  "Face detection score threshold (default 0.5)");
  cmd->add_option("--min-tracking-confidence", args->mesh.min_tracking_confidence,
                  "Face presence threshold to keep tracking (default 0.5)");
  cmd->add_option("--device", args->mesh.device, "cpu, cuda or auto (default cpu)");
  cmd->add_option("--threads", args->mesh.inference_threads,
                  "CPU threads per inference node (default 1, MediaPipe's)");
  cmd->add_option("--trace", args->trace, "Write a Chrome/Perfetto trace of the graph");
  cmd->add_flag("--show-rois", args->show_rois, "Also draw face detections and face ROIs");
  cmd->add_flag("--quiet,-q", args->quiet, "No progress line and no summary");
  cmd->callback([args] { RunFaceMesh(*args); });
}

}  // namespace sluice::cli
