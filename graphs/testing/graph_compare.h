// The check every graphs/<module>/*_graphs_test.cc makes: our embedded graph,
// expanded as a top-level graph (the way MediaPipe's Python solutions run
// them), against MediaPipe's own .pbtxt from ../shared/mediapipe_graphs
// expanded the same way: same node names, calculators, streams and options.
//
//   SubgraphRegistry ours, theirs;
//   ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/face_detection").ok());
//   absl::Status s = theirs.RegisterGraphsFrom(MediaPipeModulesDir() + "/face_detection");
//   if (!s.ok()) GTEST_SKIP() << "MediaPipe's graphs not available: " << s;
//   CompareOptions options;
//   options.same_node_count = true;
//   ExpectExpandsLike(ours, theirs, "FaceDetectionShortRangeCpu", options);
#ifndef SLUICE_GRAPHS_TESTING_GRAPH_COMPARE_H_
#define SLUICE_GRAPHS_TESTING_GRAPH_COMPARE_H_

#include <map>
#include <set>
#include <string>

#include "framework/tool/subgraph_registry.h"
#include "proto/calculator.pb.h"

namespace sluice::graph_test {

// $SLUICE_SHARED_DIR (default ../shared)/mediapipe_graphs/mediapipe/modules.
std::string MediaPipeModulesDir();

// `type` created from `registry` and expanded as a top-level graph; a failure
// is reported as a test failure and gives an empty config.
mediapipe::CalculatorGraphConfig ExpandTopLevel(const SubgraphRegistry& registry,
                                                const std::string& type);

// The nodes of `config` by canonical name (MediaPipe's expanded names).
std::map<std::string, mediapipe::CalculatorGraphConfig::Node> NodesByName(
    const mediapipe::CalculatorGraphConfig& config);

struct CompareOptions {
  // Nodes only ours has (a documented extension), by name.
  std::set<std::string> ours_only;
  // Nodes of these calculators (in ours) are matched by name only, not field
  // by field (e.g. an unexpanded subgraph node whose interface we extend).
  std::set<std::string> name_only_calculators;
  // Also the same number of nodes.
  bool same_node_count = false;
  // Also the same graph interface: input/output streams and side packets.
  bool same_interface = false;
};

// Expands `type` from both registries and reports every difference as a
// non-fatal test failure.
void ExpectExpandsLike(const SubgraphRegistry& ours, const SubgraphRegistry& theirs,
                       const std::string& type, const CompareOptions& options = {});

}  // namespace sluice::graph_test

#endif  // SLUICE_GRAPHS_TESTING_GRAPH_COMPARE_H_
