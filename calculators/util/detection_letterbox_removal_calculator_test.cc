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

constexpr char kGraph[] = R"(
  input_stream: "dets"
  input_stream: "pad"
  output_stream: "out"
  node {
    calculator: "DetectionLetterboxRemovalCalculator"
    input_stream: "DETECTIONS:dets"
    input_stream: "LETTERBOX_PADDING:pad"
    output_stream: "DETECTIONS:out"
  })";

TEST(DetectionLetterboxRemovalCalculatorTest, UndoesPadding) {
  const std::array<float, 4> pad = {0.1f, 0.2f, 0.1f, 0.2f};  // l, t, r, b
  const Detections in = {MakeDetection(0.9f, 1, 0.1f, 0.5f, 0.4f, 0.3f, {{0.5f, 0.5f}, {0.9f, 0.8f}})};
  auto run = RunGraph(kGraph, {{"dets", At(in, 10)}, {"pad", At(pad, 10)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_EQ(run.outputs[0][0].Timestamp(), Timestamp(10));
  const auto& out = run.outputs[0][0].Get<Detections>();
  ASSERT_EQ(out.size(), 1u);
  const auto& box = out[0].location_data().relative_bounding_box();
  EXPECT_NEAR(box.xmin(), 0.0f, 1e-6);    // (0.1 - 0.1) / 0.8
  EXPECT_NEAR(box.ymin(), 0.5f, 1e-6);    // (0.5 - 0.2) / 0.6
  EXPECT_NEAR(box.width(), 0.5f, 1e-6);   // 0.4 / 0.8
  EXPECT_NEAR(box.height(), 0.5f, 1e-6);  // 0.3 / 0.6
  const auto& kps = out[0].location_data().relative_keypoints();
  EXPECT_NEAR(kps[0].x(), 0.5f, 1e-6);
  EXPECT_NEAR(kps[0].y(), 0.5f, 1e-6);
  EXPECT_NEAR(kps[1].x(), 1.0f, 1e-6);
  EXPECT_NEAR(kps[1].y(), 1.0f, 1e-6);
  EXPECT_FLOAT_EQ(out[0].score(0), 0.9f);
}

// The scale is 1 - (left + right) in float, as MediaPipe rounds it (0.6f
// here, where 1 - left - right gives 0.59999996f).
TEST(DetectionLetterboxRemovalCalculatorTest, RoundsTheScaleLikeMediaPipe) {
  const std::array<float, 4> pad = {0.1f, 0.3f, 0.3f, 0.1f};  // l, t, r, b
  const Detections in = {MakeDetection(0.9f, 1, 0.1f, 0.3f, 0.3f, 0.3f, {{0.5f, 0.5f}})};
  auto run = RunGraph(kGraph, {{"dets", At(in, 10)}, {"pad", At(pad, 10)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& loc = run.outputs[0][0].Get<Detections>().at(0).location_data();
  EXPECT_EQ(loc.relative_bounding_box().width(), 0.5f);  // not 0.50000006f
  EXPECT_EQ(loc.relative_bounding_box().height(), 0.5f);
  EXPECT_EQ(loc.relative_keypoints(0).x(), 0.6666666f);  // not 0.66666675f
  EXPECT_EQ(loc.relative_keypoints(0).y(), 0.3333333f);  // not 0.33333334f
}

TEST(DetectionLetterboxRemovalCalculatorTest, ZeroPaddingIsIdentity) {
  const std::array<float, 4> pad = {0, 0, 0, 0};
  const Detections in = {MakeDetection(0.5f, 0, 0.25f, 0.125f, 0.5f, 0.25f)};
  auto run = RunGraph(kGraph, {{"dets", At(in, 1)}, {"pad", At(pad, 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& box = run.outputs[0][0].Get<Detections>()[0].location_data().relative_bounding_box();
  EXPECT_FLOAT_EQ(box.xmin(), 0.25f);
  EXPECT_FLOAT_EQ(box.height(), 0.25f);
}

TEST(DetectionLetterboxRemovalCalculatorTest, RejectsPixelBoxes) {
  Detection d = MakeDetection(0.5f, 0, 0, 0, 1, 1);
  d.mutable_location_data()->set_format(mediapipe::LocationData::BOUNDING_BOX);
  auto run = RunGraph(kGraph, {{"dets", At(Detections{d}, 1)},
                               {"pad", At(std::array<float, 4>{0, 0, 0, 0}, 1)}},
                      {"out"});
  EXPECT_FALSE(run.status.ok());
}

}  // namespace
}  // namespace sluice
