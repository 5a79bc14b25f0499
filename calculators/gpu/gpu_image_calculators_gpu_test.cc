// The GPU image calculators on a CUDA device (label `gpu`; the binary exits
// 77, "skipped", without one): the chain upload -> Luminance -> Sobel ->
// download against MediaPipe's goldens with the CPU path's tolerances, the
// CUDA path against the CPU path, and the transfer counter.
#include <cstdio>
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
#include "gpu/gpu_buffer.h"
#include "gmock/gmock.h"
#include "gpu/gpu_service.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::gpu_testing::Compare;
using ::sluice::gpu_testing::SharedTestdata;

constexpr char kLumaChain[] = R"pb(
  input_stream: "in"
  node { calculator: "ImageFrameToGpuBufferCalculator" input_stream: "in" output_stream: "gpu" }
  node { calculator: "LuminanceCalculator" input_stream: "gpu" output_stream: "luma" }
  node { calculator: "GpuBufferToImageFrameCalculator" input_stream: "luma" output_stream: "out" }
)pb";

constexpr char kSobelChain[] = R"pb(
  input_stream: "in"
  node { calculator: "ImageFrameToGpuBufferCalculator" input_stream: "in" output_stream: "gpu" }
  node { calculator: "LuminanceCalculator" input_stream: "VIDEO:gpu" output_stream: "VIDEO:luma" }
  node { calculator: "SobelEdgesCalculator" input_stream: "luma" output_stream: "edges" }
  node { calculator: "GpuBufferToImageFrameCalculator" input_stream: "edges" output_stream: "out" }
)pb";

constexpr char kCpuSobelChain[] = R"pb(
  input_stream: "in"
  node { calculator: "LuminanceCalculator" input_stream: "in" output_stream: "luma" }
  node { calculator: "SobelEdgesCalculator" input_stream: "luma" output_stream: "out" }
)pb";

// Runs `config` on copies of `frame` at timestamps 0..n-1 with `gpu` as the
// graph's service (when set); returns the output frames.
absl::StatusOr<std::vector<Packet>> RunGraph(const std::string& config, const ImageFrame& frame,
                                             int n, std::shared_ptr<GpuResources> gpu = nullptr) {
  CalculatorGraph graph;
  auto c = testing::InitGraphWithCollectors(&graph, config, {"out"});
  if (!c.ok()) return c.status();
  if (gpu != nullptr) {
    if (auto s = graph.SetServiceObject(kGpuService, gpu); !s.ok()) return s;
  }
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<ImageFrame> copy = frame.Clone();
    if (!copy.ok()) return copy.status();
    Packet p = MakePacket<ImageFrame>(std::move(*copy)).At(Timestamp(i));
    if (auto s = graph.AddPacketToInputStream("in", p); !s.ok()) return s;
  }
  if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  return (*c)[0]->Packets();
}

TEST(GpuImageCalculatorsTest, LuminanceOnTheGpuMatchesMediaPipeGolden) {
  auto input = ReadImageFile(SharedTestdata("gpu/googlelogo_color_272x92dp.png"),
                             ImageFormat::SRGBA);
  auto golden = ReadImageFile(SharedTestdata("gpu/googlelogo_color_272x92dp_luminance.png"),
                              ImageFormat::SRGBA);
  ASSERT_TRUE(input.ok() && golden.ok());
  gpu_testing::Premultiply(*input);  // as the golden's harness (see the util)
  auto out = RunGraph(kLumaChain, *input, 1);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  ImageFrame result = *(*out)[0].Get<ImageFrame>().Clone();
  gpu_testing::Unpremultiply(result);
  gpu_testing::Diff d = Compare(result, *golden);
  gpu_testing::Report("luminance vs golden (GPU path)", d);
  EXPECT_LE(d.max, 1) << d.over_one << " of " << d.total;  // as on the CPU path
}

TEST(GpuImageCalculatorsTest, SobelOnTheGpuMatchesMediaPipeGoldenAndTheCpuPath) {
  auto input = ReadImageFile(SharedTestdata("images/sergey.png"), ImageFormat::SRGBA);
  auto golden = ReadImageFile(SharedTestdata("gpu/sobel_reference.png"), ImageFormat::SRGBA);
  ASSERT_TRUE(input.ok() && golden.ok());
  auto gpu_out = RunGraph(kSobelChain, *input, 1);
  ASSERT_TRUE(gpu_out.ok()) << gpu_out.status();
  auto cpu_out = RunGraph(kCpuSobelChain, *input, 1);
  ASSERT_TRUE(cpu_out.ok()) << cpu_out.status();
  const ImageFrame& gpu = (*gpu_out)[0].Get<ImageFrame>();
  const ImageFrame& cpu = (*cpu_out)[0].Get<ImageFrame>();
  gpu_testing::Diff d = Compare(gpu, *golden, 3);
  gpu_testing::Report("sobel vs golden (GPU path)", d);
  EXPECT_LE(d.max, 5);                               // as on the CPU path
  EXPECT_LE(d.over_one, d.total / 200) << d.over_one << " of " << d.total;
  // Same maths; nvcc may fuse multiply-adds, so allow one step of rounding.
  gpu_testing::Diff same = Compare(gpu, cpu);
  gpu_testing::Report("sobel GPU path vs CPU path", same);
  EXPECT_LE(same.max, 1) << same.over_one << " of " << same.total;
}

TEST(GpuImageCalculatorsTest, AGpuChainUploadsAndDownloadsOncePerFrame) {
  auto gpu = GpuResources::Create();
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ImageFrame frame = *ImageFrame::Create(ImageFormat::SRGBA, 320, 240);
  constexpr int kFrames = 12;
  auto out = RunGraph(kSobelChain, frame, kFrames, *gpu);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->size(), static_cast<size_t>(kFrames));
  const GpuTransferStats st = (*gpu)->Stats();
  EXPECT_EQ(st.uploads, kFrames);
  EXPECT_EQ(st.downloads, kFrames);
  EXPECT_EQ(st.upload_bytes, int64_t{kFrames} * 320 * 240 * 4);
  EXPECT_EQ(st.download_bytes, st.upload_bytes);
}

