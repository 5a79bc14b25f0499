// Our hand-tracking graphs must expand exactly like MediaPipe's: same node
// names, calculators, streams and options (MediaPipe's graph files from
// ../shared/mediapipe_graphs are the reference), apart from our documented
// PRESENCE extension.
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "framework/tool/subgraph_expansion.h"
#include "framework/tool/subgraph_registry.h"
#include "proto/calculator.pb.h"

namespace sluice {
namespace {

std::string SharedModules() {
  const char* env = std::getenv("SLUICE_SHARED_DIR");
  return std::string(env != nullptr && *env ? env : "../shared") +
         "/mediapipe_graphs/mediapipe/modules";
}

// Expands `type` as a top-level graph, the way MediaPipe's Python solution
// runs HandLandmarkTrackingCpu.
mediapipe::CalculatorGraphConfig ExpandTopLevel(const SubgraphRegistry& registry,
                                                const std::string& type) {
  auto config = registry.Create(type, mediapipe::CalculatorGraphConfig::Node());
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return {};
  absl::Status s = ExpandSubgraphs(&*config, registry);
  EXPECT_TRUE(s.ok()) << s;
  return *config;
}

std::map<std::string, mediapipe::CalculatorGraphConfig::Node> ByName(
    const mediapipe::CalculatorGraphConfig& config) {
  std::map<std::string, mediapipe::CalculatorGraphConfig::Node> nodes;
  for (int i = 0; i < config.node_size(); ++i) nodes[CanonicalNodeName(config, i)] = config.node(i);
  return nodes;
}

class HandLandmarkGraphsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HandLandmarkGraphsTest, ExpandsLikeMediaPipe) {
  SubgraphRegistry ours, theirs;
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/hand_landmark").ok());
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/palm_detection").ok());
  absl::Status s = theirs.RegisterGraphsFrom(SharedModules() + "/hand_landmark");
  if (!s.ok()) GTEST_SKIP() << "MediaPipe's graphs not available: " << s;
  ASSERT_TRUE(theirs.RegisterGraphsFrom(SharedModules() + "/palm_detection").ok());

  auto our_nodes = ByName(ExpandTopLevel(ours, GetParam()));
  auto their_nodes = ByName(ExpandTopLevel(theirs, GetParam()));
  ASSERT_FALSE(their_nodes.empty());
  // The PRESENCE extension: these nodes exist only in ours, and the streams
  // they add show up as extra outputs of the subgraph interface only.
  const std::set<std::string> extension_nodes = {
      "EndLoopFloatCalculator", "GateCalculator_4", "handlandmarkcpu__GateCalculator_4"};
  for (const auto& [name, node] : our_nodes) {
    if (extension_nodes.count(name)) continue;
    EXPECT_TRUE(their_nodes.count(name)) << "extra node " << name;
  }
  for (const auto& [name, theirs_node] : their_nodes) {
    auto it = our_nodes.find(name);
    if (it == our_nodes.end()) {
      ADD_FAILURE() << "missing node " << name;
      continue;
    }
    mediapipe::CalculatorGraphConfig::Node a = it->second, b = theirs_node;
    // HandLandmarkCpu's extra PRESENCE output is our extension (unexpanded
    // HandLandmarkCpu nodes only occur when GetParam() is HandLandmarkCpu's parent).
    std::string diff;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    if (a.calculator() == "HandLandmarkCpu") continue;
    EXPECT_TRUE(differencer.Compare(a, b)) << name << ":\n" << diff;
  }
}

INSTANTIATE_TEST_SUITE_P(Graphs, HandLandmarkGraphsTest,
                         ::testing::Values("HandLandmarkTrackingCpu", "HandLandmarkCpu",
                                           "PalmDetectionCpu", "HandLandmarkLandmarksToRoi",
                                           "PalmDetectionDetectionToRoi",
                                           "PalmDetectionModelLoader", "HandLandmarkModelLoader"));

TEST(HandLandmarkGraphsEmbedded, AreRegistered) {
  for (const char* type : {"HandLandmarkTrackingCpu", "HandLandmarkCpu", "HandLandmarkModelLoader",
                           "HandLandmarkLandmarksToRoi", "PalmDetectionDetectionToRoi",
                           "PalmDetectionCpu", "PalmDetectionModelLoader"}) {
    EXPECT_TRUE(SubgraphRegistry::Get().IsRegistered(type)) << type;
  }
}

}  // namespace
}  // namespace sluice
