// The shared geometry (image_to_tensor_math.h) and the CPU converter on its own.
#include "calculators/tensor/image_to_tensor_math.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/image_to_tensor_cpu.h"
#include "formats/image_frame_opencv.h"
#include "formats/image_io.h"
#include "gtest/gtest.h"
#include "opencv2/core.hpp"

namespace sluice {
namespace image_to_tensor {
namespace {

constexpr float kPi = 3.14159265358979f;

TEST(ImageToTensorMathTest, PadRoiWidensOrHeightensTowardsTheTensorAspect) {
  float pad[4];
  RotatedRect wide{10, 10, 200, 100, 0.3f};
  ASSERT_TRUE(PadRoiToAspect(64, 64, &wide, pad));
  EXPECT_FLOAT_EQ(wide.height, 200);
  EXPECT_FLOAT_EQ(wide.width, 200);
  EXPECT_FLOAT_EQ(wide.rotation, 0.3f);
  EXPECT_FLOAT_EQ(pad[0], 0);
  EXPECT_FLOAT_EQ(pad[1], 0.25f);
  EXPECT_FLOAT_EQ(pad[3], 0.25f);

  RotatedRect tall{0, 0, 50, 100, 0};
  ASSERT_TRUE(PadRoiToAspect(200, 100, &tall, pad));  // Tensor aspect 0.5.
  EXPECT_FLOAT_EQ(tall.width, 200);
  EXPECT_FLOAT_EQ(pad[0], 0.375f);
  EXPECT_FLOAT_EQ(pad[1], 0);

  RotatedRect empty{0, 0, 0, 10, 0};
  EXPECT_FALSE(PadRoiToAspect(64, 64, &empty, pad));
  EXPECT_FALSE(PadRoiToAspect(0, 64, &tall, pad));
}

TEST(ImageToTensorMathTest, PixelTransformAndMatrixDescribeTheSameMap) {
  const RotatedRect roi{40, 70, 90, 50, -0.7f};
  const int tw = 32, th = 16, iw = 100, ih = 120;
  float px[6];
  TensorToImagePixelTransform(roi, tw, th, px);
  float m[16];
  TensorToImageMatrix(roi, iw, ih, false, m);
  for (float u : {0.0f, 0.25f, 1.0f}) {
    for (float v : {0.0f, 0.5f, 1.0f}) {
      const float x = px[0] * u * tw + px[1] * v * th + px[2];
      const float y = px[3] * u * tw + px[4] * v * th + px[5];
      EXPECT_NEAR((m[0] * u + m[1] * v + m[3]) * iw, x, 1e-3);
      EXPECT_NEAR((m[4] * u + m[5] * v + m[7]) * ih, y, 1e-3);
    }
  }
  // The tensor centre is the ROI centre.
  EXPECT_NEAR(px[0] * tw / 2 + px[1] * th / 2 + px[2], 40, 1e-4);
  EXPECT_NEAR(px[3] * tw / 2 + px[4] * th / 2 + px[5], 70, 1e-4);
  // Mirroring swaps the left and right edges.
  float f[16];
  TensorToImageMatrix(roi, iw, ih, true, f);
  EXPECT_NEAR(f[0] * 0 + f[3], m[0] * 1 + m[3], 1e-6);
  EXPECT_NEAR(f[4] * 0 + f[7], m[4] * 1 + m[7], 1e-6);
}

TEST(ImageToTensorMathTest, ByteToRange) {
  const ValueTransform t = ByteToRange(-1, 1);
  EXPECT_FLOAT_EQ(0 * t.scale + t.offset, -1);
  EXPECT_FLOAT_EQ(255 * t.scale + t.offset, 1);
}

std::string DataPath(const std::string& name) {
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(d ? d : "../shared", "/testdata/image_to_tensor/", name);
}

TEST(ImageToTensorCpuTest, CubicInterpolationMatchesGolden) {
  absl::StatusOr<ImageFrame> input = ReadImageFile(DataPath("input.jpg"));
  absl::StatusOr<ImageFrame> golden =
      ReadImageFile(DataPath("medium_sub_rect_with_rotation_border_zero_interp_cubic.png"));
  ASSERT_TRUE(input.ok() && golden.ok());
  const RotatedRect roi =
      RoiFromNormalized(0.65f, 0.4f, 0.5f, 0.5f, -45 * kPi / 180, input->Width(), input->Height());
  Tensor t(Tensor::ElementType::kUInt8, {1, 256, 256, 3});
  ASSERT_TRUE(
      ConvertImageToTensor(*input, roi, 0, 255, BorderMode::kZero, Interpolation::kCubic, &t).ok());
  auto view = t.GetCpuReadView();
  cv::Mat got(256, 256, CV_8UC3, const_cast<void*>(view.data()));
  // This golden comes from MediaPipe's WarpAffineCalculator test, which
  // compares by relative L2 similarity (>= 0.99 on CPU), not by max diff:
  // cubic weights amplify the small JPEG-decoder differences.
  const double similarity = 1.0 - cv::norm(got, MatView(*golden), cv::NORM_RELATIVE | cv::NORM_L2);
  EXPECT_GE(similarity, 0.99);
  // And it really is cubic: bilinear sampling is further from it.
  Tensor linear(Tensor::ElementType::kUInt8, {1, 256, 256, 3});
  ASSERT_TRUE(
      ConvertImageToTensor(*input, roi, 0, 255, BorderMode::kZero, Interpolation::kLinear, &linear)
          .ok());
  auto lview = linear.GetCpuReadView();
  cv::Mat lin(256, 256, CV_8UC3, const_cast<void*>(lview.data()));
  EXPECT_LT(cv::norm(got, MatView(*golden), cv::NORM_L2),
            cv::norm(lin, MatView(*golden), cv::NORM_L2));
}

TEST(ImageToTensorCpuTest, RejectsMismatchedTensors) {
  absl::StatusOr<ImageFrame> rgb = ImageFrame::Create(ImageFormat::SRGB, 4, 4);
  const RotatedRect roi = FullImageRoi(4, 4);
  Tensor gray_shape(Tensor::ElementType::kFloat32, {1, 4, 4, 1});
  EXPECT_FALSE(
      ConvertImageToTensor(*rgb, roi, 0, 1, BorderMode::kZero, Interpolation::kLinear, &gray_shape)
          .ok());
  Tensor ints(Tensor::ElementType::kInt32, {1, 4, 4, 3});
  EXPECT_FALSE(
      ConvertImageToTensor(*rgb, roi, 0, 1, BorderMode::kZero, Interpolation::kLinear, &ints).ok());
  Tensor ok(Tensor::ElementType::kFloat32, {1, 4, 4, 3});
  EXPECT_FALSE(
      ConvertImageToTensor(*rgb, roi, 1, 1, BorderMode::kZero, Interpolation::kLinear, &ok).ok());
}

TEST(ImageToTensorCpuTest, ZeroBorderBecomesRangeMinAndReplicateCopiesEdges) {
  absl::StatusOr<ImageFrame> img = ImageFrame::Create(ImageFormat::GRAY8, 2, 2);
  for (int y = 0; y < 2; ++y) img->MutableRow(y)[0] = img->MutableRow(y)[1] = 255;
  // A ROI twice as large as the image: its outer ring lies outside.
  const RotatedRect roi{1, 1, 4, 4, 0};
  Tensor zero(Tensor::ElementType::kFloat32, {1, 4, 4, 1});
  ASSERT_TRUE(
      ConvertImageToTensor(*img, roi, -1, 1, BorderMode::kZero, Interpolation::kLinear, &zero)
          .ok());
  EXPECT_FLOAT_EQ(zero.GetCpuReadView().buffer<float>()[0], -1.0f);
  EXPECT_FLOAT_EQ(zero.GetCpuReadView().buffer<float>()[1 * 4 + 1], 1.0f);
  Tensor rep(Tensor::ElementType::kFloat32, {1, 4, 4, 1});
  ASSERT_TRUE(
      ConvertImageToTensor(*img, roi, -1, 1, BorderMode::kReplicate, Interpolation::kLinear, &rep)
          .ok());
  EXPECT_FLOAT_EQ(rep.GetCpuReadView().buffer<float>()[0], 1.0f);
}

}  // namespace
}  // namespace image_to_tensor
}  // namespace sluice
