// SobelEdgesCalculator on the CPU path against MediaPipe's golden
// (gpu/sobel_reference.png: luminance then Sobel of images/sergey.png — the
// golden is 600x600, sergey's size; the testdata README's mention of the logo
// does not fit it). The CUDA path: gpu_image_calculators_gpu_test.
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
#include "framework/tool/graph_config_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::gpu_testing::Compare;
using ::sluice::gpu_testing::SharedTestdata;
using ::testing::HasSubstr;

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

constexpr char kChain[] = R"pb(
  input_stream: "in"
  node { calculator: "LuminanceCalculator" input_stream: "in" output_stream: "luma" }
  node { calculator: "SobelEdgesCalculator" input_stream: "luma" output_stream: "out" }
)pb";

TEST(SobelEdgesCalculatorTest, LuminanceThenSobelMatchesMediaPipeGoldenOnCpu) {
  auto input = ReadImageFile(SharedTestdata("images/sergey.png"), ImageFormat::SRGBA);
  auto golden = ReadImageFile(SharedTestdata("gpu/sobel_reference.png"), ImageFormat::SRGBA);
  ASSERT_TRUE(input.ok()) << input.status();
  ASSERT_TRUE(golden.ok()) << golden.status();
  auto out = RunOne(kChain, MakePacket<Image>(Image(std::move(*input))));
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& result = **out->Get<Image>().CpuView();
  // Tolerance: max 5 and at most 0.5% of the bytes off by more than 1. The
  // GL shader samples an 8-bit luminance texture in the GPU's own precision;
  // measured against our maths: max 5, 0.1% of bytes off by more than 1.
  gpu_testing::Diff d = Compare(result, *golden, 3);
  gpu_testing::Report("sobel vs golden (CPU)", d);
  EXPECT_LE(d.max, 5);
  EXPECT_LE(d.over_one, d.total / 200) << d.over_one << " of " << d.total;
  for (int y = 0; y < result.Height(); ++y) {
    for (int x = 0; x < result.Width(); ++x) ASSERT_EQ(result.Row(y)[4 * x + 3], 255);
  }
}

TEST(SobelEdgesCalculatorTest, MediaPipesEdgeDetectionGraphRunsUnchanged) {
  // MediaPipe's own graph (mediapipe/graphs/edge_detection), fed a CPU Image:
  // the same nodes run their CPU path and give the golden.
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  auto config = LoadGraphConfigFile(
      std::string(d ? d : "../shared") +
      "/mediapipe_graphs/mediapipe/graphs/edge_detection/edge_detection_mobile_gpu.pbtxt");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  std::vector<Packet> out;
  ASSERT_TRUE(graph
                  .ObserveOutputStream("output_video",
                                       [&](const Packet& p) {
                                         out.push_back(p);
                                         return absl::OkStatus();
                                       })
                  .ok());
  auto input = ReadImageFile(SharedTestdata("images/sergey.png"), ImageFormat::SRGBA);
  auto golden = ReadImageFile(SharedTestdata("gpu/sobel_reference.png"), ImageFormat::SRGBA);
  ASSERT_TRUE(input.ok() && golden.ok());
  ASSERT_TRUE(graph.StartRun({}).ok());
  ASSERT_TRUE(graph
                  .AddPacketToInputStream(
                      "input_video", MakePacket<Image>(Image(std::move(*input))).At(Timestamp(0)))
                  .ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  ASSERT_EQ(out.size(), 1u);
  gpu_testing::Diff diff = Compare(**out[0].Get<Image>().CpuView(), *golden, 3);
  EXPECT_LE(diff.max, 5);
  EXPECT_LE(diff.over_one, diff.total / 200);
}

TEST(SobelEdgesCalculatorTest, GrayInputGivesGrayEdges) {
  ImageFrame f = *ImageFrame::Create(ImageFormat::GRAY8, 4, 2);
  for (int y = 0; y < 2; ++y) f.MutableRow(y)[2] = f.MutableRow(y)[3] = 16;
  auto out = RunOne(R"pb(
                      input_stream: "in"
                      node {
                        calculator: "SobelEdgesCalculator"
                        input_stream: "VIDEO:in"
                        output_stream: "VIDEO:out"
                      }
                    )pb",
                    MakePacket<ImageFrame>(std::move(f)));
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& r = out->Get<ImageFrame>();
  EXPECT_EQ(r.Format(), ImageFormat::GRAY8);
  EXPECT_EQ(r.Row(0)[0], 0);
  EXPECT_EQ(r.Row(0)[1], 64);  // |gx| = 4 * 16
  EXPECT_EQ(r.Row(1)[2], 64);
  EXPECT_EQ(r.Row(1)[3], 0);
}

TEST(SobelEdgesCalculatorTest, RejectsFloatInputNamingTheNode) {
  auto out = RunOne(R"pb(
                      input_stream: "in"
                      node {
                        name: "edges"
                        calculator: "SobelEdgesCalculator"
                        input_stream: "in"
                        output_stream: "out"
                      }
                    )pb",
                    MakePacket<ImageFrame>(*ImageFrame::Create(ImageFormat::VEC32F1, 4, 4)));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("SobelEdgesCalculator (node \"edges\")"));
  EXPECT_THAT(out.status().message(), HasSubstr("VEC32F1"));
}

}  // namespace
}  // namespace sluice
