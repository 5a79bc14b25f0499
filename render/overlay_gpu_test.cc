// The annotation overlay's GPU path (overlay_gpu.h): an image on the GPU, the
// annotation layer drawn on the CPU and uploaded, composited by the kernel
// into a new GPU image. Built twice: on a device (label `gpu`, skipped
// without one) and on the fake CUDA runtime (label `gpu_fake`, both execution
// orders, in CI). Checks the transfers (per frame: the image and the layer up
// once each, nothing down), that the output stays on the GPU, its pixels
// against the same maths as a CPU loop and against the CPU drawing, and the
// errors.
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/gpu/gpu_golden_test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#include "gpu/kernels/overlay.h"
#include "gpu/overlay_gpu.h"
#include "gtest/gtest.h"
#include "render/overlay_layer.h"
#include "render/testing/overlay_scene.h"

namespace sluice {
namespace {

// Integer maths: the kernel computes what the CPU loop computes.
constexpr int kKernelTolerance = 0;
// Layer composite vs the CPU drawing at antialiased edges
// (overlay_gpu_math_test: 5 levels measured).
constexpr int kCpuPathTolerance = 6;

ImageFrame Expected(const ImageFrame& image, const ImageFrame& layer) {
  ImageFrame out = *ImageFrame::Create(image.Format(), image.Width(), image.Height());
  gpu_kernels::OverlayParams p;
  p.width = image.Width();
  p.height = image.Height();
  p.channels = image.NumberOfChannels();
  p.src_pitch = image.WidthStep();
  p.layer_pitch = layer.WidthStep();
  p.dst_pitch = out.WidthStep();
  gpu_kernels::OverlayLoopU8(image.PixelData(), layer.PixelData(), out.MutablePixelData(), p);
  return out;
}

class OverlayGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto gpu = GpuResources::Create();
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    gpu_ = *gpu;
    auto upload = gpu_->Context("upload");
    auto overlay = gpu_->Context("overlay");
    ASSERT_TRUE(upload.ok() && overlay.ok());
    // Different streams, as for two nodes of a graph: the overlay must wait
    // on the image's ready event.
    upload_stream_ = (*upload)->stream();
    overlay_stream_ = (*overlay)->stream();
  }
  ImageFrame Input(ImageFormat::Format format) {
    auto f = ReadImageFile(gpu_testing::SharedTestdata("images/lenna.png"), format);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *std::move(f) : *ImageFrame::Create(format, 4, 4);
  }
  std::shared_ptr<GpuResources> gpu_;
  cudaStream_t upload_stream_ = nullptr, overlay_stream_ = nullptr;
};

TEST_F(OverlayGpuTest, KeepsTheImageOnTheGpuAndMatchesTheCpuPath) {
  for (ImageFormat::Format format : {ImageFormat::SRGB, ImageFormat::SRGBA}) {
    const ImageFrame frame = Input(format);
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(absl::StrCat(ImageFormat::Format_Name(format), " frame ", variant));
      gpu_->ResetStats();
      auto image = GpuBuffer::Upload(gpu_, frame, upload_stream_);
      ASSERT_TRUE(image.ok()) << image.status();
      auto layer = RenderAnnotationLayer(frame.Width(), frame.Height(), [variant](ImageFrame* f) {
        return overlay_testing::DrawScene(f, variant);
      });
      ASSERT_TRUE(layer.ok()) << layer.status();
      auto out = OverlayLayerGpu(**image, *layer, gpu_, overlay_stream_);
      ASSERT_TRUE(out.ok()) << out.status();
      image->reset();  // the input may go back to the pool now

      const Image result = MakeGpuImage(*out);
      EXPECT_TRUE(result.UsesGpu());
      EXPECT_FALSE(result.HasCpuView());
      EXPECT_EQ((*out)->format(), format);
      GpuTransferStats st = gpu_->Stats();
      EXPECT_EQ(st.uploads, 2);  // the image and the layer
      EXPECT_EQ(st.upload_bytes,
                static_cast<int64_t>(frame.PixelDataSize() + layer->PixelDataSize()));
      EXPECT_EQ(st.downloads, 0);

      auto cpu_view = result.CpuView();
      ASSERT_TRUE(cpu_view.ok()) << cpu_view.status();
      EXPECT_EQ(gpu_->Stats().downloads, 1);
      const gpu_testing::Diff vs_loop = gpu_testing::Compare(**cpu_view, Expected(frame, *layer));
      gpu_testing::Report("GPU overlay vs CPU loop", vs_loop);
      EXPECT_LE(vs_loop.max, kKernelTolerance);

      ImageFrame cpu = *frame.Clone();
      ASSERT_TRUE(overlay_testing::DrawScene(&cpu, variant).ok());
      const gpu_testing::Diff vs_cpu = gpu_testing::Compare(**cpu_view, cpu);
      gpu_testing::Report("GPU overlay vs CPU drawing", vs_cpu);
      EXPECT_LE(vs_cpu.max, kCpuPathTolerance);
    }
  }
}

