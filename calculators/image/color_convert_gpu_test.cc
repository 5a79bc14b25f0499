// ColorConvertCalculator's CUDA path after the upload converter: upload ->
// ColorConvert (GPU) -> an Image that stays on the GPU. Built twice: on a
// device (label `gpu`, skipped without one) and on the fake CUDA runtime
// (label `gpu_fake`, both execution orders, in CI). Checks, for every pair:
// one upload and no download per frame (until the output's CPU side is read,
// then one), the output a GPU-only Image of the right format, equal to the
// CPU path byte for byte (the kernel is integer maths); a chain of
// conversions that never leaves the GPU; the format error on the GPU path.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "calculators/gpu/gpu_calculator_test_fixture.h"
#include "calculators/gpu/gpu_golden_test_util.h"
#include "calculators/image/color_convert_calculator.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using color_convert::ColorConversionSpec;
using color_convert::kColorConversions;
using ::testing::HasSubstr;

// One ColorConvertCalculator node per (in tag, out tag), chained: "img" ->
// "c1" -> ... -> "out". With `upload` the graph input goes through the
// upload converter first (the GPU path), else straight in (the CPU path).
std::string Graph(const std::vector<const ColorConversionSpec*>& chain, bool upload) {
  std::string config = absl::StrCat(
      "input_stream: \"in\"\n",
      upload ? "node { calculator: \"ImageFrameToGpuBufferCalculator\" input_stream: \"in\" "
               "output_stream: \"s0\" }\n"
             : "node { calculator: \"PassThroughCalculator\" input_stream: \"in\" "
               "output_stream: \"s0\" }\n");
  for (size_t i = 0; i < chain.size(); ++i) {
    const std::string out = i + 1 == chain.size() ? "out" : absl::StrCat("s", i + 1);
    absl::StrAppend(&config, "node { name: \"convert", i,
                    "\" calculator: \"ColorConvertCalculator\" ", "input_stream: \"",
                    chain[i]->in_tag, ":s", i, "\" output_stream: \"", chain[i]->out_tag, ":", out,
                    "\" }\n");
  }
  return config;
}

// Runs `config` on `frames` (as Image packets, timestamps 0, 1, ...), one
// frame in flight at a time; returns the "out" packets.
absl::StatusOr<std::vector<Packet>> RunGraph(const std::string& config,
                                             const std::vector<ImageFrame>& frames,
                                             const std::shared_ptr<GpuResources>& gpu) {
  CalculatorGraph graph;
  auto col = testing::InitGraphWithCollectors(&graph, config, {"out"});
  if (!col.ok()) return col.status();
  if (auto s = graph.SetServiceObject(kGpuService, gpu); !s.ok()) return s;
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  for (size_t i = 0; i < frames.size(); ++i) {
    absl::StatusOr<ImageFrame> copy = frames[i].Clone();
    if (!copy.ok()) return copy.status();
    if (auto s = graph.AddPacketToInputStream(
            "in", MakePacket<Image>(*std::move(copy)).At(Timestamp(static_cast<int64_t>(i))));
        !s.ok()) {
      return s;
    }
    if (auto s = graph.WaitUntilIdle(); !s.ok()) return s;
  }
  if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  return (*col)[0]->Packets();
}

absl::StatusOr<std::vector<Packet>> RunGraph(const std::string& config, const ImageFrame& frame,
                                             const std::shared_ptr<GpuResources>& gpu) {
  std::vector<ImageFrame> frames;
  frames.push_back(*frame.Clone());
  return RunGraph(config, frames, gpu);
}

// `n` different frames made from `frame` (every byte shifted by 29 * i), so
// that a kernel reading a reused input block too late shows.
std::vector<ImageFrame> DistinctFrames(const ImageFrame& frame, int n) {
  std::vector<ImageFrame> frames;
  for (int i = 0; i < n; ++i) {
    ImageFrame f = *frame.Clone();
    for (int y = 0; y < f.Height(); ++y) {
      uint8_t* row = f.MutableRow(y);
      for (int k = 0; k < f.RowBytes(); ++k) row[k] = static_cast<uint8_t>(row[k] + 29 * i);
    }
    frames.push_back(std::move(f));
  }
  return frames;
}

