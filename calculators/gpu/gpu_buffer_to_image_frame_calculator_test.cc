// GpuBufferToImageFrameCalculator with CPU inputs (runs everywhere): frames
// pass through, a CPU Image's frame is shared, not copied. GPU inputs:
// gpu_image_calculators_gpu_test (label `gpu`).
#include <memory>
#include <string>
#include <vector>

#include "calculators/core/testing/graph_test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<Packet> RunOne(Packet input) {
  CalculatorGraph graph;
  auto c = testing::InitGraphWithCollectors(&graph, R"pb(
                                              input_stream: "in"
                                              node {
                                                name: "download"
                                                calculator: "GpuBufferToImageFrameCalculator"
                                                input_stream: "in"
                                                output_stream: "out"
                                              }
                                            )pb",
                                            {"out"});
  if (!c.ok()) return c.status();
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  if (auto s = graph.AddPacketToInputStream("in", std::move(input).At(Timestamp(3))); !s.ok()) {
    return s;
  }
  if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  std::vector<Packet> out = (*c)[0]->Packets();
  if (out.size() != 1) return absl::InternalError("expected one output packet");
  return out[0];
}

TEST(GpuBufferToImageFrameCalculatorTest, ImageFramesPassThrough) {
  Packet in = MakePacket<ImageFrame>(*ImageFrame::Create(ImageFormat::SRGB, 5, 4));
  const ImageFrame* original = &in.Get<ImageFrame>();
  auto out = RunOne(in);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(&out->Get<ImageFrame>(), original);
  EXPECT_EQ(out->Timestamp(), Timestamp(3));
}

TEST(GpuBufferToImageFrameCalculatorTest, ACpuImageSharesItsFrame) {
  auto frame = std::make_shared<ImageFrame>(*ImageFrame::Create(ImageFormat::SRGBA, 7, 3));
  auto out = RunOne(MakePacket<Image>(Image(frame)));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(&out->Get<ImageFrame>(), frame.get());
}

// GPU pixels of another backend: every byte 42.
class FortyTwoGpuStorage : public ImageGpuStorage {
 public:
  absl::Status DownloadTo(ImageFrame& dst) override {
    for (int y = 0; y < dst.Height(); ++y) {
      for (int i = 0; i < dst.RowBytes(); ++i) dst.MutableRow(y)[i] = 42;
    }
    return absl::OkStatus();
  }
};

TEST(GpuBufferToImageFrameCalculatorTest, ForeignGpuImagesDownloadThroughTheirStorage) {
  auto out = RunOne(
      MakePacket<Image>(Image(ImageFormat::GRAY8, 4, 3, std::make_shared<FortyTwoGpuStorage>())));
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& f = out->Get<ImageFrame>();
  EXPECT_EQ(f.Width(), 4);
  EXPECT_EQ(f.Format(), ImageFormat::GRAY8);
  EXPECT_EQ(f.Row(2)[3], 42);
}

TEST(GpuBufferToImageFrameCalculatorTest, AnEmptyImageIsAnErrorNamingTheNode) {
  auto out = RunOne(MakePacket<Image>(Image()));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("GpuBufferToImageFrameCalculator (node \"download\")"));
  EXPECT_THAT(out.status().message(), HasSubstr("empty"));
}

}  // namespace
}  // namespace sluice
