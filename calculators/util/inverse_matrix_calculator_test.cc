#include <array>
#include <cmath>
#include <vector>

#include "calculators/util/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using Matrix = std::array<float, 16>;
using testing::At;
using testing::RunGraph;
using ::testing::HasSubstr;

constexpr char kGraph[] = R"(
  input_stream: "m" output_stream: "inv"
  node {
    calculator: "InverseMatrixCalculator"
    input_stream: "MATRIX:m" output_stream: "MATRIX:inv"
  })";

TEST(InverseMatrixCalculatorTest, InvertsScaleAndTranslation) {
  // x' = 2x + 1, y' = 4y + 2  =>  x = 0.5x' - 0.5, y = 0.25y' - 0.5.
  const Matrix m = {2, 0, 0, 1, 0, 4, 0, 2, 0, 0, 1, 0, 0, 0, 0, 1};
  const Matrix expected = {0.5f, 0, 0, -0.5f, 0, 0.25f, 0, -0.5f, 0, 0, 1, 0, 0, 0, 0, 1};
  auto run = RunGraph(kGraph, {{"m", At(m, 7)}}, {"inv"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_EQ(run.outputs[0][0].Timestamp(), Timestamp(7));
  const Matrix& inv = run.outputs[0][0].Get<Matrix>();
  for (int i = 0; i < 16; ++i) EXPECT_FLOAT_EQ(inv[i], expected[i]) << i;
}

TEST(InverseMatrixCalculatorTest, ProductWithRotatedRoiMatrixIsIdentity) {
  // The shape of ImageToTensorCalculator's MATRIX: a rotated, scaled ROI.
  const float c = std::cos(0.7f), s = std::sin(0.7f), a = 120, b = 90, g = 1 / 640.f,
              h = 1 / 480.f;
  const Matrix m = {a * c * g, -b * s * g, 0, (-0.5f * a * c + 0.5f * b * s + 300) * g,
                    a * s * h, b * c * h,  0, (-0.5f * b * c - 0.5f * a * s + 200) * h,
                    0,         0,          a * g, 0,
                    0,         0,          0, 1};
  auto run = RunGraph(kGraph, {{"m", At(m, 1)}}, {"inv"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const Matrix& inv = run.outputs[0][0].Get<Matrix>();
  for (int r = 0; r < 4; ++r) {
    for (int col = 0; col < 4; ++col) {
      double sum = 0;
      for (int k = 0; k < 4; ++k) sum += m[r * 4 + k] * inv[k * 4 + col];
      EXPECT_NEAR(sum, r == col ? 1.0 : 0.0, 1e-5) << r << "," << col;
    }
  }
}

TEST(InverseMatrixCalculatorTest, SingularMatrixIsAnError) {
  const Matrix m = {1, 2, 0, 0, 2, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  auto run = RunGraph(kGraph, {{"m", At(m, 1)}}, {"inv"});
  ASSERT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("InverseMatrixCalculator"));
  EXPECT_THAT(run.status.message(), HasSubstr("singular"));
}

}  // namespace
}  // namespace sluice
