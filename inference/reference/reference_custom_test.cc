// MediaPipe custom ops on cases with known geometry.
#include <cmath>
#include <numeric>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/testing/graph_builder.h"
#include "inference/testing/run_graph.h"

namespace sluice::inference {
namespace {

using ir::OpType;
using ::testing::FloatNear;
using testing::GraphBuilder;
using ::testing::Pointwise;
using testing::RunGraph;

// Landmarks [1,N,3]; subset = all four box corners; rotation from points 0->1.
std::vector<float> Matrix(const std::vector<float>& landmarks, float scale) {
  const int n = static_cast<int>(landmarks.size() / 3);
  GraphBuilder b;
  const int x = b.Input({1, n, 3});
  const int y = b.Tensor({1, 4, 4});
  ir::LandmarksToTransformMatrixOptions o;
  o.subset_idxs = {0, 1, 2, 3};
  o.left_rotation_idx = 0;
  o.right_rotation_idx = 1;
  o.output_width = o.output_height = 16;
  o.scale_x = o.scale_y = scale;
  b.Op(OpType::kLandmarksToTransformMatrix, {x}, {y}, o);
  b.Output(y);
  auto r = RunGraph(b.Build(), {landmarks});
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? (*r)[0] : std::vector<float>(16);
}

TEST(LandmarksToTransformMatrixTest, AxisAlignedBoxMapsOutputGridOntoBox) {
  // Box x 0..10, y 0..20, no rotation: output (u, v) -> (u * 10/16, v * 20/16).
  const std::vector<float> m = Matrix({0, 0, 0, 10, 0, 0, 0, 20, 0, 10, 20, 0}, 1.0f);
  EXPECT_THAT(m, Pointwise(FloatNear(1e-5f), std::vector<float>{10.f / 16, 0, 0, 0,  //
                                                                0, 20.f / 16, 0, 0,  //
                                                                0, 0, 1, 0,          //
                                                                0, 0, 0, 1}));
  // scale 2 grows the crop around the box centre (5, 10).
  const std::vector<float> m2 = Matrix({0, 0, 0, 10, 0, 0, 0, 20, 0, 10, 20, 0}, 2.0f);
  EXPECT_NEAR(m2[0] * 8 + m2[3], 5, 1e-5);
  EXPECT_NEAR(m2[5] * 8 + m2[7], 10, 1e-5);
  EXPECT_NEAR(m2[3], -5, 1e-5);
}

TEST(LandmarksToTransformMatrixTest, RotatedPairRotatesTheCrop) {
  // Rotation points go straight down (0,0)->(0,10): angle +90 deg, so the crop is
  // rotated by +90 deg: output x axis maps to input +y.
  const std::vector<float> m = Matrix({0, 0, 0, 0, 10, 0, 4, 0, 0, 4, 10, 0}, 1.0f);
  // In the rotated frame the box is 10 wide (along y) and 4 high (along x).
  EXPECT_NEAR(m[0], 0, 1e-5);
  EXPECT_NEAR(m[4], 10.f / 16, 1e-5);
  EXPECT_NEAR(m[1], -4.f / 16, 1e-5);
  EXPECT_NEAR(m[5], 0, 1e-5);
  // Output centre (8,8) lands on the box centre (2,5).
  EXPECT_NEAR(m[0] * 8 + m[1] * 8 + m[3], 2, 1e-4);
  EXPECT_NEAR(m[4] * 8 + m[5] * 8 + m[7], 5, 1e-4);
}

TEST(TransformLandmarksTest, AppliesTheAffinePartToXY) {
  GraphBuilder b;
  const int x = b.Input({1, 2, 2});
  const int m = b.Input({1, 4, 4});
  const int y = b.Tensor({1, 2, 2});
  b.Op(OpType::kTransformLandmarks, {x, m}, {y});
  b.Output(y);
  const std::vector<float> mat = {2, 0, 0, 1, 0, 3, 0, -1, 0, 0, 1, 0, 0, 0, 0, 1};
  auto r = RunGraph(b.Build(), {{1, 1, 2, 5}, mat});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT((*r)[0], Pointwise(FloatNear(1e-6f), std::vector<float>{3, 2, 5, 14}));
}

std::vector<float> Warp(const std::vector<float>& mat, const std::vector<float>& image) {
  GraphBuilder b;
  const int x = b.Input({1, 4, 4, 1});
  const int m = b.Input({1, 4, 4});
  const int y = b.Tensor({1, 4, 4, 1});
  b.Op(OpType::kTransformTensorBilinear, {x, m}, {y}, ir::TransformTensorBilinearOptions{4, 4});
  b.Output(y);
  auto r = RunGraph(b.Build(), {image, mat});
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? (*r)[0] : std::vector<float>{};
}

TEST(TransformTensorBilinearTest, IdentityCopiesAndHalfScaleSamplesPixelCentres) {
  std::vector<float> img(16);
  std::iota(img.begin(), img.end(), 0.0f);
  EXPECT_THAT(Warp({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, img),
              Pointwise(FloatNear(1e-6f), img));
  // Scale 0.5 about pixel centres: x_src = 0.5 * x - 0.25, row 0 y_src = -0.25 -> outside -> 0.
  const std::vector<float> half = Warp({0.5f, 0, 0, 0, 0, 0.5f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, img);
  for (int x = 0; x < 4; ++x) EXPECT_EQ(half[x], 0.0f);
  // Row 1: y_src = .25 -> between rows 0 and 1; column 1: x_src = .25.
  // value = img(0.25, 0.25) = 0.25 * 4 + 0.25 = 1.25.
  EXPECT_NEAR(half[4 + 1], 1.25f, 1e-5);
}

}  // namespace
}  // namespace sluice::inference
