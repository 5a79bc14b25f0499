// Our face-detection graphs must expand exactly like MediaPipe's: same node
// names, calculators, streams and options (after option_value), with
// MediaPipe's graph files from ../shared/mediapipe_graphs as the reference.
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "calculators/tensor/tensors_to_detections_calculator.pb.h"
#include "framework/tool/subgraph_registry.h"
#include "graphs/testing/graph_compare.h"
#include "proto/calculator.pb.h"

namespace sluice {
namespace {

using graph_test::ExpandTopLevel;
using graph_test::MediaPipeModulesDir;
using graph_test::NodesByName;

class FaceDetectionGraphsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FaceDetectionGraphsTest, ExpandsLikeMediaPipe) {
  SubgraphRegistry ours, theirs;
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/face_detection").ok());
  absl::Status s = theirs.RegisterGraphsFrom(MediaPipeModulesDir() + "/face_detection");
  if (!s.ok()) GTEST_SKIP() << "MediaPipe's graphs not available: " << s;

  // The interface too: the solution feeds "image" and observes "detections".
  graph_test::CompareOptions options;
  options.same_node_count = true;
  options.same_interface = true;
  graph_test::ExpectExpandsLike(ours, theirs, GetParam(), options);
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
    auto nodes = NodesByName(ExpandTopLevel(SubgraphRegistry::Get(), type));
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
