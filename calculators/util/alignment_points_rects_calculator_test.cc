#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/detection.pb.h"
#include "formats/rect.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::Detection;
using mediapipe::NormalizedRect;
using testing::At;
using testing::MakeDetection;
using testing::RunGraph;
using ::testing::HasSubstr;
using Size = std::pair<int, int>;

std::string Graph(const std::string& in_tag, const std::string& out_tag,
                  const std::string& options =
                      "rotation_vector_start_keypoint_index: 0 "
                      "rotation_vector_end_keypoint_index: 1 "
                      "rotation_vector_target_angle_degrees: 90") {
  return R"(
    input_stream: "dets" input_stream: "size" output_stream: "out"
    node {
      calculator: "AlignmentPointsRectsCalculator"
      input_stream: ")" + in_tag + R"(:dets"
      input_stream: "IMAGE_SIZE:size"
      output_stream: ")" + out_tag + R"(:out"
      options: { [mediapipe.DetectionsToRectsCalculatorOptions.ext] { )" + options + R"( } }
    })";
}

// Pose-style: centre on keypoint 0, side 2*|kp1 - kp0| in pixels, square in
// pixels, so non-square images give different normalized width and height.
TEST(AlignmentPointsRectsCalculatorTest, SquareInPixelsCentredOnStartKeypoint) {
  // 200x100 image: kp0 at (100, 50) px, kp1 at (100, 20) px -> side 60 px,
  // and the vector already points up (90 degrees) -> no rotation.
  const Detection d = MakeDetection(0.9f, 0, 0.1f, 0.1f, 0.2f, 0.2f, {{0.5f, 0.5f}, {0.5f, 0.2f}});
  auto run = RunGraph(Graph("DETECTION", "NORM_RECT"),
                      {{"dets", At(d, 3)}, {"size", At(Size(200, 100), 3)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  const auto& r = run.outputs[0][0].Get<NormalizedRect>();
  EXPECT_FLOAT_EQ(r.x_center(), 0.5f);
  EXPECT_FLOAT_EQ(r.y_center(), 0.5f);
  EXPECT_FLOAT_EQ(r.width(), 0.3f);
  EXPECT_FLOAT_EQ(r.height(), 0.6f);
  EXPECT_NEAR(r.rotation(), 0.0f, 1e-6);
}

TEST(AlignmentPointsRectsCalculatorTest, RotationBringsVectorToTargetForEachDetection) {
  // kp1 20 px to the right of kp0: the vector is at 0 degrees, target 90.
  const Detection right = MakeDetection(0.9f, 0, 0, 0, 1, 1, {{0.5f, 0.5f}, {0.6f, 0.5f}});
  // kp1 10 px below kp0: -90 degrees, so rotate by 180 (normalized to -pi).
  const Detection down = MakeDetection(0.9f, 0, 0, 0, 1, 1, {{0.25f, 0.5f}, {0.25f, 0.6f}});
  auto run = RunGraph(Graph("DETECTIONS", "NORM_RECTS"),
                      {{"dets", At(std::vector<Detection>{right, down}, 1)},
                       {"size", At(Size(200, 100), 1)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& rects = run.outputs[0][0].Get<std::vector<NormalizedRect>>();
  ASSERT_EQ(rects.size(), 2u);
  EXPECT_NEAR(rects[0].width(), 0.2f, 1e-6);   // 40 px / 200
  EXPECT_NEAR(rects[0].height(), 0.4f, 1e-6);  // 40 px / 100
  EXPECT_FLOAT_EQ(rects[0].rotation(), static_cast<float>(M_PI / 2));
  EXPECT_FLOAT_EQ(rects[1].x_center(), 0.25f);
  EXPECT_NEAR(rects[1].width(), 0.1f, 1e-6);   // 20 px / 200
  EXPECT_NEAR(rects[1].height(), 0.2f, 1e-6);
  EXPECT_NEAR(std::abs(rects[1].rotation()), M_PI, 1e-6);
}

TEST(AlignmentPointsRectsCalculatorTest, NeedsBothKeypointOptions) {
  auto run = RunGraph(Graph("DETECTION", "NORM_RECT", "rotation_vector_target_angle_degrees: 90"),
                      {}, {"out"});
  ASSERT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("rotation_vector_start_keypoint_index"));
}

TEST(AlignmentPointsRectsCalculatorTest, MissingKeypointIsAnError) {
  const Detection d = MakeDetection(0.9f, 0, 0, 0, 1, 1, {{0.5f, 0.5f}});
  auto run = RunGraph(Graph("DETECTION", "NORM_RECT"),
                      {{"dets", At(d, 1)}, {"size", At(Size(10, 10), 1)}}, {"out"});
  ASSERT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("has 1 keypoints"));
}

}  // namespace
}  // namespace sluice
