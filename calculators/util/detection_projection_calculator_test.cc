#include <array>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/detection.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::Detection;
using testing::At;
using testing::MakeDetection;
using testing::RunGraph;
using Detections = std::vector<Detection>;
using Matrix = std::array<float, 16>;

constexpr char kGraph[] = R"(
  input_stream: "dets"
  input_stream: "matrix"
  output_stream: "out"
  node {
    calculator: "DetectionProjectionCalculator"
    input_stream: "DETECTIONS:dets"
    input_stream: "PROJECTION_MATRIX:matrix"
    output_stream: "DETECTIONS:out"
  })";

Matrix Affine(float a, float b, float tx, float c, float d, float ty) {
  return {a, b, 0, tx, c, d, 0, ty, 0, 0, 1, 0, 0, 0, 0, 1};
}

TEST(DetectionProjectionCalculatorTest, ScalesAndShifts) {
  // The letterbox case: a square tensor over a wide image.
  const Matrix m = Affine(1.0f, 0, 0, 0, 2.0f, -0.5f);
  const Detections in = {MakeDetection(0.8f, 0, 0.2f, 0.3f, 0.4f, 0.2f, {{0.5f, 0.5f}, {0.25f, 0.75f}})};
  auto run = RunGraph(kGraph, {{"dets", At(in, 7)}, {"matrix", At(m, 7)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_EQ(run.outputs[0][0].Timestamp(), Timestamp(7));
  const auto& out = run.outputs[0][0].Get<Detections>();
  ASSERT_EQ(out.size(), 1u);
  const auto& box = out[0].location_data().relative_bounding_box();
  EXPECT_NEAR(box.xmin(), 0.2f, 1e-6);
  EXPECT_NEAR(box.ymin(), 0.1f, 1e-6);  // 0.3 * 2 - 0.5
  EXPECT_NEAR(box.width(), 0.4f, 1e-6);
  EXPECT_NEAR(box.height(), 0.4f, 1e-6);
  const auto& kps = out[0].location_data().relative_keypoints();
  EXPECT_NEAR(kps[0].x(), 0.5f, 1e-6);
  EXPECT_NEAR(kps[0].y(), 0.5f, 1e-6);
  EXPECT_NEAR(kps[1].x(), 0.25f, 1e-6);
  EXPECT_NEAR(kps[1].y(), 1.0f, 1e-6);
  EXPECT_FLOAT_EQ(out[0].score(0), 0.8f);
}

TEST(DetectionProjectionCalculatorTest, RotationGivesTheHullOfTheCorners) {
  // 90 degrees about the origin: (x, y) -> (-y, x), then shifted by (1, 0).
  const Matrix m = Affine(0, -1.0f, 1.0f, 1.0f, 0, 0);
  const Detections in = {MakeDetection(0.5f, 0, 0.1f, 0.2f, 0.3f, 0.1f)};
  auto run = RunGraph(kGraph, {{"dets", At(in, 1)}, {"matrix", At(m, 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& box = run.outputs[0][0].Get<Detections>()[0].location_data().relative_bounding_box();
  EXPECT_NEAR(box.xmin(), 0.7f, 1e-6);  // 1 - (0.2 + 0.1)
  EXPECT_NEAR(box.ymin(), 0.1f, 1e-6);
  EXPECT_NEAR(box.width(), 0.1f, 1e-6);
  EXPECT_NEAR(box.height(), 0.3f, 1e-6);
}

TEST(DetectionProjectionCalculatorTest, EmptyListStaysEmpty) {
  const Matrix m = Affine(1, 0, 0, 0, 1, 0);
  auto run = RunGraph(kGraph, {{"dets", At(Detections{}, 3)}, {"matrix", At(m, 3)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_TRUE(run.outputs[0][0].Get<Detections>().empty());
}

TEST(DetectionProjectionCalculatorTest, RejectsPixelBoxesAndMissingMatrix) {
  Detection d = MakeDetection(0.5f, 0, 0, 0, 1, 1);
  d.mutable_location_data()->set_format(mediapipe::LocationData::BOUNDING_BOX);
  const Matrix m = Affine(1, 0, 0, 0, 1, 0);
  auto run = RunGraph(kGraph, {{"dets", At(Detections{d}, 1)}, {"matrix", At(m, 1)}}, {"out"});
  EXPECT_FALSE(run.status.ok());
  auto missing = RunGraph(kGraph, {{"dets", At(Detections{}, 1)}, {"matrix", At(m, 2)}}, {"out"});
  EXPECT_FALSE(missing.status.ok());
}

}  // namespace
}  // namespace sluice
