#include <vector>

#include "calculators/util/test_util.h"
#include "formats/detection.pb.h"
#include "formats/landmark.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using testing::At;
using testing::RunGraph;

mediapipe::NormalizedLandmarkList Landmarks(const std::vector<std::vector<float>>& points) {
  mediapipe::NormalizedLandmarkList list;
  for (const auto& p : points) {
    auto* l = list.add_landmark();
    l->set_x(p[0]);
    l->set_y(p[1]);
    l->set_z(p[2]);
  }
  return list;
}

constexpr char kGraph[] = R"(
    input_stream: "landmarks" output_stream: "detection"
    node {
      calculator: "LandmarksToDetectionCalculator"
      input_stream: "NORM_LANDMARKS:landmarks" output_stream: "DETECTION:detection"
      %s
    })";

std::string Graph(const std::string& options) {
  char buf[1024];
  snprintf(buf, sizeof(buf), kGraph, options.c_str());
  return buf;
}

TEST(LandmarksToDetectionCalculatorTest, BoxHoldsAllLandmarksWhichBecomeKeypoints) {
  auto run = RunGraph(Graph(""),
                      {{"landmarks", At(Landmarks({{0.2f, 0.5f, 1}, {0.6f, 0.1f, 2}, {0.4f, 0.9f, 3}}), 7)}},
                      {"detection"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_EQ(run.outputs[0][0].Timestamp(), Timestamp(7));
  const auto& loc = run.outputs[0][0].Get<mediapipe::Detection>().location_data();
  EXPECT_EQ(loc.format(), mediapipe::LocationData::RELATIVE_BOUNDING_BOX);
  EXPECT_FLOAT_EQ(loc.relative_bounding_box().xmin(), 0.2f);
  EXPECT_FLOAT_EQ(loc.relative_bounding_box().ymin(), 0.1f);
  EXPECT_FLOAT_EQ(loc.relative_bounding_box().width(), 0.4f);
  EXPECT_FLOAT_EQ(loc.relative_bounding_box().height(), 0.8f);
  ASSERT_EQ(loc.relative_keypoints_size(), 3);
  EXPECT_FLOAT_EQ(loc.relative_keypoints(1).x(), 0.6f);
  EXPECT_FLOAT_EQ(loc.relative_keypoints(2).y(), 0.9f);
}

TEST(LandmarksToDetectionCalculatorTest, SelectedIndicesOnly) {
  auto run = RunGraph(
      Graph("options: { [mediapipe.LandmarksToDetectionCalculatorOptions.ext] "
            "{ selected_landmark_indices: [2, 0] } }"),
      {{"landmarks", At(Landmarks({{0.2f, 0.5f, 0}, {0.9f, 0.9f, 0}, {0.4f, 0.3f, 0}}), 1)}},
      {"detection"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& loc = run.outputs[0][0].Get<mediapipe::Detection>().location_data();
  ASSERT_EQ(loc.relative_keypoints_size(), 2);
  EXPECT_FLOAT_EQ(loc.relative_keypoints(0).x(), 0.4f);
  EXPECT_FLOAT_EQ(loc.relative_bounding_box().width(), 0.2f);
  EXPECT_FLOAT_EQ(loc.relative_bounding_box().height(), 0.2f);
}

TEST(LandmarksToDetectionCalculatorTest, MaximaStartAtSmallestPositiveFloat) {
  // All landmarks left of and above the image: MediaPipe's max stays ~0.
  auto run = RunGraph(Graph(""), {{"landmarks", At(Landmarks({{-0.5f, -0.4f, 0}, {-0.1f, -0.2f, 0}}), 1)}},
                      {"detection"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& box = run.outputs[0][0].Get<mediapipe::Detection>().location_data().relative_bounding_box();
  EXPECT_NEAR(box.width(), 0.5f, 1e-6);
  EXPECT_NEAR(box.height(), 0.4f, 1e-6);
}

TEST(LandmarksToDetectionCalculatorTest, BadIndexAndEmptyListAreErrors) {
  auto bad = RunGraph(
      Graph("options: { [mediapipe.LandmarksToDetectionCalculatorOptions.ext] "
            "{ selected_landmark_indices: [5] } }"),
      {{"landmarks", At(Landmarks({{0.2f, 0.5f, 0}}), 1)}}, {"detection"});
  EXPECT_FALSE(bad.status.ok());
  EXPECT_NE(bad.status.message().find("selected_landmark_indices"), std::string::npos);
  auto empty = RunGraph(Graph(""), {{"landmarks", At(Landmarks({}), 1)}}, {"detection"});
  EXPECT_FALSE(empty.status.ok());
}

}  // namespace
}  // namespace sluice
