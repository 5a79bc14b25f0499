// The maths of ImageToTensorCalculator's GPU path (gpu/kernels/image_to_tensor.h,
// with the parameters of image_to_tensor_gpu_params.h) run as a CPU loop, in
// every build (label gpu_math; the CI has no GPU): hand-worked samples of
// MediaPipe's GL sampling, then the loop against the CPU (OpenCV) path and
// MediaPipe's goldens (../shared/testdata/image_to_tensor, parameters from its
// README). The goldens come from MediaPipe's CPU path; the GPU sampling
// (pixel centres, no 8-bit rounding) is not the same function, so the bounds
// below are measured ones, not equality.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/image_to_tensor_cpu.h"
#include "calculators/tensor/image_to_tensor_gpu_params.h"
#include "calculators/tensor/image_to_tensor_math.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "formats/tensor.h"
#include "gpu/kernels/image_to_tensor.h"
#include "gtest/gtest.h"

namespace sluice {
namespace image_to_tensor {
namespace {

using gpu_kernels::ImageToTensorLoopF32;
using gpu_kernels::ImageToTensorParams;

constexpr float kPi = 3.14159265358979f;

// The CPU loop over `frame` (as the GPU path calls the kernel).
// The GPU path samples where the CPU path does (tensor pixel u at ROI
// position u, image pixel i at position i: the corner map of
// image_to_tensor_math.h as is). With `gl_positions`, it samples at pixel
// centres as MediaPipe's GL converter does instead (for comparison only).
std::vector<float> RunLoop(const ImageFrame& frame, const RotatedRect& roi, int tw, int th,
                           float lo, float hi, BorderMode border, bool gl_positions = false) {
  ImageToTensorParams p =
      MakeGpuParams(roi, frame.Width(), frame.Height(), frame.NumberOfChannels(), frame.WidthStep(),
                    tw, th, lo, hi, border);
  if (gl_positions) {
    float corner[6];
    TensorToImagePixelTransform(roi, tw, th, corner);
    gpu_kernels::PixelCentreTransform(corner, p.m);
  }
  std::vector<float> out(static_cast<size_t>(tw) * th * p.dst_channels, -1000.f);
  ImageToTensorLoopF32(frame.PixelData(), p, out.data());
  return out;
}

ImageFrame Gray(int w, int h, const std::vector<uint8_t>& values) {
  ImageFrame f = *ImageFrame::Create(ImageFormat::GRAY8, w, h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) f.MutableRow(y)[x] = values[y * w + x];
  }
  return f;
}

TEST(ImageToTensorGpuMathTest, SameSizeUnrotatedCopiesPixelsThroughTheRange) {
  const ImageFrame f = Gray(3, 2, {0, 51, 102, 153, 204, 255});
  const std::vector<float> out = RunLoop(f, FullImageRoi(3, 2), 3, 2, -1.f, 1.f, BorderMode::kZero);
  const float want[6] = {-1.f, -0.6f, -0.2f, 0.2f, 0.6f, 1.f};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(out[i], want[i], 1e-6f) << i;
}

TEST(ImageToTensorGpuMathTest, DownscaleSamplesWhereTheCpuPathDoes) {
  // 4x1 -> 2x1: tensor pixel u samples image x = 2u (pixel i at i), as the
  // CPU (OpenCV-style) path does: pixels 0 and 2.
  const ImageFrame f = Gray(4, 1, {0, 100, 200, 250});
  const std::vector<float> out =
      RunLoop(f, FullImageRoi(4, 1), 2, 1, 0.f, 255.f, BorderMode::kReplicate);
  EXPECT_NEAR(out[0], 0.f, 1e-4f);
  EXPECT_NEAR(out[1], 200.f, 1e-4f);
  // MediaPipe's GL positions would sample the pixel pairs' means instead.
  const std::vector<float> gl = RunLoop(f, FullImageRoi(4, 1), 2, 1, 0.f, 255.f,
                                        BorderMode::kReplicate, /*gl_positions=*/true);
  EXPECT_NEAR(gl[0], 50.f, 1e-4f);
  EXPECT_NEAR(gl[1], 225.f, 1e-4f);
}

TEST(ImageToTensorGpuMathTest, ZeroBorderBlendsIntoZeroReplicateClampsToTheEdge) {
  // A 2x1 ROI shifted half a pixel left of a 2x1 image: tensor pixel 0
  // samples image x = -0.5 (pixel index), half border, half pixel 0.
  const ImageFrame f = Gray(2, 1, {200, 100});
  const RotatedRect roi{0.5f, 0.5f, 2.f, 1.f, 0.f};
  const std::vector<float> zero = RunLoop(f, roi, 2, 1, 0.f, 255.f, BorderMode::kZero);
  const std::vector<float> edge = RunLoop(f, roi, 2, 1, 0.f, 255.f, BorderMode::kReplicate);
  EXPECT_NEAR(zero[0], 100.f, 1e-4f);  // (0 + 200) / 2
  EXPECT_NEAR(edge[0], 200.f, 1e-4f);
  EXPECT_NEAR(zero[1], 150.f, 1e-4f);  // (200 + 100) / 2
  EXPECT_NEAR(edge[1], 150.f, 1e-4f);
}

TEST(ImageToTensorGpuMathTest, RotationByNinetyDegreesTurnsTheImageAsTheCpuPathDoes) {
  // 2x2 image, whole-image ROI rotated +90 deg (clockwise on screen).
  const ImageFrame f = Gray(2, 2, {10, 20, 30, 40});
  const RotatedRect roi{1.f, 1.f, 2.f, 2.f, kPi / 2};
  for (BorderMode border : {BorderMode::kReplicate, BorderMode::kZero}) {
    const std::vector<float> out = RunLoop(f, roi, 2, 2, 0.f, 255.f, border);
    Tensor cpu(Tensor::ElementType::kFloat32, {1, 2, 2, 1});
    ASSERT_TRUE(ConvertImageToTensor(f, roi, 0.f, 255.f, border, Interpolation::kLinear, &cpu).ok());
    auto view = cpu.GetCpuReadView();
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[i], view.buffer<float>()[i], 1e-3f) << i;
  }
  // With GL positions, pixel centres map onto pixel centres: tensor (u, v)
  // shows image pixel (v, 1 - u), the content turned counter-clockwise.
  const std::vector<float> gl =
      RunLoop(f, roi, 2, 2, 0.f, 255.f, BorderMode::kReplicate, /*gl_positions=*/true);
  EXPECT_NEAR(gl[0], 20.f, 1e-3f);
  EXPECT_NEAR(gl[1], 40.f, 1e-3f);
  EXPECT_NEAR(gl[2], 10.f, 1e-3f);
  EXPECT_NEAR(gl[3], 30.f, 1e-3f);
}

TEST(ImageToTensorGpuMathTest, RgbaDropsAlphaAndFarOutsideIsBorder) {
  ImageFrame f = *ImageFrame::Create(ImageFormat::SRGBA, 1, 1);
  const uint8_t px[4] = {255, 0, 51, 7};
  std::copy(px, px + 4, f.MutableRow(0));
  const std::vector<float> out =
      RunLoop(f, FullImageRoi(1, 1), 1, 1, 0.f, 1.f, BorderMode::kReplicate);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_NEAR(out[0], 1.f, 1e-6f);
  EXPECT_NEAR(out[1], 0.f, 1e-6f);
  EXPECT_NEAR(out[2], 0.2f, 1e-6f);
  // An ROI a million pixels away: all border (zero -> range min).
  const RotatedRect far{1e6f, -1e6f, 1.f, 1.f, 0.f};
  const std::vector<float> z = RunLoop(f, far, 1, 1, -1.f, 1.f, BorderMode::kZero);
  for (float v : z) EXPECT_EQ(v, -1.f);
  const std::vector<float> r = RunLoop(f, far, 1, 1, 0.f, 1.f, BorderMode::kReplicate);
  EXPECT_NEAR(r[0], 1.f, 1e-6f);
}

TEST(ImageToTensorGpuMathTest, ParamsValidation) {
  const ImageFrame f = Gray(2, 2, {0, 0, 0, 0});
  ImageToTensorParams p =
      MakeGpuParams(FullImageRoi(2, 2), 2, 2, 1, f.WidthStep(), 2, 2, 0.f, 1.f, BorderMode::kZero);
  EXPECT_TRUE(gpu_kernels::ImageToTensorParamsValid(p));
  p.dst_channels = 3;  // 1-channel source gives 1-channel tensors
  EXPECT_FALSE(gpu_kernels::ImageToTensorParamsValid(p));
  p.dst_channels = 1;
  p.src_pitch = 1;  // shorter than a row
  EXPECT_FALSE(gpu_kernels::ImageToTensorParamsValid(p));
}

// --- Against the CPU path and MediaPipe's goldens ----------------------------

std::string DataPath(const std::string& name) {
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(d ? d : "../shared", "/testdata/image_to_tensor/", name);
}

struct GoldenCase {
  std::string name;
  ImageFormat::Format input;
  float xc, yc, w, h, rot_deg;
  int tw, th;
  bool keep_aspect;
  BorderMode border;
};

struct Stats {
  float max = 0;     // max abs difference, in 8-bit levels
  double mean = 0;   // mean abs difference, in 8-bit levels
  double over5 = 0;  // fraction of values more than 5 levels off
};

Stats Compare(const std::vector<float>& a, const std::vector<float>& b) {
  Stats s;
  int64_t over = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const float d = std::fabs(a[i] - b[i]);
    s.max = std::max(s.max, d);
    s.mean += d;
    over += d > 5.f;
  }
  s.mean /= a.size();
  s.over5 = static_cast<double>(over) / a.size();
  return s;
}

