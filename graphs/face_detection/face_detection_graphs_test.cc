// Our face-detection graphs must expand exactly like MediaPipe's: same node
// names, calculators, streams and options (after option_value), with
// MediaPipe's graph files from ../shared/mediapipe_graphs as the reference.
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "calculators/tensor/tensors_to_detections_calculator.pb.h"
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
// runs FaceDetectionShortRangeCpu / FaceDetectionFullRangeCpu.
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

class FaceDetectionGraphsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FaceDetectionGraphsTest, ExpandsLikeMediaPipe) {
  SubgraphRegistry ours, theirs;
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/face_detection").ok());
  absl::Status s = theirs.RegisterGraphsFrom(SharedModules() + "/face_detection");
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
  // The interface too: the solution feeds "image" and observes "detections".
  EXPECT_EQ(our_config.input_stream().size(), their_config.input_stream().size());
  EXPECT_EQ(our_config.output_stream().size(), their_config.output_stream().size());
}

INSTANTIATE_TEST_SUITE_P(Graphs, FaceDetectionGraphsTest,
                         ::testing::Values("FaceDetectionShortRangeCpu",
                                           "FaceDetectionFullRangeCpu", "FaceDetectionShortRange",
                                           "FaceDetectionFullRange", "FaceDetection"));

// The per-model values reach the leaf nodes through three option_value hops.
TEST(FaceDetectionGraphs, ModelValuesReachTheLeafNodes) {
  for (const auto& [type, boxes, threshold, model] :
       {std::tuple{"FaceDetectionShortRangeCpu", 896, 0.5f, "face_detection_short_range.tflite"},
        std::tuple{"FaceDetectionFullRangeCpu", 2304, 0.6f,
                   "face_detection_full_range_sparse.tflite"}}) {
    auto nodes = ByName(ExpandTopLevel(SubgraphRegistry::Get(), type));
    bool decoder = false, inference = false;
    for (const auto& [name, node] : nodes) {
      if (node.calculator() == "TensorsToDetectionsCalculator") {
        decoder = true;
        mediapipe::TensorsToDetectionsCalculatorOptions o;
        ASSERT_EQ(node.node_options_size(), 1) << name;
        ASSERT_TRUE(node.node_options(0).UnpackTo(&o)) << name;
        EXPECT_EQ(o.num_boxes(), boxes) << type;
        EXPECT_FLOAT_EQ(o.min_score_thresh(), threshold) << type;
      }
      // InferenceCalculatorCpu once the inference library (not linked here) picks the backend.
      if (node.calculator() == "InferenceCalculator" || node.calculator() == "InferenceCalculatorCpu") {
        inference = true;
        EXPECT_NE(node.DebugString().find(model), std::string::npos) << type;
      }
    }
    EXPECT_TRUE(decoder && inference) << type;
  }
}

TEST(FaceDetectionGraphsEmbedded, AreRegistered) {
  for (const char* type : {"FaceDetection", "FaceDetectionShortRange", "FaceDetectionFullRange",
                           "FaceDetectionShortRangeCpu", "FaceDetectionFullRangeCpu"}) {
    EXPECT_TRUE(SubgraphRegistry::Get().IsRegistered(type)) << type;
  }
}

}  // namespace
}  // namespace sluice
