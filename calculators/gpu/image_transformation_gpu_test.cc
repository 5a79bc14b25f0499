// ImageTransformationCalculator's CUDA path after the upload converter:
// upload -> ImageTransformation (GPU) -> an Image that stays on the GPU. Built
// twice: on a device (label `gpu`, skipped without one) and on the fake CUDA
// runtime (label `gpu_fake`, both execution orders, in CI). Checks the
// transfers (one upload per frame, no download until the output's CPU side is
// read, then one), the pixels against the same maths as a CPU loop and
// against the CPU path, and the fallbacks to the CPU path.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "calculators/gpu/gpu_calculator_test_fixture.h"
#include "calculators/gpu/gpu_golden_test_util.h"
#include "calculators/image/image_transformation_gpu_params.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "framework/calculator_graph.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#include "gpu/kernels/image_transformation.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using image_transformation::FitMode;
using image_transformation::TransformSpec;

struct Case {
  std::string label;
  ImageFormat::Format format;
  TransformSpec spec;
};

std::string Options(const TransformSpec& s) {
  const char* modes[] = {"STRETCH", "FIT", "FILL_AND_CROP"};
  const char* rotations[] = {"ROTATION_0", "ROTATION_90", "ROTATION_180", "ROTATION_270"};
  return absl::StrCat(
      "options { [mediapipe.ImageTransformationCalculatorOptions.ext] { output_width: ",
      s.out_width, " output_height: ", s.out_height, " rotation_mode: ", rotations[s.degrees / 90],
      " scale_mode: ", modes[static_cast<int>(s.mode)],
      " flip_horizontally: ", s.flip_h ? "true" : "false",
      " flip_vertically: ", s.flip_v ? "true" : "false",
      " constant_padding: ", s.constant_padding ? "true" : "false",
      " padding_color { red: ", s.pad_rgb[0], " green: ", s.pad_rgb[1], " blue: ", s.pad_rgb[2],
      " }", s.nearest ? " interpolation_mode: NEAREST" : "", " } }");
}

std::string Graph(const TransformSpec& s, bool upload) {
  return absl::StrCat(
      "input_stream: \"in\"\n",
      upload ? "node { calculator: \"ImageFrameToGpuBufferCalculator\" input_stream: \"in\" "
               "output_stream: \"img\" }\n"
             : "node { calculator: \"PassThroughCalculator\" input_stream: \"in\" "
               "output_stream: \"img\" }\n",
      "node { calculator: \"ImageTransformationCalculator\" input_stream: \"IMAGE:img\"\n"
      "  output_stream: \"IMAGE:out\" output_stream: \"LETTERBOX_PADDING:padding\"\n  ",
      Options(s), " }\n");
}

struct Outputs {
  std::vector<Packet> image, padding;
};

// Runs the graph on `frames` copies of `frame` (as Image packets), one frame
// in flight at a time.
absl::StatusOr<Outputs> RunGraph(const std::string& config, const ImageFrame& frame,
                                 const std::shared_ptr<GpuResources>& gpu, int frames = 1) {
  CalculatorGraph graph;
  auto col = testing::InitGraphWithCollectors(&graph, config, {"out", "padding"});
  if (!col.ok()) return col.status();
  if (auto s = graph.SetServiceObject(kGpuService, gpu); !s.ok()) return s;
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  for (int i = 0; i < frames; ++i) {
    absl::StatusOr<ImageFrame> copy = frame.Clone();
    if (!copy.ok()) return copy.status();
    if (auto s = graph.AddPacketToInputStream("in",
                                              MakePacket<Image>(*std::move(copy)).At(Timestamp(i)));
        !s.ok()) {
      return s;
    }
    if (auto s = graph.WaitUntilIdle(); !s.ok()) return s;
  }
  if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  return Outputs{(*col)[0]->Packets(), (*col)[1]->Packets()};
}

