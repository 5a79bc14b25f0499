#include <array>

#include "calculators/util/test_util.h"
#include "formats/landmark.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::NormalizedLandmarkList;
using testing::At;
using testing::RunGraph;

NormalizedLandmarkList List(std::initializer_list<std::array<float, 3>> points) {
  NormalizedLandmarkList list;
  for (const auto& p : points) {
    auto* lm = list.add_landmark();
    lm->set_x(p[0]);
    lm->set_y(p[1]);
    lm->set_z(p[2]);
  }
  return list;
}

TEST(LandmarkLetterboxRemovalCalculatorTest, UndoesPaddingOnEveryList) {
  NormalizedLandmarkList first = List({{0.5f, 0.5f, 0.08f}, {0.1f, 0.2f, 0.0f}});
  first.mutable_landmark(0)->set_visibility(0.7f);
  auto run = RunGraph(R"(
      input_stream: "a" input_stream: "b" input_stream: "pad"
      output_stream: "out_a" output_stream: "out_b"
      node {
        calculator: "LandmarkLetterboxRemovalCalculator"
        input_stream: "LANDMARKS:0:a" input_stream: "LANDMARKS:1:b"
        input_stream: "LETTERBOX_PADDING:pad"
        output_stream: "LANDMARKS:0:out_a" output_stream: "LANDMARKS:1:out_b"
      })",
                      {{"a", At(first, 1)},
                       {"b", At(List({{0.9f, 0.8f, -0.8f}}), 1)},
                       {"pad", At(std::array<float, 4>{0.1f, 0.2f, 0.1f, 0.2f}, 1)}},
                      {"out_a", "out_b"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& a = run.outputs[0][0].Get<NormalizedLandmarkList>();
  EXPECT_NEAR(a.landmark(0).x(), 0.5f, 1e-6);
  EXPECT_NEAR(a.landmark(0).y(), 0.5f, 1e-6);
  EXPECT_NEAR(a.landmark(0).z(), 0.1f, 1e-6);  // scaled like x: 0.08 / 0.8
  EXPECT_FLOAT_EQ(a.landmark(0).visibility(), 0.7f);
  EXPECT_NEAR(a.landmark(1).x(), 0.0f, 1e-6);
  EXPECT_NEAR(a.landmark(1).y(), 0.0f, 1e-6);
  const auto& b = run.outputs[1][0].Get<NormalizedLandmarkList>();
  EXPECT_NEAR(b.landmark(0).x(), 1.0f, 1e-6);
  EXPECT_NEAR(b.landmark(0).y(), 1.0f, 1e-6);
  EXPECT_NEAR(b.landmark(0).z(), -1.0f, 1e-6);
}

// The scale is 1 - (left + right) in float, as MediaPipe rounds it: with
// left 0.1 and right 0.3 that is 0.6f, where 1 - left - right is 0.59999996f.
// Pose tracking feeds these landmarks back into the next crop, so one ulp
// here grew into visible drift from MediaPipe's output (issue 9).
TEST(LandmarkLetterboxRemovalCalculatorTest, RoundsTheScaleLikeMediaPipe) {
  auto run = RunGraph(R"(
      input_stream: "a" input_stream: "pad" output_stream: "out"
      node {
        calculator: "LandmarkLetterboxRemovalCalculator"
        input_stream: "LANDMARKS:a" input_stream: "LETTERBOX_PADDING:pad"
        output_stream: "LANDMARKS:out"
      })",
                      {{"a", At(List({{0.5f, 0.5f, 0.08f}}), 1)},
                       {"pad", At(std::array<float, 4>{0.1f, 0.3f, 0.3f, 0.1f}, 1)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& lm = run.outputs[0][0].Get<NormalizedLandmarkList>().landmark(0);
  // Exact floats: 0.4f / 0.6f and 0.2f / 0.6f (not 0.66666675f, 0.33333334f).
  EXPECT_EQ(lm.x(), 0.6666666f);
  EXPECT_EQ(lm.y(), 0.3333333f);
  EXPECT_EQ(lm.z(), 0.13333333f);
}

}  // namespace
}  // namespace sluice
