#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/landmark.pb.h"
#include "formats/tensor.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::LandmarkList;
using mediapipe::NormalizedLandmarkList;
using testing::At;
using testing::RunGraph;

Packet TensorAt(std::vector<int> dims, const std::vector<float>& values, int64_t ts) {
  auto* v = new std::vector<Tensor>();
  v->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape(std::move(dims)));
  auto view = (*v)[0].GetCpuWriteView();
  std::copy(values.begin(), values.end(), view.buffer<float>());
  return Adopt(v).At(Timestamp(ts));
}

std::string Graph(const std::string& options, const std::string& extra = "") {
  return R"(
    input_stream: "tensors"
    input_stream: "flip"
    output_stream: "norm"
    output_stream: "raw"
    node {
      calculator: "TensorsToLandmarksCalculator"
      input_stream: "TENSORS:tensors"
      output_stream: "NORM_LANDMARKS:norm"
      output_stream: "LANDMARKS:raw"
      )" + extra + R"(
      options: { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] { )" +
         options + R"( } }
    })";
}

TEST(TensorsToLandmarksCalculatorTest, NormalizesByInputSizeAndNormalizeZ) {
  auto run = RunGraph(
      Graph("num_landmarks: 2 input_image_width: 200 input_image_height: 100 normalize_z: 0.4"),
      {{"tensors", TensorAt({1, 6}, {50, 25, 8, 100, 75, -40}, 3)}}, {"norm", "raw"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  const auto& norm = run.outputs[0][0].Get<NormalizedLandmarkList>();
  ASSERT_EQ(norm.landmark_size(), 2);
  EXPECT_FLOAT_EQ(norm.landmark(0).x(), 0.25f);
  EXPECT_FLOAT_EQ(norm.landmark(0).y(), 0.25f);
  EXPECT_FLOAT_EQ(norm.landmark(0).z(), 8.0f / 200 / 0.4f);
  EXPECT_FLOAT_EQ(norm.landmark(1).x(), 0.5f);
  EXPECT_FLOAT_EQ(norm.landmark(1).y(), 0.75f);
  EXPECT_FLOAT_EQ(norm.landmark(1).z(), -40.0f / 200 / 0.4f);
  EXPECT_FALSE(norm.landmark(0).has_visibility());
  const auto& raw = run.outputs[1][0].Get<LandmarkList>();
  EXPECT_FLOAT_EQ(raw.landmark(1).z(), -40.0f);
}

TEST(TensorsToLandmarksCalculatorTest, VisibilityPresenceActivationsAndFlips) {
  auto run = RunGraph(
      Graph("num_landmarks: 1 input_image_width: 10 input_image_height: 20 "
            "visibility_activation: SIGMOID flip_horizontally: true flip_vertically: true"),
      {{"tensors", TensorAt({1, 1, 5}, {2, 5, 1, 0, 3}, 1)}}, {"norm", "raw"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& norm = run.outputs[0][0].Get<NormalizedLandmarkList>();
  EXPECT_FLOAT_EQ(norm.landmark(0).x(), 0.8f);   // (10 - 2) / 10
  EXPECT_FLOAT_EQ(norm.landmark(0).y(), 0.75f);  // (20 - 5) / 20
  EXPECT_FLOAT_EQ(norm.landmark(0).visibility(), 0.5f);  // sigmoid(0)
  EXPECT_FLOAT_EQ(norm.landmark(0).presence(), 3.0f);    // no activation
}

TEST(TensorsToLandmarksCalculatorTest, FlipStreamOverridesOption) {
  auto run = RunGraph(
      Graph("num_landmarks: 1 input_image_width: 10 input_image_height: 10",
            "input_stream: \"FLIP_HORIZONTALLY:flip\""),
      {{"flip", At(true, 1)}, {"tensors", TensorAt({1, 2}, {3, 4}, 1)},
       {"flip", At(false, 2)}, {"tensors", TensorAt({1, 2}, {3, 4}, 2)}},
      {"norm", "raw"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 2u);
  EXPECT_FLOAT_EQ(run.outputs[0][0].Get<NormalizedLandmarkList>().landmark(0).x(), 0.7f);
  EXPECT_FLOAT_EQ(run.outputs[0][1].Get<NormalizedLandmarkList>().landmark(0).x(), 0.3f);
}

TEST(TensorsToLandmarksCalculatorTest, RejectsMissingInputSizeOrTooSmallTensor) {
  EXPECT_FALSE(RunGraph(Graph("num_landmarks: 2"), {}, {"norm", "raw"}).status.ok());
  auto run = RunGraph(Graph("num_landmarks: 4 input_image_width: 1 input_image_height: 1"),
                      {{"tensors", TensorAt({1, 3}, {1, 2, 3}, 1)}}, {"norm", "raw"});
  EXPECT_FALSE(run.status.ok());
}

}  // namespace
}  // namespace sluice
