// AnnotationOverlayCalculator's CUDA path after the upload converter:
// upload -> AnnotationOverlay (GPU) -> an Image that stays on the GPU. Built
// twice: on a device (label `gpu`, skipped without one) and on the fake CUDA
// runtime (label `gpu_fake`, both execution orders, in CI). Checks the
// transfers (per frame: the image and the annotation layer up once each,
// nothing down until the output's CPU side is read), the pixels against the
// CPU path of the same node, and the fallback to the CPU path.
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "calculators/gpu/gpu_calculator_test_fixture.h"
#include "calculators/gpu/gpu_golden_test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_graph.h"
#include "google/protobuf/text_format.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::mediapipe::RenderData;

// Every kind drawn without antialiasing: the layer holds opaque colour where
// the CPU path overwrites pixels, nothing elsewhere, so the composite is the
// CPU path's pixels exactly.
constexpr char kOpaqueScene[] = R"pb(
  render_annotations { rectangle { left: 10 top: 20 right: 110 bottom: 80 } thickness: 3 color { r: 255 } }
  render_annotations { rectangle { left: 0.25 top: 0.25 right: 0.5 bottom: 0.4 normalized: true rotation: 0.4 top_left_thickness: 4 } thickness: 2 color { g: 200 } }
  render_annotations { filled_rectangle { rectangle { left: 300 top: 10 right: 390 bottom: 60 rotation: 0.2 } } color { b: 250 } }
  render_annotations { rounded_rectangle { rectangle { left: 20 top: 220 right: 120 bottom: 280 } corner_radius: 10 } thickness: 2 color { r: 30 g: 60 b: 250 } }
  render_annotations { filled_rounded_rectangle { rounded_rectangle { rectangle { left: 150 top: 220 right: 250 bottom: 280 } corner_radius: 12 line_type: 8 } } color { r: 200 g: 100 } }
  render_annotations { oval { rectangle { left: 200 top: 200 right: 300 bottom: 260 rotation: 0.3 } } thickness: 2 color { g: 200 } }
  render_annotations { filled_oval { oval { rectangle { left: 250 top: 300 right: 350 bottom: 390 } } } color { r: 30 g: 60 b: 250 } }
  render_annotations { point { x: 0.5 y: 0.5 normalized: true } thickness: 4 color { r: 255 } }
  render_annotations { line { x_start: 10 y_start: 390 x_end: 390 y_end: 10 } thickness: 3 color { g: 200 } }
  render_annotations { gradient_line { x_start: 20 y_start: 350 x_end: 200 y_end: 330 color1 { r: 255 } color2 { b: 250 } } thickness: 3 }
  render_annotations { arrow { x_start: 50 y_start: 300 x_end: 150 y_end: 260 } thickness: 2 color { r: 255 } }
  render_annotations { text { display_text: "Sluice 42" left: 50 baseline: 200 font_height: 20 outline_thickness: 1 outline_color { b: 200 } } thickness: 2 color { r: 255 g: 255 b: 255 } }
  render_annotations { scribble { point { x: 10 y: 10 } point { x: 30 y: 12 } point { x: 50 y: 15 } } thickness: 2 color { g: 200 } }
)pb";

// An antialiased rounded rectangle: its edges blend into the layer first.
constexpr char kAntialiasedScene[] = R"pb(
  render_annotations { rounded_rectangle { rectangle { left: 30 top: 40 right: 330 bottom: 300 } corner_radius: 40 line_type: 16 } thickness: 3 color { r: 250 g: 250 } }
)pb";
// Layer composite vs drawing onto the image at antialiased edges
// (gpu/README.md: 5 levels measured by overlay_gpu_math_test).
constexpr int kAntialiasedTolerance = 6;

RenderData Parse(const char* text) {
  RenderData rd;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &rd));
  return rd;
}

std::string Graph(bool upload, const std::string& tag = "IMAGE", const std::string& options = "") {
  return absl::StrCat(
      "input_stream: \"in\"\ninput_stream: \"rd\"\n",
      upload ? "node { calculator: \"ImageFrameToGpuBufferCalculator\" input_stream: \"in\" "
               "output_stream: \"img\" }\n"
             : "node { calculator: \"PassThroughCalculator\" input_stream: \"in\" "
               "output_stream: \"img\" }\n",
      "node { name: \"overlay\" calculator: \"AnnotationOverlayCalculator\" input_stream: \"", tag,
      ":img\" input_stream: \"rd\" output_stream: \"", tag, ":out\" ",
      options.empty() ? ""
                      : absl::StrCat("options { [mediapipe.AnnotationOverlayCalculatorOptions.ext] "
                                     "{ ",
                                     options, " } }"),
      " }\n");
}

// Runs `frames` copies of `frame` (as Image packets) with `rd`, one frame in
// flight at a time; returns the output packets.
absl::StatusOr<std::vector<Packet>> RunGraph(const std::string& config, const ImageFrame& frame,
                                             const RenderData& rd,
                                             const std::shared_ptr<GpuResources>& gpu,
                                             int frames = 1) {
  CalculatorGraph graph;
  auto col = testing::InitGraphWithCollectors(&graph, config, {"out"});
  if (!col.ok()) return col.status();
  if (auto s = graph.SetServiceObject(kGpuService, gpu); !s.ok()) return s;
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  for (int i = 0; i < frames; ++i) {
    absl::StatusOr<ImageFrame> copy = frame.Clone();
    if (!copy.ok()) return copy.status();
    if (auto s = graph.AddPacketToInputStream("rd", MakePacket<RenderData>(rd).At(Timestamp(i)));
        !s.ok()) {
      return s;
    }
    if (auto s = graph.AddPacketToInputStream("in",
                                              MakePacket<Image>(*std::move(copy)).At(Timestamp(i)));
        !s.ok()) {
      return s;
    }
    if (auto s = graph.WaitUntilIdle(); !s.ok()) return s;
  }
  if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  return (*col)[0]->Packets();
}

class AnnotationOverlayGpuTest : public gpu_testing::GpuCalculatorTest {
 protected:
  ImageFrame Input(ImageFormat::Format format) {
    return ReadTestImage("images/lenna.png", format);
  }
  // The CPU path of the same node on the same frame.
  ImageFrame CpuPath(const ImageFrame& frame, const RenderData& rd) {
    auto out = RunGraph(Graph(false), frame, rd, gpu_);
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok() || out->size() != 1) return *ImageFrame::Create(frame.Format(), 1, 1);
    EXPECT_FALSE((*out)[0].Get<Image>().UsesGpu());
    return *(**(*out)[0].Get<Image>().CpuView()).Clone();
  }
};

TEST_F(AnnotationOverlayGpuTest, UploadThenGpuPathKeepsTheImageOnTheGpu) {
  struct Case {
    const char* scene;
    int tolerance;
  };
  for (ImageFormat::Format format : {ImageFormat::SRGB, ImageFormat::SRGBA}) {
    for (const Case& c : {Case{kOpaqueScene, 0}, Case{kAntialiasedScene, kAntialiasedTolerance}}) {
      SCOPED_TRACE(absl::StrCat(ImageFormat::Format_Name(format), " tolerance ", c.tolerance));
      const ImageFrame frame = Input(format);
      const RenderData rd = Parse(c.scene);
      const ImageFrame cpu = CpuPath(frame, rd);
      gpu_->ResetStats();
      auto out = RunGraph(Graph(true), frame, rd, gpu_);
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_EQ(out->size(), 1u);
      const Image& image = (*out)[0].Get<Image>();
      EXPECT_TRUE(image.UsesGpu());
      EXPECT_FALSE(image.HasCpuView());
      auto buffer = std::dynamic_pointer_cast<GpuBuffer>(image.GpuStorage());
      ASSERT_NE(buffer, nullptr);
      EXPECT_EQ(buffer->format(), format);
      const GpuTransferStats st = gpu_->Stats();
      EXPECT_EQ(st.uploads, 2);  // the image and the layer
      EXPECT_EQ(st.upload_bytes, static_cast<int64_t>(frame.PixelDataSize()) +
                                     4LL * frame.Width() * frame.Height());
      EXPECT_EQ(st.downloads, 0);

      auto view = image.CpuView();
      ASSERT_TRUE(view.ok()) << view.status();
      EXPECT_EQ(gpu_->Stats().downloads, 1);
      const gpu_testing::Diff d = gpu_testing::Compare(**view, cpu);
      gpu_testing::Report("GPU path vs CPU path", d);
      EXPECT_LE(d.max, c.tolerance);
      // The annotations are there at all.
      EXPECT_GT(gpu_testing::Compare(**view, frame).max, 100);
    }
  }
}

