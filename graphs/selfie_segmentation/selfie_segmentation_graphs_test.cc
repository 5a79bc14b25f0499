// Our selfie segmentation graphs must expand exactly like MediaPipe's: same
// node names, calculators, streams and options (MediaPipe's graph files from
// ../shared/mediapipe_graphs are the reference).
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

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

// Expands `type` as a top-level graph, as MediaPipe's Python solution runs
// SelfieSegmentationCpu.
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

template <typename Repeated>
std::vector<std::string> List(const Repeated& r) {
  return std::vector<std::string>(r.begin(), r.end());
}

class SelfieSegmentationGraphsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SelfieSegmentationGraphsTest, ExpandsLikeMediaPipe) {
  SubgraphRegistry ours, theirs;
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/selfie_segmentation").ok());
  absl::Status s = theirs.RegisterGraphsFrom(SharedModules() + "/selfie_segmentation");
  if (!s.ok()) GTEST_SKIP() << "MediaPipe's graphs not available: " << s;

  const mediapipe::CalculatorGraphConfig our_config = ExpandTopLevel(ours, GetParam());
  const mediapipe::CalculatorGraphConfig their_config = ExpandTopLevel(theirs, GetParam());
  auto our_nodes = ByName(our_config);
  auto their_nodes = ByName(their_config);
  ASSERT_FALSE(their_nodes.empty());
  EXPECT_EQ(our_nodes.size(), their_nodes.size());
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
  // The graph interface too (streams and side packets the solution feeds).
  EXPECT_EQ(List(our_config.input_stream()), List(their_config.input_stream()));
  EXPECT_EQ(List(our_config.output_stream()), List(their_config.output_stream()));
  EXPECT_EQ(List(our_config.input_side_packet()), List(their_config.input_side_packet()));
  EXPECT_EQ(List(our_config.output_side_packet()), List(their_config.output_side_packet()));
}

INSTANTIATE_TEST_SUITE_P(Graphs, SelfieSegmentationGraphsTest,
                         ::testing::Values("SelfieSegmentationCpu",
                                           "SelfieSegmentationModelLoader"));

// Our smoothed variant wraps SelfieSegmentationCpu unchanged: its nodes are
// MediaPipe's under the subgraph's prefix, plus the smoothing loop.
TEST(SelfieSegmentationSmoothedCpu, WrapsMediaPipesGraph) {
  SubgraphRegistry ours;
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/selfie_segmentation").ok());
  auto plain = ByName(ExpandTopLevel(ours, "SelfieSegmentationCpu"));
  auto smoothed = ByName(ExpandTopLevel(ours, "SelfieSegmentationSmoothedCpu"));
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