// The GPU maths as a CPU loop over the frame: what the kernel must produce.
ImageFrame Expected(const ImageFrame& frame, const TransformSpec& s) {
  gpu_kernels::ImageTransformParams p;
  std::array<float, 4> padding;
  EXPECT_TRUE(image_transformation::PlanImageTransform(frame.Width(), frame.Height(),
                                                       frame.NumberOfChannels(), s, &p, &padding));
  ImageFrame out = *ImageFrame::Create(frame.Format(), p.dst_width, p.dst_height);
  p.src_pitch = frame.WidthStep();
  p.dst_pitch = out.WidthStep();
  gpu_kernels::ImageTransformLoopU8(frame.PixelData(), p, out.MutablePixelData());
  return out;
}

// The kernel is the CPU loop's maths; nvcc may contract multiply-adds into
// FMAs, which can move a rounding by one level. On the fake runtime the
// "kernel" is the loop: exact.
#if SLUICE_FAKE_CUDA
constexpr int kKernelTolerance = 0;
#else
constexpr int kKernelTolerance = 1;
#endif
// The CPU path vs the GPU maths (image_transformation_gpu_math_test).
constexpr int kCpuPathTolerance = 1;

TransformSpec Spec(int degrees, int w, int h, FitMode mode, bool flip_h = false,
                   bool flip_v = false) {
  TransformSpec s;
  s.degrees = degrees;
  s.out_width = w;
  s.out_height = h;
  s.mode = mode;
  s.flip_h = flip_h;
  s.flip_v = flip_v;
  return s;
}

std::vector<Case> Cases() {
  std::vector<Case> cases = {
      {"rotate 90, flip h, keep size", ImageFormat::SRGB, Spec(90, 0, 0, FitMode::kStretch, true)},
      {"stretch 224x224 (area), RGBA", ImageFormat::SRGBA, Spec(0, 224, 224, FitMode::kStretch)},
      {"fit 256x144 rotate 270 flip v, padded", ImageFormat::SRGB,
       Spec(270, 256, 144, FitMode::kFit, false, true)},
      {"fill and crop 800x900 (linear), GRAY8", ImageFormat::GRAY8,
       Spec(180, 800, 900, FitMode::kFillAndCrop)},
      {"stretch 300x500 nearest, flip h+v", ImageFormat::SRGB,
       Spec(0, 300, 500, FitMode::kStretch, true, true)},
  };
  cases[4].spec.nearest = true;
  cases[2].spec.pad_rgb[0] = 40;
  cases[2].spec.pad_rgb[2] = 250;
  return cases;
}

class ImageTransformationGpuTest : public gpu_testing::GpuCalculatorTest {
 protected:
  ImageFrame Input(ImageFormat::Format format) {
    return ReadTestImage("images/lenna.png", format);
  }
};

TEST_F(ImageTransformationGpuTest, UploadThenGpuPathKeepsTheImageOnTheGpu) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.label);
    gpu_->ResetStats();
    const ImageFrame frame = Input(c.format);
    auto out = RunGraph(Graph(c.spec, /*upload=*/true), frame, gpu_);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->image.size(), 1u);
    const Image& image = out->image[0].Get<Image>();
    EXPECT_TRUE(image.UsesGpu());
    EXPECT_FALSE(image.HasCpuView());
    auto buffer = std::dynamic_pointer_cast<GpuBuffer>(image.GpuStorage());
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(buffer->format(), c.format);
    GpuTransferStats st = gpu_->Stats();
    EXPECT_EQ(st.uploads, 1);  // the input
    EXPECT_EQ(st.upload_bytes, static_cast<int64_t>(frame.PixelDataSize()));
    EXPECT_EQ(st.downloads, 0);

    // Reading the CPU side downloads once.
    auto cpu_view = image.CpuView();
    ASSERT_TRUE(cpu_view.ok()) << cpu_view.status();
    EXPECT_EQ(gpu_->Stats().downloads, 1);
    const ImageFrame want = Expected(frame, c.spec);
    ASSERT_EQ((*cpu_view)->Width(), want.Width());
    ASSERT_EQ((*cpu_view)->Height(), want.Height());
    const gpu_testing::Diff vs_loop = gpu_testing::Compare(**cpu_view, want);
    gpu_testing::Report(absl::StrCat(c.label, ": GPU path vs CPU loop").c_str(), vs_loop);
    EXPECT_LE(vs_loop.max, kKernelTolerance);

    // Against the CPU path, padding included.
    auto cpu_out = RunGraph(Graph(c.spec, /*upload=*/false), frame, gpu_);
    ASSERT_TRUE(cpu_out.ok()) << cpu_out.status();
    const Image& cpu_image = cpu_out->image[0].Get<Image>();
    EXPECT_FALSE(cpu_image.UsesGpu());
    auto cpu_frame = cpu_image.CpuView();
    ASSERT_TRUE(cpu_frame.ok()) << cpu_frame.status();
    const gpu_testing::Diff vs_cpu = gpu_testing::Compare(**cpu_view, **cpu_frame);
    gpu_testing::Report(absl::StrCat(c.label, ": GPU path vs CPU path").c_str(), vs_cpu);
    EXPECT_LE(vs_cpu.max, kCpuPathTolerance);
    using Padding = std::array<float, 4>;
    EXPECT_EQ(out->padding[0].Get<Padding>(), cpu_out->padding[0].Get<Padding>());
    // The CPU path ran no transfers.
    EXPECT_EQ(gpu_->Stats().uploads, 1);
    EXPECT_EQ(gpu_->Stats().downloads, 1);
  }
}

