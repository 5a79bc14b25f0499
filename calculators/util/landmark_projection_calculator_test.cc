#include <array>
#include <cmath>
#include <string>

#include "calculators/util/test_util.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::NormalizedLandmarkList;
using mediapipe::NormalizedRect;
using testing::At;
using testing::RunGraph;

NormalizedLandmarkList OnePoint(float x, float y, float z) {
  NormalizedLandmarkList list;
  auto* lm = list.add_landmark();
  lm->set_x(x);
  lm->set_y(y);
  lm->set_z(z);
  lm->set_presence(0.9f);
  return list;
}

NormalizedRect Rect(float xc, float yc, float w, float h, float rotation) {
  NormalizedRect r;
  r.set_x_center(xc);
  r.set_y_center(yc);
  r.set_width(w);
  r.set_height(h);
  r.set_rotation(rotation);
  return r;
}

NormalizedLandmarkList ProjectWithRect(const NormalizedRect& rect, const std::string& options) {
  auto run = RunGraph(R"(
      input_stream: "lms" input_stream: "rect" output_stream: "out"
      node {
        calculator: "LandmarkProjectionCalculator"
        input_stream: "NORM_LANDMARKS:lms" input_stream: "NORM_RECT:rect"
        output_stream: "NORM_LANDMARKS:out"
        options: { [mediapipe.LandmarkProjectionCalculatorOptions.ext] { )" +
                          options + R"( } }
      })",
                      {{"lms", At(OnePoint(0.75f, 0.5f, 0.1f), 1)}, {"rect", At(rect, 1)}},
                      {"out"});
  EXPECT_TRUE(run.status.ok()) << run.status;
  if (run.outputs.empty() || run.outputs[0].size() != 1) return {};
  return run.outputs[0][0].Get<NormalizedLandmarkList>();
}

TEST(LandmarkProjectionCalculatorTest, RotatesScalesAndTranslatesIntoTheImage) {
  // (0.25, 0) from the ROI centre, rotated +90 degrees -> (0, 0.25).
  NormalizedLandmarkList out = ProjectWithRect(Rect(0.4f, 0.6f, 0.2f, 0.4f, M_PI / 2), "");
  ASSERT_EQ(out.landmark_size(), 1);
  EXPECT_NEAR(out.landmark(0).x(), 0.4f, 1e-6);
  EXPECT_NEAR(out.landmark(0).y(), 0.7f, 1e-6);
  EXPECT_NEAR(out.landmark(0).z(), 0.02f, 1e-6);
  EXPECT_FLOAT_EQ(out.landmark(0).presence(), 0.9f);
  // Unrotated rect.
  out = ProjectWithRect(Rect(0.4f, 0.6f, 0.2f, 0.4f, 0), "");
  EXPECT_NEAR(out.landmark(0).x(), 0.45f, 1e-6);
  EXPECT_NEAR(out.landmark(0).y(), 0.6f, 1e-6);
  // -45 degrees.
  out = ProjectWithRect(Rect(0.5f, 0.5f, 1.0f, 1.0f, -M_PI / 4), "");
  EXPECT_NEAR(out.landmark(0).x(), 0.5f + 0.25f * std::cos(M_PI / 4), 1e-6);
  EXPECT_NEAR(out.landmark(0).y(), 0.5f - 0.25f * std::sin(M_PI / 4), 1e-6);
}

TEST(LandmarkProjectionCalculatorTest, IgnoreRotation) {
  NormalizedLandmarkList out =
      ProjectWithRect(Rect(0.4f, 0.6f, 0.2f, 0.4f, M_PI / 2), "ignore_rotation: true");
  EXPECT_NEAR(out.landmark(0).x(), 0.45f, 1e-6);
  EXPECT_NEAR(out.landmark(0).y(), 0.6f, 1e-6);
}

TEST(LandmarkProjectionCalculatorTest, ProjectionMatrix) {
  std::array<float, 16> m = {2, 0, 0, 0.1f, 0, 1, 0, 0.2f, 0, 0, 1, 0, 0, 0, 0, 1};
  auto run = RunGraph(R"(
      input_stream: "lms" input_stream: "m" output_stream: "out"
      node {
        calculator: "LandmarkProjectionCalculator"
        input_stream: "NORM_LANDMARKS:lms" input_stream: "PROJECTION_MATRIX:m"
        output_stream: "NORM_LANDMARKS:out"
      })",
                      {{"lms", At(OnePoint(0.75f, 0.5f, 0.1f), 1)}, {"m", At(m, 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& out = run.outputs[0][0].Get<NormalizedLandmarkList>();
  EXPECT_NEAR(out.landmark(0).x(), 1.6f, 1e-6);
  EXPECT_NEAR(out.landmark(0).y(), 0.7f, 1e-6);
  EXPECT_NEAR(out.landmark(0).z(), 0.2f, 1e-6);  // unit x vector doubled
}

}  // namespace
}  // namespace sluice