TEST_F(AnnotationOverlayGpuTest, SteadyStreamUploadsTwicePerFrameAndNeverDownloads) {
  const ImageFrame frame = Input(ImageFormat::SRGB);
  const RenderData rd = Parse(kOpaqueScene);
  constexpr int kFrames = 6;
  gpu_->ResetStats();
  auto out = RunGraph(Graph(true, "IMAGE_GPU"), frame, rd, gpu_, kFrames);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), static_cast<size_t>(kFrames));
  const GpuTransferStats st = gpu_->Stats();
  EXPECT_EQ(st.uploads, 2 * kFrames);
  EXPECT_EQ(st.downloads, 0);
  std::printf("%d frames: %lld device allocations, %lld uploads, %lld downloads\n", kFrames,
              static_cast<long long>(st.device_allocations), static_cast<long long>(st.uploads),
              static_cast<long long>(st.downloads));
  const ImageFrame cpu = CpuPath(frame, rd);
  for (size_t i = 0; i < out->size(); ++i) {
    EXPECT_EQ((*out)[i].Timestamp(), Timestamp(static_cast<int64_t>(i)));
    auto view = (*out)[i].Get<Image>().CpuView();
    ASSERT_TRUE(view.ok()) << view.status();
    EXPECT_EQ(gpu_testing::Compare(**view, cpu).max, 0);
  }
}

TEST_F(AnnotationOverlayGpuTest, EmptyRenderDataLeavesTheGpuImageUnchanged) {
  const ImageFrame frame = Input(ImageFormat::SRGB);
  gpu_->ResetStats();
  auto out = RunGraph(Graph(true), frame, RenderData(), gpu_);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ(gpu_->Stats().downloads, 0);
  auto view = (*out)[0].Get<Image>().CpuView();
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(gpu_testing::Compare(**view, frame).max, 0);
}

TEST_F(AnnotationOverlayGpuTest, ScaledLayerCoversTheImage) {
  // gpu_scale_factor 0.5: the layer is drawn at half size and scaled up, so
  // a big fill keeps its exact colour inside; the output keeps the input size.
  const ImageFrame frame = Input(ImageFormat::SRGB);
  const RenderData rd = Parse(
      "render_annotations { filled_rectangle { rectangle { left: 100 top: 100 right: 300 "
      "bottom: 300 } } color { r: 10 g: 20 b: 30 } }");
  gpu_->ResetStats();
  auto out = RunGraph(Graph(true, "IMAGE", "gpu_scale_factor: 0.5"), frame, rd, gpu_);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ(gpu_->Stats().uploads, 2);
  auto view = (*out)[0].Get<Image>().CpuView();
  ASSERT_TRUE(view.ok()) << view.status();
  ASSERT_EQ((*view)->Width(), frame.Width());
  ASSERT_EQ((*view)->Height(), frame.Height());
  // Pixel coordinates scale with the layer: the fill is at the same place.
  const uint8_t* inside = (*view)->Row(200) + 200 * 3;
  EXPECT_EQ(inside[0], 10);
  EXPECT_EQ(inside[1], 20);
  EXPECT_EQ(inside[2], 30);
  const uint8_t* outside = (*view)->Row(50) + 50 * 3;
  const uint8_t* original = frame.Row(50) + 50 * 3;
  EXPECT_EQ(outside[0], original[0]);
}

TEST_F(AnnotationOverlayGpuTest, Gray8GpuImageTakesTheCpuPathThroughOneDownload) {
  const ImageFrame frame = Input(ImageFormat::GRAY8);
  const RenderData rd = Parse(kOpaqueScene);
  gpu_->ResetStats();
  auto out = RunGraph(Graph(true), frame, rd, gpu_);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ(gpu_->Stats().uploads, 1);
  EXPECT_EQ(gpu_->Stats().downloads, 1);
  const Image& image = (*out)[0].Get<Image>();
  EXPECT_FALSE(image.UsesGpu());
  auto view = image.CpuView();
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ((*view)->Format(), ImageFormat::SRGB);
  EXPECT_EQ(gpu_testing::Compare(**view, CpuPath(frame, rd)).max, 0);
}

TEST_F(AnnotationOverlayGpuTest, BadAnnotationOnTheGpuPathNamesTheNode) {
  const ImageFrame frame = Input(ImageFormat::SRGB);
  auto out = RunGraph(Graph(true), frame,
                      Parse("render_annotations { text { display_text: \"x\" font_face: 12 } }"),
                      gpu_);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("\"overlay\""), std::string::npos) << out.status();
  EXPECT_NE(out.status().message().find("font_face"), std::string::npos) << out.status();
}

}  // namespace
}  // namespace sluice
