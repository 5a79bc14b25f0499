#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/detection.pb.h"
#include "formats/rect.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::Detection;
using mediapipe::NormalizedRect;
using mediapipe::Rect;
using testing::At;
using testing::MakeDetection;
using testing::RunGraph;
using Detections = std::vector<Detection>;

std::string Graph(const std::string& in_tag, const std::string& out_tag,
                  const std::string& options) {
  return R"(
    input_stream: "dets"
    input_stream: "size"
    output_stream: "out"
    node {
      calculator: "DetectionsToRectsCalculator"
      input_stream: ")" +
         in_tag + R"(:dets"
      input_stream: "IMAGE_SIZE:size"
      output_stream: ")" +
         out_tag + R"(:out"
      options: { [mediapipe.DetectionsToRectsCalculatorOptions.ext] { )" +
         options + R"( } }
    })";
}

constexpr char kPalmOptions[] =
    "rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: 2 "
    "rotation_vector_target_angle_degrees: 90";

// Palm-style rotation for a detection whose keypoint 0 is at `k0` and
// keypoint 2 at `k2`, in an image of `size`.
float PalmRotation(std::pair<float, float> k0, std::pair<float, float> k2,
                   std::pair<int, int> size) {
  Detection d = MakeDetection(0.9f, 0, 0.2f, 0.3f, 0.4f, 0.2f, {k0, {0.0f, 0.0f}, k2});
  auto run = RunGraph(Graph("DETECTION", "NORM_RECT", kPalmOptions),
                      {{"dets", At(d, 1)}, {"size", At(size, 1)}}, {"out"});
  EXPECT_TRUE(run.status.ok()) << run.status;
  if (run.outputs.empty() || run.outputs[0].size() != 1) return NAN;
  const auto& rect = run.outputs[0][0].Get<NormalizedRect>();
  EXPECT_FLOAT_EQ(rect.x_center(), 0.4f);
  EXPECT_FLOAT_EQ(rect.y_center(), 0.4f);
  EXPECT_FLOAT_EQ(rect.width(), 0.4f);
  EXPECT_FLOAT_EQ(rect.height(), 0.2f);
  return rect.rotation();
}

TEST(DetectionsToRectsCalculatorTest, RotationFromKeypoints) {
  const std::pair<int, int> square = {100, 100};
  // Wrist below the finger: already upright.
  EXPECT_NEAR(PalmRotation({0.5f, 0.6f}, {0.5f, 0.4f}, square), 0.0f, 1e-6);
  // Finger to the right of the wrist: +90 degrees.
  EXPECT_NEAR(PalmRotation({0.5f, 0.6f}, {0.6f, 0.6f}, square), M_PI / 2, 1e-6);
  // Finger up-left: -45 degrees.
  EXPECT_NEAR(PalmRotation({0.5f, 0.6f}, {0.4f, 0.5f}, square), -M_PI / 4, 1e-6);
  // Finger straight down: pi, normalized to -pi.
  EXPECT_NEAR(PalmRotation({0.5f, 0.4f}, {0.5f, 0.6f}, square), -M_PI, 1e-6);
}

TEST(DetectionsToRectsCalculatorTest, RotationIsMeasuredInPixels) {
  // dx = 0.1 * 200 = 20 px, dy = -0.1 * 100 = -10 px.
  const float expected = M_PI / 2 - std::atan2(10.0f, 20.0f);
  EXPECT_NEAR(PalmRotation({0.5f, 0.5f}, {0.6f, 0.4f}, {200, 100}), expected, 1e-6);
}

