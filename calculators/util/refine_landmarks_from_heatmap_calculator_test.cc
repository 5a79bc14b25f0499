#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/landmark.pb.h"
#include "formats/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::NormalizedLandmarkList;
using testing::At;
using testing::RunGraph;
using ::testing::HasSubstr;

constexpr float z = -1e16f;  // sigmoid -> 0: no confidence

NormalizedLandmarkList Landmarks(const std::vector<std::pair<float, float>>& xy) {
  NormalizedLandmarkList l;
  for (const auto& [x, y] : xy) {
    auto* lm = l.add_landmark();
    lm->set_x(x);
    lm->set_y(y);
    lm->set_visibility(0.9f);
    lm->set_presence(0.8f);
  }
  return l;
}

// `chw` is written per channel (easier to read); the tensor is HWC.
Packet Heatmap(const std::vector<float>& chw, std::vector<int> dims, int64_t ts) {
  const int h = dims[dims.size() - 3], w = dims[dims.size() - 2], c = dims.back();
  auto* v = new std::vector<Tensor>();
  v->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape(std::move(dims)));
  float* out = (*v)[0].GetCpuWriteView().buffer<float>();
  for (int ch = 0; ch < c; ++ch) {
    for (int i = 0; i < h * w; ++i) out[i * c + ch] = chw[ch * h * w + i];
  }
  return Adopt(v).At(Timestamp(ts));
}

std::string Graph(const std::string& options) {
  return R"(
    input_stream: "lms" input_stream: "hm" output_stream: "out"
    node {
      calculator: "RefineLandmarksFromHeatmapCalculator"
      input_stream: "NORM_LANDMARKS:lms" input_stream: "TENSORS:hm"
      output_stream: "NORM_LANDMARKS:out"
      options: { [mediapipe.RefineLandmarksFromHeatmapCalculatorOptions.ext] { )" + options +
         R"( } }
    })";
}

// The cases of MediaPipe's refine_landmarks_from_heatmap_calculator_test.cc,
// run through a graph.
TEST(RefineLandmarksFromHeatmapCalculatorTest, MovesToConfidentCellIndex) {
  auto run = RunGraph(Graph("kernel_size: 3 min_confidence_to_refine: 0.1"),
                      {{"lms", At(Landmarks({{0.5f, 0.5f}}), 1)},
                       {"hm", Heatmap({z, z, z, 1, z, z, z, z, z}, {1, 3, 3, 1}, 1)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& out = run.outputs[0][0].Get<NormalizedLandmarkList>();
  // Cell (col 0, row 1): x = 0 / 3, y = 1 / 3 (index, no half-cell offset).
  EXPECT_FLOAT_EQ(out.landmark(0).x(), 0.0f);
  EXPECT_FLOAT_EQ(out.landmark(0).y(), 1 / 3.f);
  // refine_* off by default: visibility and presence untouched.
  EXPECT_FLOAT_EQ(out.landmark(0).visibility(), 0.9f);
  EXPECT_FLOAT_EQ(out.landmark(0).presence(), 0.8f);
}

TEST(RefineLandmarksFromHeatmapCalculatorTest, KeepsLandmarksBelowMinConfidence) {
  const std::vector<float> hm = {z, z, z, 0, z, z, z, z, z,  z, z, z, 0, z, z, z, z, z,
                                 z, z, z, 0, z, z, z, z, z};
  auto run = RunGraph(Graph("kernel_size: 3 min_confidence_to_refine: 0.6"),
                      {{"lms", At(Landmarks({{0.5f, 0.5f}, {0.5f, 0.5f}, {0.5f, 0.5f}}), 1)},
                       {"hm", Heatmap(hm, {3, 3, 3}, 1)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& out = run.outputs[0][0].Get<NormalizedLandmarkList>();
  for (int i = 0; i < 3; ++i) {
    EXPECT_FLOAT_EQ(out.landmark(i).x(), 0.5f);
    EXPECT_FLOAT_EQ(out.landmark(i).y(), 0.5f);
  }
}

TEST(RefineLandmarksFromHeatmapCalculatorTest, WindowClippedAtBorderAndPresenceRefined) {
  const std::vector<float> hm = {z, z, z, 0, z, 0, z, z, z,   // channel 0
                                 z, z, z, 0, z, 0, z, z, 0};  // channel 1
  auto run = RunGraph(Graph("kernel_size: 3 min_confidence_to_refine: 0.1 "
                            "refine_presence: true refine_visibility: true"),
                      {{"lms", At(Landmarks({{0.0f, 0.0f}, {0.9f, 0.9f}}), 1)},
                       {"hm", Heatmap(hm, {3, 3, 2}, 1)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& out = run.outputs[0][0].Get<NormalizedLandmarkList>();
  EXPECT_FLOAT_EQ(out.landmark(0).x(), 0.0f);
  EXPECT_FLOAT_EQ(out.landmark(0).y(), 1 / 3.f);
  EXPECT_FLOAT_EQ(out.landmark(1).x(), 2 / 3.f);
  EXPECT_FLOAT_EQ(out.landmark(1).y(), 1 / 6.f + 2 / 6.f);
  // Max confidence in both windows is sigmoid(0) = 0.5.
  EXPECT_FLOAT_EQ(out.landmark(1).presence(), 0.5f);
  EXPECT_FLOAT_EQ(out.landmark(1).visibility(), 0.5f);
}

TEST(RefineLandmarksFromHeatmapCalculatorTest, PassesThroughWithoutHeatmap) {
  auto run = RunGraph(Graph(""), {{"lms", At(Landmarks({{0.3f, 0.4f}}), 5)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_FLOAT_EQ(run.outputs[0][0].Get<NormalizedLandmarkList>().landmark(0).x(), 0.3f);
}

TEST(RefineLandmarksFromHeatmapCalculatorTest, ChannelCountMustMatchLandmarks) {
  auto run = RunGraph(Graph(""),
                      {{"lms", At(Landmarks({{0.5f, 0.5f}, {0.5f, 0.5f}}), 1)},
                       {"hm", Heatmap(std::vector<float>(9, 0.f), {1, 3, 3, 1}, 1)}},
                      {"out"});
  ASSERT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("heatmap has 1 channels but there are 2 landmarks"));
}

TEST(RefineLandmarksFromHeatmapCalculatorTest, RejectsBadShape) {
  auto run = RunGraph(Graph(""),
                      {{"lms", At(Landmarks({{0.5f, 0.5f}}), 1)},
                       {"hm", Heatmap(std::vector<float>(9, 0.f), {2, 3, 3, 1}, 1)}},
                      {"out"});
  ASSERT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("[2, 3, 3, 1]"));
}

}  // namespace
}  // namespace sluice