TEST_F(ImageTransformationGpuTest, SteadyStreamUploadsOncePerFrameAndNeverDownloads) {
  const Case c = Cases()[2];
  const ImageFrame frame = Input(c.format);
  constexpr int kFrames = 8;
  gpu_->ResetStats();
  auto out = RunGraph(Graph(c.spec, true), frame, gpu_, kFrames);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->image.size(), static_cast<size_t>(kFrames));
  GpuTransferStats st = gpu_->Stats();
  EXPECT_EQ(st.uploads, kFrames);
  EXPECT_EQ(st.downloads, 0);
  std::printf("%d frames: %lld device allocations, %lld uploads, %lld downloads\n", kFrames,
              static_cast<long long>(st.device_allocations), static_cast<long long>(st.uploads),
              static_cast<long long>(st.downloads));
  // The collector keeps every output alive (one block each); input blocks are
  // reused once their frame is done (+2 for the scheduler's lag).
  EXPECT_LE(st.device_allocations, kFrames + 3);
  const ImageFrame want = Expected(frame, c.spec);
  for (const Packet& p : out->image) {
    auto view = p.Get<Image>().CpuView();
    ASSERT_TRUE(view.ok()) << view.status();
    EXPECT_LE(gpu_testing::Compare(**view, want).max, kKernelTolerance);
  }
  EXPECT_EQ(gpu_->Stats().downloads, kFrames);
}

