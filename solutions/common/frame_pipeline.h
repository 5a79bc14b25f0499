// FramePipeline: what every solution API (HandTracker, SelfieSegmenter, ...)
// needs to run its graph on a stream of frames: images go into one graph input
// stream; a frame's outputs are the packets of several observed output streams
// at its timestamp, and the frame is complete once each of those streams has
// a packet at or a timestamp bound past it (so frames without results, e.g. no
// hand found, complete too). Frames are pipelined: Send() blocks only while
// `max_in_flight` frames are incomplete; Next() returns them in Send() order.
#ifndef SLUICE_SOLUTIONS_COMMON_FRAME_PIPELINE_H_
#define SLUICE_SOLUTIONS_COMMON_FRAME_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image_frame.h"
#include "framework/calculator_graph.h"
#include "framework/packet.h"
#include "proto/calculator.pb.h"

namespace sluice {

struct FrameOutputs {
  int64_t timestamp_us = 0;
  int width = 0;
  int height = 0;
  // One per observed output stream, in FramePipeline::Options order; empty
  // when the stream had no packet at this frame.
  std::vector<Packet> packets;
};

// The payload of one of FrameOutputs::packets as a T, or null when the
// stream had no packet at the frame (or one of another type).
template <typename T>
const T* OutputPayload(const Packet& packet) {
  if (packet.IsEmpty()) return nullptr;
  absl::StatusOr<const T*> v = packet.TryGet<T>();
  return v.ok() ? *v : nullptr;
}

// Time spent per pipeline stage, from the graph's trace.
struct StageTime {
  std::string stage;
  int64_t invocations = 0;
  double total_ms = 0;
};

// Helpers the solution APIs share.
// A registered solution graph (e.g. "HandLandmarkTrackingCpu") as a top-level
// graph, expanded, so node names are MediaPipe's (as its Python solutions run them).
absl::StatusOr<mediapipe::CalculatorGraphConfig> ExpandedSolutionGraph(const std::string& type);
// "cpu", "cuda" or "auto"; "cuda" needs a built and usable CUDA backend.
absl::Status ValidateDevice(const std::string& device);
// A validated device -> "cpu" or "cuda": "auto" is cuda when the CUDA
// inference backend is built and finds a device, else cpu (with a one-line
// notice on stderr).
std::string ResolveDevice(const std::string& device);
// Runs every InferenceCalculator of `config` on the device's backend: for
// cuda, MediaPipe's GPU delegate (InferenceCalculator picks the cuda backend
// for it); for cpu, nothing changes. The images stay on the CPU path.
void SetInferenceDevice(mediapipe::CalculatorGraphConfig* config, const std::string& device);
// Sets the CPU thread count of every inference node (threads > 0).
void SetInferenceThreads(mediapipe::CalculatorGraphConfig* config, int threads);

class FramePipeline {
 public:
  struct Options {
    std::string name = "solution";  // for messages: "HandTracker: ..."
    std::string input_stream = "image";
    std::vector<std::string> output_streams;
    int max_in_flight = 3;
    bool enable_tracing = false;
  };

  // Initializes and starts `config` (expanded or not) with `side_packets`.
  static absl::StatusOr<std::unique_ptr<FramePipeline>> Start(
      const mediapipe::CalculatorGraphConfig& config, const CalculatorGraph::SidePackets& side_packets,
      Options options);
  ~FramePipeline();

  // One frame (timestamps must increase). `shared`, when given, receives the
  // frame as the graph holds it (no copy), e.g. to draw on later.
  absl::Status Send(ImageFrame frame, int64_t timestamp_us,
                    std::shared_ptr<const ImageFrame>* shared = nullptr);
  // The oldest frame sent, once complete; false when closed and drained, or
  // on a graph error (see status()).
  bool Next(FrameOutputs* outputs);
  // Next() without blocking: false when the oldest frame is not complete.
  bool TryNext(FrameOutputs* outputs);
  // Send + Next for one frame (copies `frame`).
  absl::StatusOr<FrameOutputs> Process(const ImageFrame& frame, int64_t timestamp_us);
  // No more frames: lets the graph finish; Next() then drains the rest.
  absl::Status Close();
  absl::Status status() const;

  // Process() time per stage, in order of first appearance; `stage_of`
  // names a node's stage from the node and its (canonical) name. Empty
  // without tracing.
  using StageOf = std::function<std::string(const mediapipe::CalculatorGraphConfig::Node& node,
                                            const std::string& node_name)>;
  std::vector<StageTime> StageTimes(const StageOf& stage_of) const;
  // The same with stages by node-name prefix ({stage, prefix}, first match),
  // the rest in "other graph nodes".
  std::vector<StageTime> StageTimes(
      const std::vector<std::pair<std::string, std::string>>& stage_prefixes) const;
  absl::Status WriteTrace(const std::string& path) const;

 private:
  struct State;
  FramePipeline();

  Options options_;
  std::unique_ptr<State> state_;
  std::unique_ptr<CalculatorGraph> graph_;
};

}  // namespace sluice

#endif  // SLUICE_SOLUTIONS_COMMON_FRAME_PIPELINE_H_