TEST(DetectionsToRectsCalculatorTest, RadiansTargetAndVectorOutput) {
  const Detections dets = {
      MakeDetection(0.9f, 0, 0.0f, 0.0f, 0.2f, 0.2f, {{0.1f, 0.1f}, {0.2f, 0.1f}}),
      MakeDetection(0.8f, 0, 0.5f, 0.5f, 0.4f, 0.2f, {{0.7f, 0.6f}, {0.7f, 0.5f}})};
  auto run = RunGraph(Graph("DETECTIONS", "NORM_RECTS",
                            "rotation_vector_start_keypoint_index: 0 "
                            "rotation_vector_end_keypoint_index: 1 rotation_vector_target_angle: 0"),
                      {{"dets", At(dets, 3)}, {"size", At(std::make_pair(50, 50), 3)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& rects = run.outputs[0][0].Get<std::vector<NormalizedRect>>();
  ASSERT_EQ(rects.size(), 2u);
  EXPECT_NEAR(rects[0].rotation(), 0.0f, 1e-6);        // pointing right already
  EXPECT_NEAR(rects[1].rotation(), -M_PI / 2, 1e-6);   // pointing up
  EXPECT_FLOAT_EQ(rects[1].x_center(), 0.7f);
  EXPECT_FLOAT_EQ(rects[1].y_center(), 0.6f);
}

TEST(DetectionsToRectsCalculatorTest, KeypointConversionMode) {
  const Detections dets = {
      MakeDetection(0.9f, 0, 0.0f, 0.0f, 1.0f, 1.0f, {{0.2f, 0.3f}, {0.6f, 0.4f}, {0.4f, 0.9f}})};
  auto run = RunGraph(Graph("DETECTIONS", "NORM_RECT", "conversion_mode: USE_KEYPOINTS"),
                      {{"dets", At(dets, 1)}, {"size", At(std::make_pair(10, 10), 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& rect = run.outputs[0][0].Get<NormalizedRect>();
  EXPECT_FLOAT_EQ(rect.x_center(), 0.4f);
  EXPECT_FLOAT_EQ(rect.y_center(), 0.6f);
  EXPECT_FLOAT_EQ(rect.width(), 0.4f);
  EXPECT_FLOAT_EQ(rect.height(), 0.6f);
  EXPECT_FLOAT_EQ(rect.rotation(), 0.0f);
}

TEST(DetectionsToRectsCalculatorTest, PixelBoxesToRect) {
  Detection d;
  auto* loc = d.mutable_location_data();
  loc->set_format(mediapipe::LocationData::BOUNDING_BOX);
  loc->mutable_bounding_box()->set_xmin(10);
  loc->mutable_bounding_box()->set_ymin(20);
  loc->mutable_bounding_box()->set_width(30);
  loc->mutable_bounding_box()->set_height(40);
  auto run = RunGraph(Graph("DETECTION", "RECT", ""),
                      {{"dets", At(d, 1)}, {"size", At(std::make_pair(100, 100), 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& rect = run.outputs[0][0].Get<Rect>();
  EXPECT_EQ(rect.x_center(), 25);
  EXPECT_EQ(rect.y_center(), 40);
  EXPECT_EQ(rect.width(), 30);
  EXPECT_EQ(rect.height(), 40);
}

TEST(DetectionsToRectsCalculatorTest, EmptyDetections) {
  auto none = RunGraph(Graph("DETECTIONS", "NORM_RECT", ""), {{"dets", At(Detections{}, 1)}},
                       {"out"});
  ASSERT_TRUE(none.status.ok()) << none.status;
  EXPECT_TRUE(none.outputs[0].empty());
  auto zero = RunGraph(Graph("DETECTIONS", "NORM_RECTS", "output_zero_rect_for_empty_detections: true"),
                       {{"dets", At(Detections{}, 1)}}, {"out"});
  ASSERT_TRUE(zero.status.ok()) << zero.status;
  ASSERT_EQ(zero.outputs[0].size(), 1u);
  const auto& rects = zero.outputs[0][0].Get<std::vector<NormalizedRect>>();
  ASSERT_EQ(rects.size(), 1u);
  EXPECT_EQ(rects[0].width(), 0.0f);
}

TEST(DetectionsToRectsCalculatorTest, RejectsBadConfigurations) {
  // Both target angle fields.
  EXPECT_FALSE(RunGraph(Graph("DETECTION", "NORM_RECT",
                              "rotation_vector_start_keypoint_index: 0 "
                              "rotation_vector_end_keypoint_index: 1 "
                              "rotation_vector_target_angle: 0 "
                              "rotation_vector_target_angle_degrees: 0"),
                        {}, {"out"})
                   .status.ok());
  // Keypoint index past the detection's keypoints.
  Detection d = MakeDetection(0.9f, 0, 0, 0, 1, 1, {{0.5f, 0.5f}});
  auto run = RunGraph(Graph("DETECTION", "NORM_RECT", kPalmOptions),
                      {{"dets", At(d, 1)}, {"size", At(std::make_pair(10, 10), 1)}}, {"out"});
  EXPECT_FALSE(run.status.ok());
}

}  // namespace
}  // namespace sluice
