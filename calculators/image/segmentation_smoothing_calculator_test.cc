#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using testing::RunGraph;

Packet MaskAt(const std::vector<float>& values, int width, int64_t ts) {
  const int height = static_cast<int>(values.size()) / width;
  ImageFrame f = *ImageFrame::Create(ImageFormat::VEC32F1, width, height);
  for (int y = 0; y < height; ++y) {
    std::copy_n(values.begin() + y * width, width, reinterpret_cast<float*>(f.MutableRow(y)));
  }
  return MakePacket<Image>(std::move(f)).At(Timestamp(ts));
}

std::vector<float> Values(const Packet& p) {
  auto f = *p.Get<Image>().CpuView();
  std::vector<float> out;
  for (int y = 0; y < f->Height(); ++y) {
    const float* row = reinterpret_cast<const float*>(f->Row(y));
    out.insert(out.end(), row, row + f->Width());
  }
  return out;
}

std::string Graph(float ratio) {
  return R"(
    input_stream: "mask"
    input_stream: "prev"
    output_stream: "out"
    node {
      calculator: "SegmentationSmoothingCalculator"
      input_stream: "MASK:mask"
      input_stream: "MASK_PREVIOUS:prev"
      output_stream: "MASK_SMOOTHED:out"
      options: { [mediapipe.SegmentationSmoothingCalculatorOptions.ext] {
        combine_with_previous_ratio: )" +
         std::to_string(ratio) + R"( } }
    })";
}

TEST(SegmentationSmoothingCalculatorTest, UncertainPixelsLeanOnThePreviousMask) {
  const std::vector<float> now = {0.5f, 0.99f, 0.01f, 0.7f};
  const std::vector<float> before = {1.0f, 0.0f, 1.0f, 0.0f};
  auto run =
      RunGraph(Graph(0.7f), {{"mask", MaskAt(now, 2, 5)}, {"prev", MaskAt(before, 2, 5)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_EQ(run.outputs[0][0].Timestamp(), Timestamp(5));
  const std::vector<float> out = Values(run.outputs[0][0]);
  ASSERT_EQ(out.size(), 4u);
  // p = 0.5 is fully uncertain: ratio 0.7 of the previous value.
  EXPECT_NEAR(out[0], 0.5f + 0.5f * 0.7f, 1e-5);
  // Confident pixels barely move.
  EXPECT_NEAR(out[1], 0.99f, 0.02f);
  EXPECT_NEAR(out[2], 0.01f, 0.02f);
  // In between: MediaPipe's uncertainty polynomial gives 0.7767 at p = 0.7
  // (evaluated by hand from its coefficients).
  EXPECT_NEAR(out[3], 0.7 - 0.7 * 0.7767 * 0.7, 1e-3);
}

TEST(SegmentationSmoothingCalculatorTest, PassesTheMaskThroughWithoutPrevious) {
  auto run = RunGraph(Graph(0.7f), {{"mask", MaskAt({0.5f, 0.2f}, 2, 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_EQ(Values(run.outputs[0][0]), (std::vector<float>{0.5f, 0.2f}));
}

// A CPU graph's mask (ImageFrame) smooths the same as an Image one.
TEST(SegmentationSmoothingCalculatorTest, AcceptsAnImageFrameMask) {
  ImageFrame frame = *ImageFrame::Create(ImageFormat::VEC32F1, 1, 1);
  *reinterpret_cast<float*>(frame.MutableRow(0)) = 0.5f;
  auto run = RunGraph(Graph(0.5f),
                      {{"mask", MakePacket<ImageFrame>(std::move(frame)).At(Timestamp(2))},
                       {"prev", MaskAt({0.0f}, 1, 2)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_NEAR(Values(run.outputs[0][0])[0], 0.25f, 1e-5);
}

TEST(SegmentationSmoothingCalculatorTest, NoMaskNoOutput) {
  auto run = RunGraph(Graph(0.7f), {{"prev", MaskAt({0.5f}, 1, 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_TRUE(run.outputs[0].empty());
}

TEST(SegmentationSmoothingCalculatorTest, RejectsMasksOfDifferentSizes) {
  auto run = RunGraph(
      Graph(0.7f),
      {{"mask", MaskAt({0.5f, 0.5f}, 2, 1)}, {"prev", MaskAt({0.5f, 0.5f, 0.5f}, 3, 1)}}, {"out"});
  EXPECT_FALSE(run.status.ok());
  EXPECT_NE(run.status.message().find("MASK_PREVIOUS is 3x1"), std::string::npos) << run.status;
}

TEST(SegmentationSmoothingCalculatorTest, FromImageGivesTheImageFrame) {
  auto run = RunGraph(R"(
    input_stream: "mask"
    output_stream: "frame"
    node { calculator: "FromImageCalculator" input_stream: "IMAGE:mask"
           output_stream: "IMAGE_CPU:frame" })",
                      {{"mask", MaskAt({0.25f, 0.75f}, 2, 3)}}, {"frame"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  const ImageFrame& f = run.outputs[0][0].Get<ImageFrame>();
  ASSERT_EQ(f.Width(), 2);
  EXPECT_FLOAT_EQ(reinterpret_cast<const float*>(f.Row(0))[1], 0.75f);
}

}  // namespace
}  // namespace sluice
