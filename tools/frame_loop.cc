#include "tools/frame_loop.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <deque>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "media/frame_sink.h"
#include "media/frame_source.h"
#include "media/progress.h"

namespace sluice::cli {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

void FailCommand(const std::string& command, const absl::Status& status) {
  std::fprintf(stderr, "sluice %s: %s\n", command.c_str(), std::string(status.message()).c_str());
  throw CLI::RuntimeError(1);
}

void OpenLandmarksFile(const std::string& command, const std::string& path, std::ofstream* file,
                       FrameLoopHooks* hooks) {
  if (path.empty()) return;
  file->open(path, std::ios::out | std::ios::trunc);
  if (!*file) {
    FailCommand(command, absl::PermissionDeniedError(
                             absl::StrCat("cannot write --landmarks file \"", path, "\"")));
  }
  hooks->summary_lines = [path]() -> std::vector<std::string> { return {"landmarks: " + path}; };
}

void AddFrameLoopOptions(CLI::App* cmd, FrameLoopArgs* args, const std::string& output_help) {
  cmd->add_option("--input,-i", args->input,
                  "Image, folder of images, video file, or camera (index or /dev/videoN)")
      ->required();
  cmd->add_option("--output,-o", args->output, output_help);
  cmd->add_option("--trace", args->trace, "Write a Chrome/Perfetto trace of the graph");
  cmd->add_flag("--quiet,-q", args->quiet, "No progress line and no summary");
}

void RunFrameLoop(const std::string& command, const FrameLoopArgs& args, FrameLoopHooks& hooks) {
  absl::StatusOr<std::unique_ptr<FrameSource>> source = OpenFrameSource(args.input);
  if (!source.ok()) FailCommand(command, source.status());

  std::unique_ptr<FrameSink> sink;
  std::deque<LoopFrame> in_flight;
  ProgressLine progress((*source)->FrameCount(), !args.quiet && isatty(2));
  int64_t frames_done = 0, frames_skipped = 0;
  double decode_s = 0, output_s = 0;
  absl::Status output_error;

  // Writes the result just taken for the oldest frame in flight.
  auto write_outputs = [&]() {
    const Clock::time_point t0 = Clock::now();
    if (in_flight.empty()) return;  // cannot happen: one result per frame sent
    LoopFrame frame = std::move(in_flight.front());
    in_flight.pop_front();
    absl::Status s;
    if (output_error.ok()) {
      if (args.output.empty()) {
        s = hooks.emit(frame, nullptr);
      } else {
        absl::StatusOr<ImageFrame> canvas = frame.image->Clone();
        s = canvas.status();
        if (s.ok()) s = hooks.emit(frame, &*canvas);
        if (s.ok() && sink == nullptr) {
          absl::StatusOr<std::unique_ptr<FrameSink>> opened =
              OpenFrameSink(args.output, (*source)->Fps());
          s = opened.status();
          if (opened.ok()) sink = std::move(*opened);
        }
        if (s.ok()) s = sink->Write(*canvas);
      }
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
      std::fprintf(stderr, "sluice %s: warning: frame %lld skipped: %s\n", command.c_str(),
                   static_cast<long long>(frame.index), std::string(frame.status.message()).c_str());
      ++frames_skipped;
      continue;
    }
    in_flight.push_back(LoopFrame{frame.index, frame.timestamp_us, nullptr});
    run_error = hooks.send(std::move(frame.image), frame.timestamp_us, &in_flight.back().image);
    if (!run_error.ok()) {
      in_flight.pop_back();
      break;
    }
    while (hooks.take(/*block=*/false)) write_outputs();
    if (!output_error.ok()) break;
  }
  absl::Status closed = hooks.close();
  while (hooks.take(/*block=*/true)) write_outputs();
  progress.Finish();
  if (run_error.ok()) run_error = closed;
  const double wall_s = Seconds(Clock::now() - start);

  // Keep what was produced, whatever failed.
  if (sink != nullptr) {
    if (absl::Status s = sink->Close(); !s.ok() && output_error.ok()) output_error = s;
  }
  if (!args.trace.empty()) {
    if (absl::Status s = hooks.write_trace(args.trace); !s.ok() && output_error.ok()) {
      output_error = s;
    }
  }

  if (!args.quiet && frames_done + frames_skipped > 0) {
    const double per_frame = frames_done > 0 ? 1000.0 / frames_done : 0.0;
    std::string stages;
    for (const StageTime& st : hooks.stage_times()) {
      if (st.invocations == 0) continue;
      absl::StrAppend(&stages, ", ", st.stage, absl::StrFormat(" %.1f ms", frames_done > 0 ? st.total_ms / frames_done : 0.0));
    }
    std::fprintf(stderr,
                 "%s: %lld frames (%lld skipped), %s, %.1f fps; per frame: decode %.1f ms%s, "
                 "drawing+writing %.1f ms\n",
                 command.c_str(), static_cast<long long>(frames_done),
                 static_cast<long long>(frames_skipped), hooks.found().c_str(),
                 wall_s > 0 ? frames_done / wall_s : 0.0, decode_s * per_frame, stages.c_str(),
                 output_s * per_frame);
    if (hooks.summary_lines) {
      for (const std::string& line : hooks.summary_lines()) std::fprintf(stderr, "%s\n", line.c_str());
    }
    if (sink != nullptr) {
      std::fprintf(stderr, "%s: %s\n", hooks.output_label.c_str(), sink->Description().c_str());
    }
    if (!args.trace.empty()) std::fprintf(stderr, "trace: %s\n", args.trace.c_str());
  }
  if (!run_error.ok()) FailCommand(command, run_error);
  if (!output_error.ok()) FailCommand(command, output_error);
  if (frames_done == 0) {
    FailCommand(command, absl::InvalidArgumentError(absl::StrCat(
                             "no frame of ", (*source)->Description(), " could be read")));
  }
}

}  // namespace sluice::cli
