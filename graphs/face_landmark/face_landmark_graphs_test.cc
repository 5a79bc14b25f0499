// Our face mesh graphs must expand exactly like MediaPipe's: same node names,
// calculators, streams and options (MediaPipe's graph files from
// ../shared/mediapipe_graphs are the reference).
#include <cstdlib>
#include <map>
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
// runs FaceLandmarkFrontCpu.
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

class FaceLandmarkGraphsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FaceLandmarkGraphsTest, ExpandsLikeMediaPipe) {
  // Face detection is compared by graphs/face_detection's own test; both
  // sides use our face detection graphs here, so only ours can differ.
  SubgraphRegistry ours, theirs;
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/face_landmark").ok());
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/face_detection").ok());
  absl::Status s = theirs.RegisterGraphsFrom(SharedModules() + "/face_landmark");
  if (!s.ok()) GTEST_SKIP() << "MediaPipe's graphs not available: " << s;
  ASSERT_TRUE(theirs.RegisterGraphsFrom("graphs/face_detection").ok());

  auto our_nodes = ByName(ExpandTopLevel(ours, GetParam()));
  auto their_nodes = ByName(ExpandTopLevel(theirs, GetParam()));
  ASSERT_FALSE(their_nodes.empty());
  for (const auto& [name, node] : our_nodes) {
    EXPECT_TRUE(their_nodes.count(name)) << "extra node " << name;
  }
  for (const auto& [name, theirs_node] : their_nodes) {
    auto it = our_nodes.find(name);
    if (it == our_nodes.end()) {
      ADD_FAILURE() << "missing node " << name;
      continue;
    }
    std::string diff;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differencer.Compare(it->second, theirs_node)) << name << ":\n" << diff;
  }
}

INSTANTIATE_TEST_SUITE_P(Graphs, FaceLandmarkGraphsTest,
                         ::testing::Values("FaceLandmarkFrontCpu", "FaceLandmarkCpu",
                                           "FaceLandmarksModelLoader",
                                           "FaceDetectionFrontDetectionToRoi",
                                           "FaceLandmarkLandmarksToRoi", "TensorsToFaceLandmarks",
                                           "TensorsToFaceLandmarksWithAttention"));

TEST(FaceLandmarkGraphsEmbedded, AreRegistered) {
  for (const char* type : {"FaceLandmarkFrontCpu", "FaceLandmarkCpu", "FaceLandmarksModelLoader",
                           "FaceDetectionFrontDetectionToRoi", "FaceLandmarkLandmarksToRoi",
                           "TensorsToFaceLandmarks", "TensorsToFaceLandmarksWithAttention",
                           "FaceDetectionShortRangeCpu"}) {
    EXPECT_TRUE(SubgraphRegistry::Get().IsRegistered(type)) << type;
  }
}

}  // namespace
}  // namespace sluice
