// The loop every `sluice <solution>` command runs: frames from an image,
// folder, video or camera into a solution, each finished frame to the
// outputs, a progress line on a terminal, a one-line summary, and errors as
// one clear line. Unreadable frames are reported and skipped; whatever was
// processed is kept when something fails later.
#ifndef SLUICE_TOOLS_FRAME_LOOP_H_
#define SLUICE_TOOLS_FRAME_LOOP_H_

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image_frame.h"
#include "solutions/common/frame_pipeline.h"

namespace sluice::cli {

// Options every solution command has.
struct FrameLoopArgs {
  std::string input;
  std::string output;  // annotated image/video/folder; empty: none
  std::string trace;
  bool quiet = false;
};

// Adds --input, --output (described by `output_help`), --trace and --quiet.
void AddFrameLoopOptions(CLI::App* cmd, FrameLoopArgs* args, const std::string& output_help);

// A frame read from the source whose result is being written.
struct LoopFrame {
  int64_t index = 0;
  int64_t timestamp_us = 0;
  std::shared_ptr<const ImageFrame> image;
};

// The solution side of the loop (one typed solution API behind lambdas).
struct FrameLoopHooks {
  // Sends a frame; `shared` receives the frame as the solution holds it.
  std::function<absl::Status(ImageFrame frame, int64_t timestamp_us,
                             std::shared_ptr<const ImageFrame>* shared)>
      send;
  // Takes the oldest finished result (waiting for it when `block`); false
  // when none is ready, or, blocking, when all are taken or the run failed.
  std::function<bool(bool block)> take;
  // Writes the taken result's own outputs (landmark lines, masks, ...) for
  // `frame`; when `canvas` is not null, also draws it there (`canvas` starts
  // as a copy of the frame).
  std::function<absl::Status(const LoopFrame& frame, ImageFrame* canvas)> emit;
  std::function<absl::Status()> close;
  std::function<std::vector<StageTime>()> stage_times;
  std::function<absl::Status(const std::string& path)> write_trace;
  // What the summary says was found, e.g. "12 hands found".
  std::function<std::string()> found;
  // Lines printed after the summary, e.g. "landmarks: out.jsonl" (optional).
  std::function<std::vector<std::string>()> summary_lines;
  // How the summary names --output ("annotated: video file ...").
  std::string output_label = "annotated";
};

// Runs `command` (for messages, e.g. "hands") over args.input; throws
// CLI::RuntimeError(1) after printing the error.
void RunFrameLoop(const std::string& command, const FrameLoopArgs& args, FrameLoopHooks& hooks);

// A solution's own stage type (e.g. FaceStageTime) as StageTime.
template <typename T>
std::vector<StageTime> AsStageTimes(const std::vector<T>& times) {
  std::vector<StageTime> out;
  for (const T& t : times) out.push_back(StageTime{t.stage, t.invocations, t.total_ms});
  return out;
}
inline std::vector<StageTime> AsStageTimes(std::vector<StageTime> times) { return times; }

// Sets the hooks that only forward to a solution API with the usual methods
// (Send, Next, TryNext, Close, StageTimes, WriteTrace): send, take (into
// `*result`, which emit then reads), close, stage_times and write_trace. Both
// must outlive the loop.
template <typename Solution, typename Result>
void ForwardToSolution(Solution* solution, Result* result, FrameLoopHooks* hooks) {
  hooks->send = [solution](ImageFrame frame, int64_t timestamp_us,
                           std::shared_ptr<const ImageFrame>* shared) {
    return solution->Send(std::move(frame), timestamp_us, shared);
  };
  hooks->take = [solution, result](bool block) {
    return block ? solution->Next(result) : solution->TryNext(result);
  };
  hooks->close = [solution] { return solution->Close(); };
  hooks->stage_times = [solution] { return AsStageTimes(solution->StageTimes()); };
  hooks->write_trace = [solution](const std::string& path) { return solution->WriteTrace(path); };
}

// The --landmarks JSON Lines file: unless `path` is empty, opened for writing
// (truncated) and named after the summary ("landmarks: PATH"). Fails
// `command` when it cannot be written.
void OpenLandmarksFile(const std::string& command, const std::string& path, std::ofstream* file,
                       FrameLoopHooks* hooks);

// Prints "sluice <command>: <message>" and throws CLI::RuntimeError(1).
[[noreturn]] void FailCommand(const std::string& command, const absl::Status& status);

}  // namespace sluice::cli

#endif  // SLUICE_TOOLS_FRAME_LOOP_H_
