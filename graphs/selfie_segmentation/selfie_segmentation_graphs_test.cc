// Our selfie segmentation graphs must expand exactly like MediaPipe's: same
// node names, calculators, streams and options (MediaPipe's graph files from
// ../shared/mediapipe_graphs are the reference).
#include <gtest/gtest.h>

#include <string>

#include "framework/tool/subgraph_registry.h"
#include "graphs/testing/graph_compare.h"

namespace sluice {
namespace {

using graph_test::ExpandTopLevel;
using graph_test::MediaPipeModulesDir;
using graph_test::NodesByName;

class SelfieSegmentationGraphsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SelfieSegmentationGraphsTest, ExpandsLikeMediaPipe) {
  SubgraphRegistry ours, theirs;
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/selfie_segmentation").ok());
  absl::Status s = theirs.RegisterGraphsFrom(MediaPipeModulesDir() + "/selfie_segmentation");
  if (!s.ok()) GTEST_SKIP() << "MediaPipe's graphs not available: " << s;

  // The graph interface too (streams and side packets the solution feeds).
  graph_test::CompareOptions options;
  options.same_node_count = true;
  options.same_interface = true;
  graph_test::ExpectExpandsLike(ours, theirs, GetParam(), options);
}

INSTANTIATE_TEST_SUITE_P(Graphs, SelfieSegmentationGraphsTest,
                         ::testing::Values("SelfieSegmentationCpu",
                                           "SelfieSegmentationModelLoader"));

// Our smoothed variant wraps SelfieSegmentationCpu unchanged: its nodes are
// MediaPipe's under the subgraph's prefix, plus the smoothing loop.
TEST(SelfieSegmentationSmoothedCpu, WrapsMediaPipesGraph) {
  SubgraphRegistry ours;
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/selfie_segmentation").ok());
  auto plain = NodesByName(ExpandTopLevel(ours, "SelfieSegmentationCpu"));
  auto smoothed = NodesByName(ExpandTopLevel(ours, "SelfieSegmentationSmoothedCpu"));
  int wrapped = 0, calculators_seen = 0;
  for (const auto& [name, node] : smoothed) {
    if (name.rfind("selfiesegmentationcpu__", 0) == 0) ++wrapped;
    if (node.calculator() == "SegmentationSmoothingCalculator") {
      ++calculators_seen;
      EXPECT_NE(node.options().DebugString().find("combine_with_previous_ratio: 0.7"),
                std::string::npos);
    }
  }
  EXPECT_EQ(wrapped, static_cast<int>(plain.size()));
  EXPECT_EQ(calculators_seen, 1);
  EXPECT_EQ(smoothed.size(), plain.size() + 4);  // gate, smoothing, loopback, FromImage
}

TEST(SelfieSegmentationGraphsEmbedded, AreRegistered) {
  for (const char* type : {"SelfieSegmentationCpu", "SelfieSegmentationModelLoader",
                           "SelfieSegmentationSmoothedCpu"}) {
    EXPECT_TRUE(SubgraphRegistry::Get().IsRegistered(type)) << type;
  }
}

}  // namespace
}  // namespace sluice