const ColorConversionSpec* Find(const std::string& in_tag, const std::string& out_tag) {
  for (const ColorConversionSpec& c : kColorConversions) {
    if (in_tag == c.in_tag && out_tag == c.out_tag) return &c;
  }
  return nullptr;
}

// Bytes that differ between two frames of the same size and format.
int64_t BytesDiffering(const ImageFrame& a, const ImageFrame& b) {
  EXPECT_EQ(a.Format(), b.Format());
  EXPECT_EQ(a.Width(), b.Width());
  EXPECT_EQ(a.Height(), b.Height());
  if (a.Format() != b.Format() || a.Width() != b.Width() || a.Height() != b.Height()) return -1;
  int64_t n = 0;
  for (int y = 0; y < a.Height(); ++y) {
    for (int i = 0; i < a.RowBytes(); ++i) n += a.Row(y)[i] != b.Row(y)[i];
  }
  return n;
}

// Every output of `gpu_out` equals the CPU path's for the same frame.
void ExpectEqualFrames(const std::vector<Packet>& gpu_out, const std::vector<Packet>& cpu_out) {
  ASSERT_EQ(gpu_out.size(), cpu_out.size());
  for (size_t i = 0; i < gpu_out.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("frame ", i));
    EXPECT_EQ(gpu_out[i].Timestamp(), cpu_out[i].Timestamp());
    EXPECT_TRUE(gpu_out[i].Get<Image>().UsesGpu());
    auto a = gpu_out[i].Get<Image>().CpuView();
    auto b = cpu_out[i].Get<Image>().CpuView();
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(BytesDiffering(**a, **b), 0);
  }
}

class ColorConvertGpuTest : public gpu_testing::GpuCalculatorTest {
 protected:
  // A real image in `format` (sergey has real alpha; SBGRA relabels its RGBA
  // bytes: the conversions only move bytes).
  static ImageFrame Input(ImageFormat::Format format) {
    const ImageFormat::Format decode = format == ImageFormat::SBGRA ? ImageFormat::SRGBA : format;
    auto f = ReadImageFile(gpu_testing::SharedTestdata("images/sergey.png"), decode);
    EXPECT_TRUE(f.ok()) << f.status();
    if (!f.ok()) return *ImageFrame::Create(format, 4, 4);
    if (format == decode) return *std::move(f);
    ImageFrame out = *ImageFrame::Create(format, f->Width(), f->Height());
    for (int y = 0; y < f->Height(); ++y) std::memcpy(out.MutableRow(y), f->Row(y), f->RowBytes());
    return out;
  }
};

TEST_F(ColorConvertGpuTest, EveryPairStaysOnTheGpuAndEqualsTheCpuPath) {
  for (const ColorConversionSpec& c : kColorConversions) {
    SCOPED_TRACE(absl::StrCat(c.in_tag, " -> ", c.out_tag));
    const ImageFrame frame = Input(c.in_format);
    gpu_->ResetStats();
    auto out = RunGraph(Graph({&c}, /*upload=*/true), frame, gpu_);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 1u);
    const Image& image = (*out)[0].Get<Image>();
    EXPECT_TRUE(image.UsesGpu());
    EXPECT_FALSE(image.HasCpuView());
    EXPECT_EQ(image.image_format(), c.out_format);
    auto buffer = std::dynamic_pointer_cast<GpuBuffer>(image.GpuStorage());
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(buffer->format(), c.out_format);
    EXPECT_EQ(buffer->width(), frame.Width());
    EXPECT_EQ(buffer->height(), frame.Height());
    GpuTransferStats st = gpu_->Stats();
    EXPECT_EQ(st.uploads, 1);  // the input
    EXPECT_EQ(st.upload_bytes, static_cast<int64_t>(frame.PixelDataSize()));
    EXPECT_EQ(st.downloads, 0);

    // Reading the CPU side downloads once; the bytes are the CPU path's.
    auto gpu_view = image.CpuView();
    ASSERT_TRUE(gpu_view.ok()) << gpu_view.status();
    EXPECT_EQ(gpu_->Stats().downloads, 1);
    auto cpu_out = RunGraph(Graph({&c}, /*upload=*/false), frame, gpu_);
    ASSERT_TRUE(cpu_out.ok()) << cpu_out.status();
    const Image& cpu_image = (*cpu_out)[0].Get<Image>();
    EXPECT_FALSE(cpu_image.UsesGpu());
    auto cpu_view = cpu_image.CpuView();
    ASSERT_TRUE(cpu_view.ok()) << cpu_view.status();
    EXPECT_EQ(BytesDiffering(**gpu_view, **cpu_view), 0);
    // The CPU path ran no transfers.
    EXPECT_EQ(gpu_->Stats().uploads, 1);
    EXPECT_EQ(gpu_->Stats().downloads, 1);
  }
}