TEST(GpuImageCalculatorsTest, PoolsStopAllocatingOnceTheyHoldWhatIsAliveAtOnce) {
  // A steady stream of equal frames, one in flight: the pools grow to the
  // number of buffers alive at once, then every frame reuses them. Which
  // packets the scheduler still holds varies from run to run, so the bound
  // is the worst case rather than an exact count: three buffers per frame
  // (upload, luminance, Sobel), for the frame being processed and the one
  // whose packets may not be released yet. Without the pool: 3 per frame.
  auto gpu = GpuResources::Create();
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  CalculatorGraph graph;
  auto c = testing::InitGraphWithCollectors(&graph, kSobelChain, {"out"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.SetServiceObject(kGpuService, *gpu).ok());
  ASSERT_TRUE(graph.StartRun({}).ok());
  constexpr int kFrames = 40;
  for (int i = 0; i < kFrames; ++i) {
    Packet p = MakePacket<ImageFrame>(*ImageFrame::Create(ImageFormat::SRGBA, 640, 480));
    ASSERT_TRUE(graph.AddPacketToInputStream("in", p.At(Timestamp(i))).ok());
    ASSERT_TRUE(graph.WaitUntilIdle().ok());
    (*c)[0]->Clear();  // let the downloaded frames go back to the pinned pool
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  const GpuTransferStats st = (*gpu)->Stats();
  EXPECT_LE(st.device_allocations, 6);
  // Staging and downloaded frames have the same size and share blocks.
  EXPECT_LE(st.pinned_allocations, 3);
  // Per live or pooled buffer a ready and a read event, plus the copies' own
  // (about 16 at most); creating them per frame would be 5 per frame.
  EXPECT_LE(st.event_creations, 20);
  EXPECT_EQ(st.uploads, kFrames);
  EXPECT_EQ(st.downloads, kFrames);
  std::printf("over %d frames: %lld cudaMalloc, %lld cudaMallocHost, %lld events created\n",
              kFrames, static_cast<long long>(st.device_allocations),
              static_cast<long long>(st.pinned_allocations),
              static_cast<long long>(st.event_creations));
}

TEST(GpuImageCalculatorsTest, MediaPipesEdgeDetectionGraphRunsOnTheGpu) {
  // MediaPipe's own graph fed a GPU Image: both nodes run CUDA kernels, the
  // output stays on the GPU until read, and the only transfers are ours.
  const char* dir = std::getenv("SLUICE_SHARED_DIR");
  auto config = LoadGraphConfigFile(
      std::string(dir ? dir : "../shared") +
      "/mediapipe_graphs/mediapipe/graphs/edge_detection/edge_detection_mobile_gpu.pbtxt");
  ASSERT_TRUE(config.ok()) << config.status();
  auto input = ReadImageFile(SharedTestdata("images/sergey.png"), ImageFormat::SRGBA);
  auto golden = ReadImageFile(SharedTestdata("gpu/sobel_reference.png"), ImageFormat::SRGBA);
  ASSERT_TRUE(input.ok() && golden.ok());
  auto gpu = GpuResources::Create();
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  ASSERT_TRUE(graph.SetServiceObject(kGpuService, *gpu).ok());
  std::vector<Packet> out;
  ASSERT_TRUE(graph.ObserveOutputStream("output_video", [&](const Packet& p) {
                     out.push_back(p);
                     return absl::OkStatus();
                   }).ok());
  ASSERT_TRUE(graph.StartRun({}).ok());
  auto buffer = GpuBuffer::Upload(*gpu, *input, (*(*gpu)->Context())->stream());
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  ASSERT_TRUE(graph.AddPacketToInputStream(
      "input_video", MakePacket<Image>(MakeGpuImage(*buffer)).At(Timestamp(0))).ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  ASSERT_EQ(out.size(), 1u);
  const Image& edges = out[0].Get<Image>();
  EXPECT_TRUE(edges.UsesGpu());
  EXPECT_FALSE(edges.HasCpuView());
  auto cpu = edges.CpuView();
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  gpu_testing::Diff d = Compare(**cpu, *golden, 3);
  EXPECT_LE(d.max, 5);
  EXPECT_LE(d.over_one, d.total / 200);
  EXPECT_EQ((*gpu)->Stats().uploads, 1);
  EXPECT_EQ((*gpu)->Stats().downloads, 1);
}

TEST(GpuImageCalculatorsTest, TheServiceIsCreatedOnlyWhenANodeAsksForIt) {
  for (bool gpu_node : {false, true}) {
    CalculatorGraph graph;
    auto c = testing::InitGraphWithCollectors(
        &graph,
        gpu_node ? "input_stream: \"in\" node { calculator: \"LuminanceCalculator\" "
                   "input_stream: \"in\" output_stream: \"out\" }"
                 : "input_stream: \"in\" node { calculator: \"PassThroughCalculator\" "
                   "input_stream: \"in\" output_stream: \"out\" }",
        {});
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_TRUE(graph.StartRun({}).ok());
    EXPECT_EQ(graph.GetServiceObject(kGpuService) != nullptr, gpu_node);
    ASSERT_TRUE(graph.CloseAllInputStreams().ok());
    ASSERT_TRUE(graph.WaitUntilDone().ok());
  }
}

// Runs `config` (stream "in" -> "out") on one packet.
absl::StatusOr<Packet> RunPacket(const std::string& config, Packet in,
                                 std::shared_ptr<GpuResources> gpu) {
  CalculatorGraph graph;
  auto c = testing::InitGraphWithCollectors(&graph, config, {"out"});
  if (!c.ok()) return c.status();
  if (auto s = graph.SetServiceObject(kGpuService, gpu); !s.ok()) return s;
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  if (auto s = graph.AddPacketToInputStream("in", std::move(in).At(Timestamp(0))); !s.ok()) {
    return s;
  }
  if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  std::vector<Packet> out = (*c)[0]->Packets();
  if (out.size() != 1) return absl::InternalError("expected one output packet");
  return out[0];
}

TEST(GpuImageCalculatorsTest, GpuAndCpuPathsAgreeForEveryFormatAndOddSizes) {
  auto gpu = GpuResources::Create();
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  cudaStream_t stream = (*(*gpu)->Context())->stream();
  struct Case {
    const char* calculator;
    ImageFormat::Format format;
  };
  for (const Case& k : {Case{"LuminanceCalculator", ImageFormat::SRGB},
                        Case{"LuminanceCalculator", ImageFormat::SRGBA},
                        Case{"SobelEdgesCalculator", ImageFormat::SRGB},
                        Case{"SobelEdgesCalculator", ImageFormat::SRGBA},
                        Case{"SobelEdgesCalculator", ImageFormat::GRAY8}}) {
    SCOPED_TRACE(std::string(k.calculator) + " " + ImageFormat::Format_Name(k.format));
    ImageFrame frame = *ImageFrame::Create(k.format, 37, 23);  // pitch != row bytes
    for (int y = 0; y < frame.Height(); ++y) {
      for (int i = 0; i < frame.RowBytes(); ++i) {
        frame.MutableRow(y)[i] = static_cast<uint8_t>((i * 37 + y * 101) % 251);
      }
    }
    const std::string config = std::string("input_stream: \"in\" node { calculator: \"") +
                               k.calculator + "\" input_stream: \"in\" output_stream: \"out\" }";
    auto cpu = RunPacket(config, MakePacket<ImageFrame>(*frame.Clone()), *gpu);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    auto buffer = GpuBuffer::Upload(*gpu, frame, stream);
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    auto on_gpu = RunPacket(config, MakePacket<Image>(MakeGpuImage(*buffer)), *gpu);
    ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
    const Image& image = on_gpu->Get<Image>();
    ASSERT_TRUE(image.UsesGpu());
    EXPECT_EQ(image.image_format(), k.format);
    auto pixels = image.CpuView();
    ASSERT_TRUE(pixels.ok()) << pixels.status();
    gpu_testing::Diff d = Compare(**pixels, cpu->Get<ImageFrame>());
    EXPECT_LE(d.max, 1);  // nvcc may fuse multiply-adds
  }
}

TEST(GpuImageCalculatorsTest, AnUnsupportedGpuImageIsAnErrorNamingTheNode) {
  auto gpu = GpuResources::Create();
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ImageFrame gray = *ImageFrame::Create(ImageFormat::GRAY8, 8, 8);
  auto buffer = GpuBuffer::Upload(*gpu, gray, (*(*gpu)->Context())->stream());
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  auto out = RunPacket(
      "input_stream: \"in\" node { name: \"luma\" calculator: \"LuminanceCalculator\" "
      "input_stream: \"in\" output_stream: \"out\" }",
      MakePacket<Image>(MakeGpuImage(*buffer)), *gpu);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), ::testing::HasSubstr("LuminanceCalculator (node \"luma\")"));
  EXPECT_THAT(out.status().message(), ::testing::HasSubstr("GRAY8"));
}

TEST(GpuImageCalculatorsTest, CpuImagesStayOnTheCpuInAGpuBuild) {
  auto gpu = GpuResources::Create();
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ImageFrame frame = *ImageFrame::Create(ImageFormat::SRGB, 16, 16);
  auto out = RunGraph(kCpuSobelChain, frame, 2, *gpu);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*gpu)->Stats().uploads, 0);
  EXPECT_EQ((*gpu)->Stats().downloads, 0);
}

}  // namespace
}  // namespace sluice
