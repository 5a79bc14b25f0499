// Test helpers of calculators/util: run a graph from a pbtxt string with
// timestamped input packets and collect its output streams; build detections.
#ifndef SLUICE_CALCULATORS_UTIL_TEST_UTIL_H_
#define SLUICE_CALCULATORS_UTIL_TEST_UTIL_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/detection.pb.h"
#include "framework/calculator_graph.h"
#include "framework/packet.h"

namespace sluice {
namespace testing {

struct GraphRun {
  absl::Status status;
  // One packet list per requested output stream, in the requested order.
  std::vector<std::vector<Packet>> outputs;
};

// `inputs` are (graph input stream, timestamped packet), fed in order.
inline GraphRun RunGraph(const std::string& config_text,
                         const std::vector<std::pair<std::string, Packet>>& inputs,
                         const std::vector<std::string>& outputs,
                         const CalculatorGraph::SidePackets& side = {}) {
  GraphRun run;
  CalculatorGraph graph;
  auto collectors = InitGraphWithCollectors(&graph, config_text, outputs);
  if (!collectors.ok()) {
    run.status = collectors.status();
    return run;
  }
  run.status = graph.StartRun(side);
  if (!run.status.ok()) return run;
  for (const auto& [stream, packet] : inputs) {
    run.status = graph.AddPacketToInputStream(stream, packet);
    if (!run.status.ok()) break;
  }
  absl::Status close = graph.CloseAllInputStreams();
  absl::Status done = graph.WaitUntilDone();
  if (run.status.ok()) run.status = close.ok() ? done : close;
  for (const auto& c : *collectors) run.outputs.push_back(c->Packets());
  return run;
}

// A detection with one label id, a relative box and optional keypoints.
inline mediapipe::Detection MakeDetection(float score, int label_id, float xmin, float ymin,
                                          float width, float height,
                                          const std::vector<std::pair<float, float>>& kps = {}) {
  mediapipe::Detection d;
  d.add_score(score);
  d.add_label_id(label_id);
  auto* loc = d.mutable_location_data();
  loc->set_format(mediapipe::LocationData::RELATIVE_BOUNDING_BOX);
  auto* box = loc->mutable_relative_bounding_box();
  box->set_xmin(xmin);
  box->set_ymin(ymin);
  box->set_width(width);
  box->set_height(height);
  for (const auto& [x, y] : kps) {
    auto* kp = loc->add_relative_keypoints();
    kp->set_x(x);
    kp->set_y(y);
  }
  return d;
}

template <typename T>
Packet At(T value, int64_t ts) {
  return MakePacket<T>(std::move(value)).At(Timestamp(ts));
}

}  // namespace testing
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_UTIL_TEST_UTIL_H_
