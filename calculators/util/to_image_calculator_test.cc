#include <memory>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using testing::At;
using testing::RunGraph;

constexpr char kGraph[] = R"(
  input_stream: "in"
  output_stream: "out"
  node {
    calculator: "ToImageCalculator"
    input_stream: "IMAGE:in"
    output_stream: "IMAGE:out"
  })";

ImageFrame Frame(int width, int height, uint8_t value) {
  ImageFrame frame = *ImageFrame::Create(ImageFormat::SRGB, width, height);
  for (int y = 0; y < height; ++y) {
    uint8_t* row = frame.MutablePixelData() + y * frame.WidthStep();
    for (int x = 0; x < width * 3; ++x) row[x] = static_cast<uint8_t>(value + x);
  }
  return frame;
}

TEST(ToImageCalculatorTest, WrapsImageFrameWithoutCopying) {
  Packet in = MakePacket<ImageFrame>(Frame(4, 3, 10)).At(Timestamp(5));
  const ImageFrame* pixels = &in.Get<ImageFrame>();
  auto run = RunGraph(kGraph, {{"in", in}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_EQ(run.outputs[0][0].Timestamp(), Timestamp(5));
  const Image& image = run.outputs[0][0].Get<Image>();
  EXPECT_EQ(image.width(), 4);
  EXPECT_EQ(image.height(), 3);
  EXPECT_EQ(image.image_format(), ImageFormat::SRGB);
  auto view = image.CpuView();
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->get(), pixels);
  EXPECT_EQ((*view)->PixelData()[2], 12);
}

TEST(ToImageCalculatorTest, PassesImagesThrough) {
  Image image(Frame(2, 2, 0));
  auto run = RunGraph(kGraph, {{"in", At(image, 1)}, {"in", At(Image(Frame(3, 1, 0)), 2)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 2u);
  EXPECT_EQ(run.outputs[0][0].Get<Image>().CpuView()->get(), image.CpuView()->get());
  EXPECT_EQ(run.outputs[0][1].Get<Image>().width(), 3);
}

TEST(ToImageCalculatorTest, AcceptsImageCpuAndRejectsGlInputs) {
  constexpr char kCpu[] = R"(
    input_stream: "in" output_stream: "out"
    node { calculator: "ToImageCalculator" input_stream: "IMAGE_CPU:in" output_stream: "IMAGE:out" })";
  auto run = RunGraph(kCpu, {{"in", At(Frame(2, 2, 1), 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.outputs[0][0].Get<Image>().width(), 2);

  constexpr char kGpu[] = R"(
    input_stream: "in" output_stream: "out"
    node { calculator: "ToImageCalculator" input_stream: "IMAGE_GPU:in" output_stream: "IMAGE:out" })";
  auto gpu = RunGraph(kGpu, {}, {"out"});
  EXPECT_FALSE(gpu.status.ok());
  EXPECT_NE(gpu.status.message().find("IMAGE_GPU"), std::string::npos) << gpu.status;
}

TEST(ToImageCalculatorTest, RejectsOtherPayloads) {
  auto run = RunGraph(kGraph, {{"in", At(42, 1)}}, {"out"});
  EXPECT_FALSE(run.status.ok());
}

}  // namespace
}  // namespace sluice