// Bounds measured with this code on these goldens (the test prints every
// case; worst values in the comments), with a little headroom.
//  * The GPU path (CPU path's sample positions): worst max 6.5 levels
//    (medium_sub_rect_with_rotation), worst mean 0.43. Above MediaPipe's 5
//    because the CPU path snaps positions to 1/32 pixel and rounds the warp
//    to 8 bits before the range mapping; this maths does neither.
//  * For comparison, MediaPipe's GL sampling positions (not used): tensor
//    pixel u sampled at its centre, u + 0.5, image pixels centred too. That
//    is a shift of (1 - scale) / 2 source pixels unrotated (3/8 pixel for the
//    4x upscaled medium_* crops) and up to a pixel with rotation: worst max
//    178.4 levels at hard edges, worst mean 12.85, worst share of values off
//    by more than 5 levels 27.1% (medium_sub_rect_keep_aspect_with_rotation).
constexpr float kSamePositionsMaxDiff = 7.f;
constexpr double kSamePositionsMeanDiff = 0.5;
constexpr float kGoldenMaxDiff = 180.f;
constexpr double kGoldenMeanDiff = 13.5;
constexpr double kGoldenOver5Share = 0.28;

TEST(ImageToTensorGpuMathTest, CpuLoopAgainstCpuPathAndMediaPipeGoldens) {
  const std::vector<GoldenCase> cases = {
      {"medium_sub_rect_keep_aspect", ImageFormat::SRGB, 0.65f, 0.4f, 0.5f, 0.5f, 0, 256, 256, true,
       BorderMode::kReplicate},
      {"medium_sub_rect_keep_aspect_border_zero", ImageFormat::SRGB, 0.65f, 0.4f, 0.5f, 0.5f, 0,
       256, 256, true, BorderMode::kZero},
      {"medium_sub_rect_keep_aspect_with_rotation", ImageFormat::SRGB, 0.65f, 0.4f, 0.5f, 0.5f, 90,
       256, 256, true, BorderMode::kReplicate},
      {"medium_sub_rect_keep_aspect_with_rotation_border_zero", ImageFormat::SRGB, 0.65f, 0.4f,
       0.5f, 0.5f, 90, 256, 256, true, BorderMode::kZero},
      {"medium_sub_rect_with_rotation", ImageFormat::SRGB, 0.65f, 0.4f, 0.5f, 0.5f, -45, 256, 256,
       false, BorderMode::kReplicate},
      {"medium_sub_rect_with_rotation_border_zero", ImageFormat::SRGB, 0.65f, 0.4f, 0.5f, 0.5f, -45,
       256, 256, false, BorderMode::kZero},
      {"large_sub_rect", ImageFormat::SRGB, 0.5f, 0.5f, 1.5f, 1.1f, 0, 128, 128, false,
       BorderMode::kReplicate},
      {"large_sub_rect_border_zero", ImageFormat::SRGB, 0.5f, 0.5f, 1.5f, 1.1f, 0, 128, 128, false,
       BorderMode::kZero},
      {"large_sub_rect_keep_aspect", ImageFormat::SRGB, 0.5f, 0.5f, 1.5f, 1.1f, 0, 128, 128, true,
       BorderMode::kReplicate},
      {"large_sub_rect_keep_aspect_border_zero", ImageFormat::SRGB, 0.5f, 0.5f, 1.5f, 1.1f, 0, 128,
       128, true, BorderMode::kZero},
      {"large_sub_rect_keep_aspect_with_rotation", ImageFormat::SRGBA, 0.5f, 0.5f, 1.5f, 1.1f, -15,
       128, 128, true, BorderMode::kReplicate},
      {"large_sub_rect_keep_aspect_with_rotation", ImageFormat::GRAY8, 0.5f, 0.5f, 1.5f, 1.1f, -15,
       128, 128, true, BorderMode::kReplicate},
      {"large_sub_rect_keep_aspect_with_rotation_border_zero", ImageFormat::SRGBA, 0.5f, 0.5f, 1.5f,
       1.1f, -15, 128, 128, true, BorderMode::kZero},
      {"noop_except_range", ImageFormat::SRGBA, 0.5f, 0.5f, 1, 1, 0, 64, 128, true,
       BorderMode::kReplicate},
      {"noop_except_range", ImageFormat::SRGB, 0.5f, 0.5f, 1, 1, 0, 64, 128, false,
       BorderMode::kZero},
  };
  float worst_max = 0, worst_same = 0, worst_vs_cpu = 0;
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.name, " ", ImageFormat::Format_Name(c.input)));
    absl::StatusOr<ImageFrame> input = ReadImageFile(DataPath("input.jpg"), c.input);
    ASSERT_TRUE(input.ok()) << input.status();
    const ImageFormat::Format golden_format =
        c.input == ImageFormat::GRAY8 ? ImageFormat::GRAY8 : ImageFormat::SRGB;
    absl::StatusOr<ImageFrame> golden = ReadImageFile(DataPath(c.name + ".png"), golden_format);
    ASSERT_TRUE(golden.ok()) << golden.status();
    ASSERT_EQ(golden->Width(), c.tw);
    ASSERT_EQ(golden->Height(), c.th);

    RotatedRect roi = RoiFromNormalized(c.xc, c.yc, c.w, c.h, c.rot_deg * kPi / 180.f,
                                        input->Width(), input->Height());
    float padding[4];
    if (c.keep_aspect) ASSERT_TRUE(PadRoiToAspect(c.tw, c.th, &roi, padding));
    // [0, 255] output: the tensor is directly in 8-bit levels.
    const std::vector<float> same_positions =
        RunLoop(*input, roi, c.tw, c.th, 0.f, 255.f, c.border);
    const std::vector<float> gpu =
        RunLoop(*input, roi, c.tw, c.th, 0.f, 255.f, c.border, /*gl_positions=*/true);

    const int ch = golden->NumberOfChannels();
    std::vector<float> gold;
    gold.reserve(gpu.size());
    for (int y = 0; y < c.th; ++y) {
      for (int i = 0; i < c.tw * ch; ++i) gold.push_back(golden->Row(y)[i]);
    }
    Tensor cpu_tensor(Tensor::ElementType::kFloat32, {1, c.th, c.tw, ch});
    ASSERT_TRUE(
        ConvertImageToTensor(*input, roi, 0.f, 255.f, c.border, Interpolation::kLinear, &cpu_tensor)
            .ok());
    auto view = cpu_tensor.GetCpuReadView();
    const std::vector<float> cpu(view.buffer<float>(),
                                 view.buffer<float>() + cpu_tensor.shape().num_elements());
    ASSERT_EQ(gpu.size(), gold.size());
    ASSERT_EQ(gpu.size(), cpu.size());

    const Stats vs_golden = Compare(gpu, gold);
    const Stats vs_cpu = Compare(gpu, cpu);
    const Stats path_vs_cpu = Compare(same_positions, cpu);
    const Stats maths_vs_golden = Compare(same_positions, gold);
    std::printf(
        "%-54s %-5s GL positions vs golden: max %5.1f mean %5.2f >5: %4.1f%%, vs CPU path: max "
        "%5.1f | GPU path (CPU positions) vs golden: max %4.1f mean %4.2f\n",
        c.name.c_str(), ImageFormat::Format_Name(c.input).c_str(), vs_golden.max, vs_golden.mean,
        100 * vs_golden.over5, vs_cpu.max, maths_vs_golden.max, maths_vs_golden.mean);
    // The GPU path reproduces MediaPipe's goldens (CPU path) within about
    // their own tolerance.
    EXPECT_LE(maths_vs_golden.max, kSamePositionsMaxDiff);
    EXPECT_LE(maths_vs_golden.mean, kSamePositionsMeanDiff);
    // ... and the CPU path's own output (one graph, either device).
    EXPECT_LE(path_vs_cpu.max, kSamePositionsMaxDiff);
    EXPECT_LE(path_vs_cpu.mean, kSamePositionsMeanDiff);
    worst_vs_cpu = std::max(worst_vs_cpu, path_vs_cpu.max);
    // With MediaPipe's GL positions: the measured bounds (not used).
    EXPECT_LE(vs_golden.max, kGoldenMaxDiff);
    EXPECT_LE(vs_golden.mean, kGoldenMeanDiff);
    EXPECT_LE(vs_golden.over5, kGoldenOver5Share);
    EXPECT_LE(vs_cpu.max, kGoldenMaxDiff);
    EXPECT_LE(vs_cpu.mean, kGoldenMeanDiff);
    worst_max = std::max(worst_max, vs_golden.max);
    worst_same = std::max(worst_same, maths_vs_golden.max);
  }
  std::printf(
      "worst max abs diff vs the goldens: GL positions %.1f, GPU path %.1f levels; GPU path vs "
      "CPU path %.1f levels\n",
      worst_max, worst_same, worst_vs_cpu);
}

