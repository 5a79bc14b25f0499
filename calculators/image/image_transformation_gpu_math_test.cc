// ImageTransformationCalculator's GPU maths (gpu/kernels/image_transformation.h
// with the plan of image_transformation_gpu_params.h) as a CPU loop, against
// the calculator's CPU (OpenCV) path on ../shared/testdata images: every
// build, no CUDA needed (label gpu_math). Rotations, flips, padding and
// nearest sampling must match exactly. Bilinear and area resampling follow
// OpenCV's arithmetic (11-bit bilinear weights, its area tables and
// summation order, its rounding) and matched the OpenCV 4.6 build here bit
// for bit; they are held to 1 level on at most 0.1% of the bytes so that
// another OpenCV build's rounding does not fail CI. The measured differences
// are printed.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "calculators/image/image_transformation_gpu_params.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "framework/calculator_graph.h"
#include "gpu/kernels/image_transformation.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using image_transformation::FitMode;
using image_transformation::TransformSpec;

std::string Testdata(const std::string& rel) {
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(d ? d : "../shared", "/testdata/", rel);
}

std::string OptionsText(const TransformSpec& s) {
  const char* modes[] = {"STRETCH", "FIT", "FILL_AND_CROP"};
  const char* rotations[] = {"ROTATION_0", "ROTATION_90", "ROTATION_180", "ROTATION_270"};
  return absl::StrCat("options { [mediapipe.ImageTransformationCalculatorOptions.ext] { ",
                      "output_width: ", s.out_width, " output_height: ", s.out_height,
                      " rotation_mode: ", rotations[s.degrees / 90],
                      " scale_mode: ", modes[static_cast<int>(s.mode)],
                      " flip_horizontally: ", s.flip_h ? "true" : "false",
                      " flip_vertically: ", s.flip_v ? "true" : "false",
                      " constant_padding: ", s.constant_padding ? "true" : "false",
                      " padding_color { red: ", s.pad_rgb[0], " green: ", s.pad_rgb[1],
                      " blue: ", s.pad_rgb[2], " }",
                      s.nearest ? " interpolation_mode: NEAREST" : "", " } }");
}

struct Output {
  ImageFrame image;
  std::array<float, 4> padding;
};

// The CPU path: the calculator in a graph.
absl::StatusOr<Output> RunCpuPath(const ImageFrame& frame, const TransformSpec& s) {
  const std::string config = absl::StrCat(
      "input_stream: \"in\"\n"
      "node { calculator: \"ImageTransformationCalculator\" input_stream: \"IMAGE:in\" "
      "output_stream: \"IMAGE:out\" output_stream: \"LETTERBOX_PADDING:pad\" ",
      OptionsText(s), " }");
  CalculatorGraph graph;
  auto col = testing::InitGraphWithCollectors(&graph, config, {"out", "pad"});
  if (!col.ok()) return col.status();
  if (auto st = graph.StartRun({}); !st.ok()) return st;
  absl::StatusOr<ImageFrame> copy = frame.Clone();
  if (!copy.ok()) return copy.status();
  if (auto st = graph.AddPacketToInputStream(
          "in", MakePacket<ImageFrame>(*std::move(copy)).At(Timestamp(0)));
      !st.ok()) {
    return st;
  }
  if (auto st = graph.CloseAllInputStreams(); !st.ok()) return st;
  if (auto st = graph.WaitUntilDone(); !st.ok()) return st;
  if ((*col)[0]->Packets().size() != 1) return absl::InternalError("no output");
  absl::StatusOr<ImageFrame> out = (*col)[0]->Packets()[0].Get<ImageFrame>().Clone();
  if (!out.ok()) return out.status();
  return Output{*std::move(out), (*col)[1]->Packets()[0].Get<std::array<float, 4>>()};
}

// The GPU maths as a CPU loop.
absl::StatusOr<Output> RunGpuMaths(const ImageFrame& frame, const TransformSpec& s) {
  gpu_kernels::ImageTransformParams p;
  std::array<float, 4> padding;
  if (!image_transformation::PlanImageTransform(frame.Width(), frame.Height(),
                                                frame.NumberOfChannels(), s, &p, &padding)) {
    return absl::InvalidArgumentError("empty result");
  }
  absl::StatusOr<ImageFrame> out = ImageFrame::Create(frame.Format(), p.dst_width, p.dst_height);
  if (!out.ok()) return out.status();
  p.src_pitch = frame.WidthStep();
  p.dst_pitch = out->WidthStep();
  if (!gpu_kernels::ImageTransformParamsValid(p)) return absl::InternalError("invalid params");
  gpu_kernels::ImageTransformLoopU8(frame.PixelData(), p, out->MutablePixelData());
  return Output{*std::move(out), padding};
}

