#include <cmath>
#include <utility>
#include <vector>

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

// An upright hand (fingers up) as the 12-point subset: x in [0.3, 0.7],
// y in [0.2, 0.8]; the MCP mean is straight above the wrist.
const std::vector<std::pair<float, float>> kUpright = {
    {0.5f, 0.8f}, {0.4f, 0.7f}, {0.35f, 0.6f}, {0.3f, 0.5f}, {0.4f, 0.4f}, {0.4f, 0.3f},
    {0.5f, 0.4f}, {0.5f, 0.2f}, {0.6f, 0.4f}, {0.6f, 0.3f}, {0.7f, 0.4f}, {0.7f, 0.35f}};

// The upright points rotated by `angle` (clockwise on screen) about (0.5, 0.5).
std::vector<std::pair<float, float>> Rotated(float angle) {
  std::vector<std::pair<float, float>> out;
  for (const auto& [x, y] : kUpright) {
    const float dx = x - 0.5f, dy = y - 0.5f;
    out.emplace_back(0.5f + dx * std::cos(angle) - dy * std::sin(angle),
                     0.5f + dx * std::sin(angle) + dy * std::cos(angle));
  }
  return out;
}

NormalizedLandmarkList ToList(const std::vector<std::pair<float, float>>& points) {
  NormalizedLandmarkList list;
  for (const auto& [x, y] : points) {
    auto* lm = list.add_landmark();
    lm->set_x(x);
    lm->set_y(y);
  }
  return list;
}

NormalizedRect RectFor(const NormalizedLandmarkList& list) {
  auto run = RunGraph(R"(
      input_stream: "lms" input_stream: "size" output_stream: "rect"
      node {
        calculator: "HandLandmarksToRectCalculator"
        input_stream: "NORM_LANDMARKS:lms" input_stream: "IMAGE_SIZE:size"
        output_stream: "NORM_RECT:rect"
      })",
                      {{"lms", At(list, 1)}, {"size", At(std::make_pair(100, 100), 1)}}, {"rect"});
  EXPECT_TRUE(run.status.ok()) << run.status;
  if (run.outputs.empty() || run.outputs[0].size() != 1) return {};
  return run.outputs[0][0].Get<NormalizedRect>();
}

TEST(HandLandmarksToRectCalculatorTest, RotatedBoundingBoxAtSeveralAngles) {
  for (float angle : {0.0f, static_cast<float>(M_PI / 2), static_cast<float>(-M_PI / 4)}) {
    NormalizedRect rect = RectFor(ToList(Rotated(angle)));
    EXPECT_NEAR(rect.rotation(), angle, 1e-5) << angle;
    EXPECT_NEAR(rect.x_center(), 0.5f, 1e-5) << angle;
    EXPECT_NEAR(rect.y_center(), 0.5f, 1e-5) << angle;
    EXPECT_NEAR(rect.width(), 0.4f, 1e-5) << angle;
    EXPECT_NEAR(rect.height(), 0.6f, 1e-5) << angle;
  }
}

TEST(HandLandmarksToRectCalculatorTest, FullHandUsesTheTwelvePointSubset) {
  std::vector<std::pair<float, float>> full(21, {5.0f, 5.0f});  // outliers if used
  const int subset[] = {0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18};
  for (int i = 0; i < 12; ++i) full[subset[i]] = kUpright[i];
  NormalizedRect rect = RectFor(ToList(full));
  EXPECT_NEAR(rect.width(), 0.4f, 1e-5);
  EXPECT_NEAR(rect.height(), 0.6f, 1e-5);
  EXPECT_NEAR(rect.rotation(), 0.0f, 1e-5);
}

TEST(HandLandmarksToRectCalculatorTest, RejectsOtherLandmarkCounts) {
  auto run = RunGraph(R"(
      input_stream: "lms" input_stream: "size" output_stream: "rect"
      node {
        calculator: "HandLandmarksToRectCalculator"
        input_stream: "NORM_LANDMARKS:lms" input_stream: "IMAGE_SIZE:size"
        output_stream: "NORM_RECT:rect"
      })",
                      {{"lms", At(ToList({{0.1f, 0.1f}}), 1)},
                       {"size", At(std::make_pair(10, 10), 1)}},
                      {"rect"});
  EXPECT_FALSE(run.status.ok());
}

}  // namespace
}  // namespace sluice
