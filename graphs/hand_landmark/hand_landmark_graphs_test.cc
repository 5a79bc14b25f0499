// Our hand-tracking graphs must expand exactly like MediaPipe's: same node
// names, calculators, streams and options (MediaPipe's graph files from
// ../shared/mediapipe_graphs are the reference), apart from our documented
// PRESENCE extension.
#include <string>

#include <gtest/gtest.h>

#include "framework/tool/subgraph_registry.h"
#include "graphs/testing/graph_compare.h"

namespace sluice {
namespace {

using graph_test::MediaPipeModulesDir;

class HandLandmarkGraphsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HandLandmarkGraphsTest, ExpandsLikeMediaPipe) {
  SubgraphRegistry ours, theirs;
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/hand_landmark").ok());
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/palm_detection").ok());
  absl::Status s = theirs.RegisterGraphsFrom(MediaPipeModulesDir() + "/hand_landmark");
  if (!s.ok()) GTEST_SKIP() << "MediaPipe's graphs not available: " << s;
  ASSERT_TRUE(theirs.RegisterGraphsFrom(MediaPipeModulesDir() + "/palm_detection").ok());

  // The PRESENCE extension: these nodes exist only in ours, and the streams
  // they add show up as extra outputs of the subgraph interface only, so
  // HandLandmarkCpu nodes (unexpanded only when GetParam() is HandLandmarkCpu's
  // parent) are matched by name.
  graph_test::CompareOptions options;
  options.ours_only = {"EndLoopFloatCalculator", "GateCalculator_4",
                       "handlandmarkcpu__GateCalculator_4"};
  options.name_only_calculators = {"HandLandmarkCpu"};
  graph_test::ExpectExpandsLike(ours, theirs, GetParam(), options);
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