struct Case {
  std::string label;
  std::string file;
  ImageFormat::Format format;
  TransformSpec spec;
  int tolerance;  // max abs byte difference allowed
};

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
      {"rotate 90, keep size", "images/lenna.png", ImageFormat::SRGB,
       Spec(90, 0, 0, FitMode::kStretch), 0},
      {"rotate 180, flip h", "images/sergey.png", ImageFormat::SRGBA,
       Spec(180, 0, 0, FitMode::kStretch, true), 0},
      {"rotate 270, flip h+v", "images/dino.jpg", ImageFormat::SRGB,
       Spec(270, 0, 0, FitMode::kStretch, true, true), 0},
      {"stretch 224x224 (area, non-integer)", "images/dino.jpg", ImageFormat::SRGB,
       Spec(0, 224, 224, FitMode::kStretch), 1},
      {"stretch 200x100 (area, integer)", "images/lenna.png", ImageFormat::SRGB,
       Spec(0, 200, 100, FitMode::kStretch), 1},
      {"stretch 640x480 (linear, enlarge), rotate 90", "images/lenna.png", ImageFormat::SRGB,
       Spec(90, 640, 480, FitMode::kStretch), 1},
      {"stretch 300x700 (linear, mixed), GRAY8", "images/sergey.png", ImageFormat::GRAY8,
       Spec(0, 300, 700, FitMode::kStretch, false, true), 1},
      {"fit 256x144 rotate 90, padded colour", "images/dino.jpg", ImageFormat::SRGB,
       Spec(90, 256, 144, FitMode::kFit), 1},
      {"fit 900x500 (area), replicate, RGBA", "images/sergey.png", ImageFormat::SRGBA,
       Spec(0, 900, 500, FitMode::kFit, true), 1},
      {"fill and crop 300x200, rotate 270", "images/lenna.png", ImageFormat::SRGB,
       Spec(270, 300, 200, FitMode::kFillAndCrop), 1},
      {"fill and crop 256x256 from 2876x1699", "images/dino.jpg", ImageFormat::SRGB,
       Spec(0, 256, 256, FitMode::kFillAndCrop), 1},
  };
  cases.push_back({"stretch 150x170 rotate 90 (area), GRAY8 flip v", "images/sergey.png",
                   ImageFormat::GRAY8, Spec(90, 150, 170, FitMode::kStretch, false, true), 1});
  cases.push_back({"fit 777x333 (area), odd padding split", "images/lenna.png", ImageFormat::SRGBA,
                   Spec(180, 777, 333, FitMode::kFit, true, true), 1});
  cases.push_back({"stretch 300x300 (area, 2x2), RGBA", "images/sergey.png", ImageFormat::SRGBA,
                   Spec(0, 300, 300, FitMode::kStretch), 1});
  cases.push_back({"stretch 200x150 (area, 3x4 integer), RGBA", "images/sergey.png",
                   ImageFormat::SRGBA, Spec(0, 200, 150, FitMode::kStretch), 1});
  cases.push_back({"fit 1000x701 (linear), padded, rotate 90", "images/lenna.png",
                   ImageFormat::SRGB, Spec(90, 1000, 701, FitMode::kFit), 1});
  cases.push_back({"stretch 301x457 (linear, odd rows), GRAY8", "images/lenna.png",
                   ImageFormat::GRAY8, Spec(0, 301, 457, FitMode::kStretch, true), 1});
  cases[7].spec.pad_rgb[0] = 10;
  cases[7].spec.pad_rgb[1] = 200;
  cases[7].spec.pad_rgb[2] = 300;  // saturates to 255
  cases[8].spec.constant_padding = false;
  Case nearest = {"stretch 333x123 nearest, rotate 180", "images/lenna.png", ImageFormat::SRGB,
                  Spec(180, 333, 123, FitMode::kStretch), 0};
  nearest.spec.nearest = true;
  cases.push_back(nearest);
  Case nearest_up = {"stretch 1000x611 nearest, GRAY8", "images/lenna.png", ImageFormat::GRAY8,
                     Spec(0, 1000, 611, FitMode::kStretch), 0};
  nearest_up.spec.nearest = true;
  cases.push_back(nearest_up);
  return cases;
}

TEST(ImageTransformationGpuMathTest, CpuLoopMatchesTheCpuPath) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.label);
    absl::StatusOr<ImageFrame> frame = ReadImageFile(Testdata(c.file), c.format);
    ASSERT_TRUE(frame.ok()) << frame.status();
    absl::StatusOr<Output> cpu = RunCpuPath(*frame, c.spec);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<Output> gpu = RunGpuMaths(*frame, c.spec);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    ASSERT_EQ(gpu->image.Width(), cpu->image.Width());
    ASSERT_EQ(gpu->image.Height(), cpu->image.Height());
    EXPECT_EQ(gpu->padding, cpu->padding);
    const int ch = frame->NumberOfChannels();
    int max = 0;
    long long off = 0, over_one = 0, total = 0;
    for (int y = 0; y < cpu->image.Height(); ++y) {
      const uint8_t* a = cpu->image.Row(y);
      const uint8_t* b = gpu->image.Row(y);
      for (int i = 0; i < cpu->image.Width() * ch; ++i, ++total) {
        const int d = std::abs(a[i] - b[i]);
        max = d > max ? d : max;
        off += d > 0;
        over_one += d > 1;
      }
    }
    std::printf("%-44s %4dx%-4d max abs diff %d, bytes off: %lld, by >1: %lld, of %lld\n",
                c.label.c_str(), cpu->image.Width(), cpu->image.Height(), max, off, over_one,
                total);
    EXPECT_LE(max, c.tolerance);
    // Resampling matched OpenCV 4.6 (x86) bit for bit when measured; another
    // OpenCV build may round a few bytes differently, not many.
    EXPECT_LE(off, total / 1000);
  }
}

TEST(ImageTransformationGpuMathTest, PlanRejectsAnEmptyFit) {
  gpu_kernels::ImageTransformParams p;
  std::array<float, 4> padding;
  EXPECT_FALSE(image_transformation::PlanImageTransform(1000, 1, 3, Spec(0, 10, 10, FitMode::kFit),
                                                        &p, &padding));
}

}  // namespace
}  // namespace sluice