TEST_F(OverlayGpuTest, NoDeviceAllocationsAfterWarmUp) {
  const ImageFrame frame = Input(ImageFormat::SRGB);
  auto layer = RenderAnnotationLayer(frame.Width(), frame.Height(),
                                     [](ImageFrame* f) { return overlay_testing::DrawScene(f); });
  ASSERT_TRUE(layer.ok());
  int64_t after_first = 0;
  for (int i = 0; i < 4; ++i) {
    auto image = GpuBuffer::Upload(gpu_, frame, upload_stream_);
    ASSERT_TRUE(image.ok());
    auto out = OverlayLayerGpu(**image, *layer, gpu_, overlay_stream_);
    ASSERT_TRUE(out.ok()) << out.status();
    if (i == 1) after_first = gpu_->Stats().device_allocations;
  }
  EXPECT_EQ(gpu_->Stats().device_allocations, after_first);
}

// Frames on two alternating streams, none read back until all are queued:
// each frame's layer reuses a pooled block an earlier kernel on the other
// stream may still be reading, so the pool's wait on that read matters.
TEST_F(OverlayGpuTest, FramesOnTwoStreamsKeepTheirOwnLayers) {
  const ImageFrame frame = Input(ImageFormat::SRGB);
  auto image = GpuBuffer::Upload(gpu_, frame, upload_stream_);
  ASSERT_TRUE(image.ok());
  std::vector<ImageFrame> layers;
  std::vector<std::shared_ptr<GpuBuffer>> outs;
  for (int i = 0; i < 6; ++i) {
    auto layer = RenderAnnotationLayer(frame.Width(), frame.Height(), [i](ImageFrame* f) {
      return overlay_testing::DrawScene(f, i);
    });
    ASSERT_TRUE(layer.ok());
    auto out = OverlayLayerGpu(**image, *layer, gpu_, i % 2 ? overlay_stream_ : upload_stream_);
    ASSERT_TRUE(out.ok()) << out.status();
    layers.push_back(*std::move(layer));
    outs.push_back(*std::move(out));
  }
  for (int i = 0; i < 6; ++i) {
    SCOPED_TRACE(absl::StrCat("frame ", i));
    auto got = outs[i]->Download(overlay_stream_);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(gpu_testing::Compare(*got, Expected(frame, layers[i])).max, 0);
  }
}

TEST_F(OverlayGpuTest, RejectsOtherFormatsAndLayerSizes) {
  auto gray = GpuBuffer::Upload(gpu_, Input(ImageFormat::GRAY8), upload_stream_);
  ASSERT_TRUE(gray.ok());
  auto layer = RenderAnnotationLayer((*gray)->width(), (*gray)->height(), nullptr);
  ASSERT_TRUE(layer.ok());
  EXPECT_EQ(OverlayLayerGpu(**gray, *layer, gpu_, overlay_stream_).status().code(),
            absl::StatusCode::kInvalidArgument);

  auto rgb = GpuBuffer::Upload(gpu_, Input(ImageFormat::SRGB), upload_stream_);
  ASSERT_TRUE(rgb.ok());
  auto small = RenderAnnotationLayer(8, 8, nullptr);
  ASSERT_TRUE(small.ok());
  auto bad = OverlayLayerGpu(**rgb, *small, gpu_, overlay_stream_);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("SRGBA"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace sluice