// Different frames in a row: each output is its own frame's conversion (a
// kernel that ran after its input block was reused would read the next one).
TEST_F(ColorConvertGpuTest, SteadyStreamUploadsOncePerFrameAndNeverDownloads) {
  const ColorConversionSpec* c = Find("RGB_IN", "GRAY_OUT");
  ASSERT_NE(c, nullptr);
  constexpr int kFrames = 8;
  const std::vector<ImageFrame> frames = DistinctFrames(Input(c->in_format), kFrames);
  gpu_->ResetStats();
  auto out = RunGraph(Graph({c}, true), frames, gpu_);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), static_cast<size_t>(kFrames));
  const GpuTransferStats st = gpu_->Stats();
  EXPECT_EQ(st.uploads, kFrames);
  EXPECT_EQ(st.downloads, 0);
  std::printf("%d frames: %lld device allocations, %lld uploads, %lld downloads\n", kFrames,
              static_cast<long long>(st.device_allocations), static_cast<long long>(st.uploads),
              static_cast<long long>(st.downloads));
  // The collector keeps every output alive (one block each); input blocks are
  // reused once their frame is done (+2 for the scheduler's lag).
  EXPECT_LE(st.device_allocations, kFrames + 3);
  auto cpu_out = RunGraph(Graph({c}, false), frames, gpu_);
  ASSERT_TRUE(cpu_out.ok()) << cpu_out.status();
  ExpectEqualFrames(*out, *cpu_out);
  EXPECT_EQ(gpu_->Stats().downloads, kFrames);
}

// Five GPU nodes in a row, each waiting on its producer's event: one upload
// and no download per frame, the CPU chain's bytes.
TEST_F(ColorConvertGpuTest, ChainOfConversionsNeverLeavesTheGpu) {
  const std::vector<const ColorConversionSpec*> chain = {
      Find("RGB_IN", "RGBA_OUT"), Find("RGBA_IN", "BGRA_OUT"), Find("BGRA_IN", "RGBA_OUT"),
      Find("RGBA_IN", "RGB_OUT"), Find("RGB_IN", "GRAY_OUT")};
  for (const ColorConversionSpec* c : chain) ASSERT_NE(c, nullptr);
  const std::vector<ImageFrame> frames = DistinctFrames(Input(ImageFormat::SRGB), 3);
  gpu_->ResetStats();
  auto out = RunGraph(Graph(chain, true), frames, gpu_);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ(gpu_->Stats().uploads, 3);
  EXPECT_EQ(gpu_->Stats().downloads, 0);
  auto cpu_out = RunGraph(Graph(chain, false), frames, gpu_);
  ASSERT_TRUE(cpu_out.ok()) << cpu_out.status();
  ExpectEqualFrames(*out, *cpu_out);
}

TEST_F(ColorConvertGpuTest, WrongFormatOnTheGpuNamesTheTagAndBothFormats) {
  const ImageFrame gray = Input(ImageFormat::GRAY8);
  gpu_->ResetStats();
  auto out = RunGraph(Graph({Find("RGB_IN", "RGBA_OUT")}, true), gray, gpu_);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("ColorConvertCalculator \"convert0\""));
  EXPECT_THAT(out.status().message(), HasSubstr("RGB_IN expects SRGB images, got GRAY8"));
  EXPECT_EQ(gpu_->Stats().downloads, 0);
}

}  // namespace
}  // namespace sluice
