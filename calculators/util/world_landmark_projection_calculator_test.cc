#include <cmath>

#include "calculators/util/test_util.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::LandmarkList;
using mediapipe::NormalizedRect;
using testing::At;
using testing::RunGraph;

TEST(WorldLandmarkProjectionCalculatorTest, RotatesXYOnly) {
  LandmarkList in;
  auto* lm = in.add_landmark();
  lm->set_x(1);
  lm->set_y(0);
  lm->set_z(3);
  lm->set_visibility(0.5f);
  NormalizedRect rect;
  rect.set_x_center(0.9f);
  rect.set_y_center(0.9f);
  rect.set_width(0.1f);
  rect.set_height(0.1f);
  rect.set_rotation(M_PI / 2);
  constexpr char kGraph[] = R"(
      input_stream: "lms" input_stream: "rect" output_stream: "out"
      node {
        calculator: "WorldLandmarkProjectionCalculator"
        input_stream: "LANDMARKS:lms" input_stream: "NORM_RECT:rect"
        output_stream: "LANDMARKS:out"
      })";
  auto run = RunGraph(kGraph, {{"lms", At(in, 1)}, {"rect", At(rect, 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& out = run.outputs[0][0].Get<LandmarkList>();
  EXPECT_NEAR(out.landmark(0).x(), 0.0f, 1e-6);
  EXPECT_NEAR(out.landmark(0).y(), 1.0f, 1e-6);
  EXPECT_FLOAT_EQ(out.landmark(0).z(), 3.0f);
  EXPECT_FLOAT_EQ(out.landmark(0).visibility(), 0.5f);
  // No rect packet: unchanged.
  auto plain = RunGraph(kGraph, {{"lms", At(in, 1)}}, {"out"});
  ASSERT_TRUE(plain.status.ok()) << plain.status;
  EXPECT_FLOAT_EQ(plain.outputs[0][0].Get<LandmarkList>().landmark(0).x(), 1.0f);
}

}  // namespace
}  // namespace sluice
