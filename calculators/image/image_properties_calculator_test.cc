#include <utility>

#include "calculators/core/testing/graph_test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Size = std::pair<int, int>;

// Runs one ImagePropertiesCalculator reading `tag`, feeding `packets` at 0, 1, ...
absl::StatusOr<std::vector<Size>> Sizes(const std::string& tag, std::vector<Packet> packets) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph,
                                   "input_stream: \"in\"\n"
                                   "node { calculator: \"ImagePropertiesCalculator\" "
                                   "input_stream: \"" + tag + ":in\" output_stream: \"SIZE:size\" }",
                                   {"size"});
  if (!c.ok()) return c.status();
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  for (size_t i = 0; i < packets.size(); ++i) {
    if (auto s = graph.AddPacketToInputStream("in", packets[i].At(Timestamp(i))); !s.ok()) return s;
  }
  if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  return (*c)[0]->Values<Size>();
}

ImageFrame Frame(int w, int h) { return *ImageFrame::Create(ImageFormat::SRGB, w, h); }

TEST(ImagePropertiesCalculatorTest, ImageFrameSizesAreWidthThenHeight) {
  auto sizes = Sizes("IMAGE", {MakePacket<ImageFrame>(Frame(64, 48)),
                               MakePacket<ImageFrame>(Frame(3, 7))});
  ASSERT_TRUE(sizes.ok()) << sizes.status();
  EXPECT_THAT(*sizes, ElementsAre(Size(64, 48), Size(3, 7)));
}

TEST(ImagePropertiesCalculatorTest, AcceptsImageOnIMAGE) {
  auto sizes = Sizes("IMAGE", {MakePacket<Image>(Image(Frame(20, 10)))});
  ASSERT_TRUE(sizes.ok()) << sizes.status();
  EXPECT_THAT(*sizes, ElementsAre(Size(20, 10)));
}

TEST(ImagePropertiesCalculatorTest, ImageCpuTakesImageFrames) {
  auto sizes = Sizes("IMAGE_CPU", {MakePacket<ImageFrame>(Frame(5, 9))});
  ASSERT_TRUE(sizes.ok()) << sizes.status();
  EXPECT_THAT(*sizes, ElementsAre(Size(5, 9)));
  // An Image is not an ImageFrame: a type error naming the stream, no crash.
  auto wrong = Sizes("IMAGE_CPU", {MakePacket<Image>(Image(Frame(5, 9)))});
  EXPECT_FALSE(wrong.ok());
}

TEST(ImagePropertiesCalculatorTest, RejectsTwoImageInputs) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph,
                                   "input_stream: \"a\" input_stream: \"b\"\n"
                                   "node { calculator: \"ImagePropertiesCalculator\" "
                                   "input_stream: \"IMAGE:a\" input_stream: \"IMAGE_CPU:b\" "
                                   "output_stream: \"SIZE:size\" }",
                                   {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("exactly one of the inputs IMAGE"));
}

}  // namespace
}  // namespace sluice
