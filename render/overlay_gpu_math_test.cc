// The annotation overlay's GPU maths (gpu/kernels/overlay.h) as a CPU loop vs
// the CPU path (drawing.h straight onto the image): the same annotations drawn
// onto a transparent layer (overlay_layer.h) and composited must give the CPU
// path's pixels. Untouched pixels must come out exactly; at antialiased
// edges the layer rounds its blends into itself before meeting the image, so
// a few levels of difference remain there (measured and printed here).
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/gpu/gpu_golden_test_util.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "gpu/kernels/overlay.h"
#include "gtest/gtest.h"
#include "render/overlay_layer.h"
#include "render/testing/overlay_scene.h"

namespace sluice {
namespace {

// Measured on these cases (OpenCV 4.6, x86): max abs difference 5 levels, at
// most 0.24% of a frame's bytes (flat white, 320x240) and 0.017% of all bytes
// off by more than 1; flat black is exact. Pixels no annotation touches are
// always exact. The bounds leave one level of room.
constexpr int kMaxDiff = 6;
constexpr double kMaxShareOverOne = 0.005;  // per frame

ImageFrame Composite(const ImageFrame& image, const ImageFrame& layer) {
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

ImageFrame Flat(ImageFormat::Format format, int w, int h, uint8_t v) {
  ImageFrame f = *ImageFrame::Create(format, w, h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w * f.NumberOfChannels(); ++x) f.MutableRow(y)[x] = v;
  }
  return f;
}

struct Input {
  std::string label;
  ImageFrame frame;
};

std::vector<Input> Inputs() {
  std::vector<Input> in;
  for (const char* name : {"lenna.png", "sergey.png", "dino.jpg"}) {
    for (ImageFormat::Format f : {ImageFormat::SRGB, ImageFormat::SRGBA}) {
      auto frame = ReadImageFile(gpu_testing::SharedTestdata(absl::StrCat("images/", name)), f);
      EXPECT_TRUE(frame.ok()) << frame.status();
      if (frame.ok()) {
        in.push_back({absl::StrCat(name, " ", ImageFormat::Format_Name(f)), *std::move(frame)});
      }
    }
  }
  for (uint8_t v : {0, 128, 255}) {
    in.push_back({absl::StrCat("flat ", v), Flat(ImageFormat::SRGB, 320, 240, v)});
  }
  return in;
}

TEST(OverlayGpuMathTest, LayerCompositeMatchesCpuDrawing) {
  gpu_testing::Diff all;
  for (const Input& in : Inputs()) {
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(absl::StrCat(in.label, " variant ", variant));
      ImageFrame cpu = *in.frame.Clone();
      ASSERT_TRUE(overlay_testing::DrawScene(&cpu, variant).ok());
      auto layer = RenderAnnotationLayer(
          in.frame.Width(), in.frame.Height(),
          [variant](ImageFrame* f) { return overlay_testing::DrawScene(f, variant); });
      ASSERT_TRUE(layer.ok()) << layer.status();
      const ImageFrame gpu = Composite(in.frame, *layer);

      const gpu_testing::Diff d = gpu_testing::Compare(gpu, cpu);
      gpu_testing::Report(
          absl::StrCat(in.label, " v", variant, ": layer composite vs CPU drawing").c_str(), d);
      // Pixels the annotations leave alone (coverage 0) are the input's.
      // Pixels the CPU drawing changed must be covered by the layer.
      int64_t uncovered_changed = 0, touched = 0;
      const int c = in.frame.NumberOfChannels();
      for (int y = 0; y < cpu.Height(); ++y) {
        for (int x = 0; x < cpu.Width(); ++x) {
          const uint8_t a = layer->Row(y)[x * 4 + 3];
          bool changed = false;
          for (int k = 0; k < c; ++k) {
            changed |= cpu.Row(y)[x * c + k] != in.frame.Row(y)[x * c + k];
            if (a == 0) EXPECT_EQ(gpu.Row(y)[x * c + k], in.frame.Row(y)[x * c + k]);
          }
          touched += a != 0;
          uncovered_changed += changed && a == 0;
        }
      }
      EXPECT_GT(touched, 1000);
      std::printf("  covered pixels %lld, changed by the CPU drawing but not covered %lld\n",
                  static_cast<long long>(touched), static_cast<long long>(uncovered_changed));
      EXPECT_LE(d.max, kMaxDiff);
      EXPECT_LE(static_cast<double>(d.over_one), kMaxShareOverOne * static_cast<double>(d.total));
      all.max = d.max > all.max ? d.max : all.max;
      all.over_one += d.over_one;
      all.total += d.total;
    }
  }
  gpu_testing::Report("all cases: layer composite vs CPU drawing", all);
}

TEST(OverlayGpuMathTest, EmptyLayerLeavesTheImageAlone) {
  const ImageFrame image = Flat(ImageFormat::SRGBA, 17, 5, 77);
  auto layer = RenderAnnotationLayer(17, 5, nullptr);
  ASSERT_TRUE(layer.ok());
  const ImageFrame out = Composite(image, *layer);
  EXPECT_EQ(gpu_testing::Compare(out, image).max, 0);
  for (int d = 0; d < 256; ++d) EXPECT_EQ(gpu_kernels::OverlayChannelU8(d, 0, 0), d);
}

TEST(OverlayGpuMathTest, OpaqueLayerReplacesThePixel) {
  for (int d = 0; d < 256; d += 5) {
    for (int l = 0; l < 256; l += 3) EXPECT_EQ(gpu_kernels::OverlayChannelU8(d, l, 255), l);
  }
}

TEST(OverlayGpuMathTest, RejectsBadLayerSize) {
  EXPECT_EQ(RenderAnnotationLayer(0, 4, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice
