// LuminanceCalculator on the CPU path (the CI has no GPU) against MediaPipe's
// golden, plus its port and format checks. The CUDA path is checked against
// the same golden by gpu_image_calculators_gpu_test (label `gpu`).
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "calculators/core/testing/graph_test_util.h"
#include "calculators/gpu/gpu_golden_test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::gpu_testing::Compare;
using ::sluice::gpu_testing::SharedTestdata;
using ::testing::HasSubstr;

// Runs `config` (input stream "in", output "out") on one packet.
absl::StatusOr<Packet> RunOne(const std::string& config, Packet input) {
  CalculatorGraph graph;
  auto c = testing::InitGraphWithCollectors(&graph, config, {"out"});
  if (!c.ok()) return c.status();
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  if (auto s = graph.AddPacketToInputStream("in", std::move(input).At(Timestamp(0))); !s.ok()) {
    return s;
  }
  if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  std::vector<Packet> out = (*c)[0]->Packets();
  if (out.size() != 1) return absl::InternalError("expected one output packet");
  return out[0];
}

constexpr char kGraph[] = R"pb(
  input_stream: "in"
  node { calculator: "LuminanceCalculator" input_stream: "in" output_stream: "out" }
)pb";

TEST(LuminanceCalculatorTest, MatchesMediaPipeGoldenOnCpu) {
  auto input =
      ReadImageFile(SharedTestdata("gpu/googlelogo_color_272x92dp.png"), ImageFormat::SRGBA);
  auto golden = ReadImageFile(SharedTestdata("gpu/googlelogo_color_272x92dp_luminance.png"),
                              ImageFormat::SRGBA);
  ASSERT_TRUE(input.ok()) << input.status();
  ASSERT_TRUE(golden.ok()) << golden.status();
  gpu_testing::Premultiply(*input);
  auto out = RunOne(kGraph, MakePacket<ImageFrame>(std::move(*input)));
  ASSERT_TRUE(out.ok()) << out.status();
  ImageFrame result = *out->Get<ImageFrame>().Clone();
  gpu_testing::Unpremultiply(result);
  // Tolerance 1: the golden went through 8-bit premultiply/unpremultiply
  // rounding in the harness; alpha must be exact.
  gpu_testing::Diff d = Compare(result, *golden);
  gpu_testing::Report("luminance vs golden (CPU)", d);
  EXPECT_LE(d.max, 1) << "bytes off by more than 1: " << d.over_one << " of " << d.total;
  for (int y = 0; y < result.Height(); ++y) {
    for (int x = 0; x < result.Width(); ++x) {
      ASSERT_EQ(result.Row(y)[4 * x + 3], golden->Row(y)[4 * x + 3]) << x << "," << y;
    }
  }
}

TEST(LuminanceCalculatorTest, OpaquePixelsMatchTheGoldenWithoutAlphaHandling) {
  // Where alpha is 255 premultiplication is the identity: straight input,
  // same golden, exact to the rounding of the weights.
  auto input =
      ReadImageFile(SharedTestdata("gpu/googlelogo_color_272x92dp.png"), ImageFormat::SRGBA);
  auto golden = ReadImageFile(SharedTestdata("gpu/googlelogo_color_272x92dp_luminance.png"),
                              ImageFormat::SRGBA);
  ASSERT_TRUE(input.ok() && golden.ok());
  auto out = RunOne(kGraph, MakePacket<Image>(Image(input->Clone().value())));
  ASSERT_TRUE(out.ok()) << out.status();
  const Image& image = out->Get<Image>();
  EXPECT_FALSE(image.UsesGpu());
  const ImageFrame& result = **image.CpuView();
  int opaque = 0, max_diff = 0;
  for (int y = 0; y < result.Height(); ++y) {
    for (int x = 0; x < result.Width(); ++x) {
      if (input->Row(y)[4 * x + 3] != 255) continue;
      ++opaque;
      for (int k = 0; k < 3; ++k) {
        max_diff =
            std::max(max_diff, std::abs(result.Row(y)[4 * x + k] - golden->Row(y)[4 * x + k]));
      }
    }
  }
  EXPECT_GT(opaque, 20000);
  EXPECT_LE(max_diff, 1);
}

TEST(LuminanceCalculatorTest, VideoTagAndRgbWork) {
  ImageFrame f = *ImageFrame::Create(ImageFormat::SRGB, 2, 1);
  uint8_t* p = f.MutableRow(0);
  p[0] = 255;  // red
  p[4] = 255;  // green
  auto out = RunOne(R"pb(
                      input_stream: "in"
                      node {
                        calculator: "LuminanceCalculator"
                        input_stream: "VIDEO:in"
                        output_stream: "VIDEO:out"
                      }
                    )pb",
                    MakePacket<ImageFrame>(std::move(f)));
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& r = out->Get<ImageFrame>();
  EXPECT_EQ(r.Format(), ImageFormat::SRGB);
  EXPECT_EQ(r.Row(0)[0], 54);
  EXPECT_EQ(r.Row(0)[2], 54);
  EXPECT_EQ(r.Row(0)[3], 182);
}

// GPU pixels that are not CUDA's (another backend): all pure green.
class GreenGpuStorage : public ImageGpuStorage {
 public:
  absl::Status DownloadTo(ImageFrame& dst) override {
    for (int y = 0; y < dst.Height(); ++y) {
      for (int x = 0; x < dst.Width(); ++x) dst.MutableRow(y)[3 * x + 1] = 255;
    }
    return absl::OkStatus();
  }
};

TEST(LuminanceCalculatorTest, ForeignGpuImagesAreReadThroughTheirCpuView) {
  Image image(ImageFormat::SRGB, 3, 2, std::make_shared<GreenGpuStorage>());
  auto out = RunOne(kGraph, MakePacket<Image>(image));
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& r = **out->Get<Image>().CpuView();
  EXPECT_EQ(r.Row(1)[3 * 2 + 0], 182);  // 0.7154 * 255
}

TEST(LuminanceCalculatorTest, RejectsGrayInputNamingTheNode) {
  auto out = RunOne(R"pb(
                      input_stream: "in"
                      node {
                        name: "luma"
                        calculator: "LuminanceCalculator"
                        input_stream: "in"
                        output_stream: "out"
                      }
                    )pb",
                    MakePacket<ImageFrame>(*ImageFrame::Create(ImageFormat::GRAY8, 4, 4)));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("LuminanceCalculator (node \"luma\")"));
  EXPECT_THAT(out.status().message(), HasSubstr("GRAY8"));
  EXPECT_THAT(out.status().message(), HasSubstr("SRGB or SRGBA"));
}

TEST(LuminanceCalculatorTest, RejectsMismatchedPorts) {
  CalculatorGraph graph;
  auto c = testing::InitGraphWithCollectors(
      &graph, R"pb(
        input_stream: "in"
        node { calculator: "LuminanceCalculator" input_stream: "VIDEO:in" output_stream: "out" }
      )pb",
      {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("both tagged VIDEO or both untagged"));
}

TEST(LuminanceCalculatorTest, RejectsAnEmptyImage) {
  auto out = RunOne(kGraph, MakePacket<Image>(Image()));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("empty"));
}

}  // namespace
}  // namespace sluice