TEST_F(ImageTransformationGpuTest, StreamedRotationAndSizeMatchTheCpuPath) {
  const ImageFrame frame = Input(ImageFormat::SRGB);
  auto run = [&](bool upload) -> absl::StatusOr<Image> {
    const std::string config = absl::StrCat(
        "input_stream: \"in\"\ninput_stream: \"rot\"\ninput_stream: \"dims\"\n",
        upload ? "node { calculator: \"ImageFrameToGpuBufferCalculator\" input_stream: \"in\" "
                 "output_stream: \"img\" }\n"
               : "node { calculator: \"PassThroughCalculator\" input_stream: \"in\" "
                 "output_stream: \"img\" }\n",
        "node { calculator: \"ImageTransformationCalculator\" input_stream: \"IMAGE:img\"\n"
        "  input_stream: \"ROTATION_DEGREES:rot\" input_stream: \"OUTPUT_DIMENSIONS:dims\"\n"
        "  input_stream: \"FLIP_VERTICALLY:flip\"\n"
        "  output_stream: \"IMAGE:out\"\n  ",
        Options(Spec(0, 0, 0, FitMode::kFit)), " }\n", "input_stream: \"flip\"\n");
    CalculatorGraph graph;
    auto col = testing::InitGraphWithCollectors(&graph, config, {"out"});
    if (!col.ok()) return col.status();
    if (auto s = graph.SetServiceObject(kGpuService, gpu_); !s.ok()) return s;
    if (auto s = graph.StartRun({}); !s.ok()) return s;
    const Timestamp ts(0);
    if (auto s = graph.AddPacketToInputStream("rot", MakePacket<int>(-90).At(ts)); !s.ok())
      return s;
    if (auto s = graph.AddPacketToInputStream(
            "dims", MakePacket<std::pair<int, int>>(std::make_pair(320, 200)).At(ts));
        !s.ok()) {
      return s;
    }
    if (auto s = graph.AddPacketToInputStream("flip", MakePacket<bool>(true).At(ts)); !s.ok()) {
      return s;
    }
    absl::StatusOr<ImageFrame> copy = frame.Clone();
    if (!copy.ok()) return copy.status();
    if (auto s = graph.AddPacketToInputStream("in", MakePacket<Image>(*std::move(copy)).At(ts));
        !s.ok()) {
      return s;
    }
    if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
    if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
    if ((*col)[0]->Packets().size() != 1) return absl::InternalError("no output");
    return (*col)[0]->Packets()[0].Get<Image>();
  };
  gpu_->ResetStats();
  absl::StatusOr<Image> gpu_image = run(true);
  ASSERT_TRUE(gpu_image.ok()) << gpu_image.status();
  EXPECT_TRUE(gpu_image->UsesGpu());
  EXPECT_EQ(gpu_->Stats().downloads, 0);
  absl::StatusOr<Image> cpu_image = run(false);
  ASSERT_TRUE(cpu_image.ok()) << cpu_image.status();
  EXPECT_FALSE(cpu_image->UsesGpu());
  auto a = gpu_image->CpuView();
  auto b = cpu_image->CpuView();
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ((*a)->Width(), 320);
  ASSERT_EQ((*a)->Height(), 200);
  ASSERT_EQ((*b)->Width(), 320);
  ASSERT_EQ((*b)->Height(), 200);
  EXPECT_LE(gpu_testing::Compare(**a, **b).max, kCpuPathTolerance);
}

TEST_F(ImageTransformationGpuTest, CpuImageWithAServiceRunsTheCpuPath) {
  const Case c = Cases()[1];
  const ImageFrame frame = Input(c.format);
  gpu_->ResetStats();
  auto out = RunGraph(Graph(c.spec, false), frame, gpu_);
  ASSERT_TRUE(out.ok()) << out.status();
  const Image& image = out->image[0].Get<Image>();
  EXPECT_FALSE(image.UsesGpu());
  EXPECT_TRUE(image.HasCpuView());
  const GpuTransferStats st = gpu_->Stats();
  EXPECT_EQ(st.uploads, 0);
  EXPECT_EQ(st.downloads, 0);
}

TEST_F(ImageTransformationGpuTest, FloatGpuImageRunsTheCpuPathOnItsDownload) {
  ImageFrame frame = *ImageFrame::Create(ImageFormat::VEC32F1, 64, 48);
  for (int y = 0; y < frame.Height(); ++y) {
    float* row = reinterpret_cast<float*>(frame.MutableRow(y));
    for (int x = 0; x < frame.Width(); ++x) row[x] = 0.25f * x + y;
  }
  const TransformSpec spec = Spec(90, 0, 0, FitMode::kStretch);
  gpu_->ResetStats();
  auto out = RunGraph(Graph(spec, true), frame, gpu_);
  ASSERT_TRUE(out.ok()) << out.status();
  const GpuTransferStats st = gpu_->Stats();
  EXPECT_EQ(st.uploads, 1);
  EXPECT_EQ(st.downloads, 1);  // the input's CPU view
  auto view = out->image[0].Get<Image>().CpuView();
  ASSERT_TRUE(view.ok()) << view.status();
  ASSERT_EQ((*view)->Width(), 48);
  ASSERT_EQ((*view)->Height(), 64);
  // Counterclockwise: output (x, y) shows input (W - 1 - y, x).
  const float* row = reinterpret_cast<const float*>((*view)->Row(5));
  EXPECT_EQ(row[7], 0.25f * (64 - 1 - 5) + 7);
}

}  // namespace
}  // namespace sluice