// Where the sampling conventions agree (same size, no rotation, whole image)
// the two paths must agree to rounding: the CPU path rounds to 8 bits before
// the range mapping, the GPU maths does not.
TEST(ImageToTensorGpuMathTest, CpuLoopEqualsCpuPathWhereConventionsAgree) {
  absl::StatusOr<ImageFrame> input = ReadImageFile(DataPath("input.jpg"), ImageFormat::SRGB);
  ASSERT_TRUE(input.ok()) << input.status();
  const int w = input->Width(), h = input->Height();
  for (BorderMode border : {BorderMode::kZero, BorderMode::kReplicate}) {
    const RotatedRect roi = FullImageRoi(w, h);
    const std::vector<float> gpu = RunLoop(*input, roi, w, h, -1.f, 1.f, border);
    Tensor cpu_tensor(Tensor::ElementType::kFloat32, {1, h, w, 3});
    ASSERT_TRUE(
        ConvertImageToTensor(*input, roi, -1.f, 1.f, border, Interpolation::kLinear, &cpu_tensor)
            .ok());
    auto view = cpu_tensor.GetCpuReadView();
    float max = 0;
    for (size_t i = 0; i < gpu.size(); ++i) {
      max = std::max(max, std::fabs(gpu[i] - view.buffer<float>()[i]));
    }
    EXPECT_LE(max, 1e-5f);
  }
}

}  // namespace
}  // namespace image_to_tensor
}  // namespace sluice
