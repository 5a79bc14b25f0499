// Reference kernels on small cases whose expected values are worked out by
// hand in the comments (TF conventions: SAME pads total/2 before, average
// pooling ignores padding taps, ...).
#include "inference/reference/reference_kernels.h"

#include <cmath>
#include <numeric>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/testing/graph_builder.h"
#include "inference/testing/run_graph.h"

namespace sluice::inference {
namespace {

using ir::Activation;
using ir::OpType;
using ir::Padding;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::FloatNear;
using testing::GraphBuilder;
using ::testing::HasSubstr;
using ::testing::Pointwise;
using testing::RunGraph;

std::vector<float> Iota(int n, float start = 0) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

std::vector<float> Run1(const ir::Graph& g, const std::vector<std::vector<float>>& in) {
  auto r = RunGraph(g, in);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? (*r)[0] : std::vector<float>{};
}

TEST(ConvTest, SamePaddingPutsTheOddPadAfter) {
  // 4x4 input 0..15, 3x3 ones, stride 2, SAME: out 2x2, total pad 1 -> 0 before, 1 after.
  GraphBuilder b;
  const int x = b.Input({1, 4, 4, 1});
  const int w = b.Const({1, 3, 3, 1}, std::vector<float>(9, 1.0f));
  const int y = b.Tensor({1, 2, 2, 1});
  b.Op(OpType::kConv2D, {x, w, -1}, {y},
       ir::Conv2DOptions{Padding::kSame, 2, 2, 1, 1, Activation::kNone});
  b.Output(y);
  // rows/cols 0-2: 0+1+2+4+5+6+8+9+10 = 45; cols 2-3: 2+3+6+7+10+11 = 39;
  // rows 2-3: 8+9+10+12+13+14 = 66; both: 10+11+14+15 = 50.
  EXPECT_THAT(Run1(b.Build(), {Iota(16)}), ElementsAre(45, 39, 66, 50));
}

TEST(ConvTest, PointwiseWithBiasAndRelu6) {
  // out[oc] = sum_ic x[ic] * w[oc][ic] + b[oc], clamped to [0, 6].
  GraphBuilder b;
  const int x = b.Input({1, 1, 2, 2});
  const int w = b.Const({2, 1, 1, 2}, {1, 2, -1, 0.5f});
  const int bias = b.Const({2}, {0.5f, 1});
  const int y = b.Tensor({1, 1, 2, 2});
  b.Op(OpType::kConv2D, {x, w, bias}, {y},
       ir::Conv2DOptions{Padding::kValid, 1, 1, 1, 1, Activation::kRelu6});
  b.Output(y);
  // pixel (1,2): 1+4+.5=5.5, -1+1+1=1; pixel (3,4): 3+8+.5=11.5->6, -3+2+1=0.
  EXPECT_THAT(Run1(b.Build(), {{1, 2, 3, 4}}), ElementsAre(5.5f, 1, 6, 0));
}

TEST(ConvTest, DilationSpreadsTheTaps) {
  // 1x5 input, 1x2 filter [1,10] with dilation 2 VALID: out[i] = x[i] + 10 x[i+2].
  GraphBuilder b;
  const int x = b.Input({1, 1, 5, 1});
  const int w = b.Const({1, 1, 2, 1}, {1, 10});
  const int y = b.Tensor({1, 1, 3, 1});
  b.Op(OpType::kConv2D, {x, w}, {y},
       ir::Conv2DOptions{Padding::kValid, 1, 1, 1, 2, Activation::kNone});
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {{1, 2, 3, 4, 5}}), ElementsAre(31, 42, 53));
}

TEST(DepthwiseTest, MultiplierTwoMapsChannelIcTimesMPlusM) {
  // 1x1 spatial, 2 input channels [3, 5], multiplier 2: out = [3*w0, 3*w1, 5*w2, 5*w3] + bias.
  GraphBuilder b;
  const int x = b.Input({1, 1, 1, 2});
  const int w = b.Const({1, 1, 1, 4}, {1, 2, 3, 4});
  const int bias = b.Const({4}, {0, 0, 0, 100});
  const int y = b.Tensor({1, 1, 1, 4});
  ir::DepthwiseConv2DOptions o;
  o.depth_multiplier = 2;
  b.Op(OpType::kDepthwiseConv2D, {x, w, bias}, {y}, o);
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {{3, 5}}), ElementsAre(3, 6, 15, 120));
}

TEST(DepthwiseTest, SameStrideOneKeepsSize) {
  // 3x3 input of ones, 3x3 ones filter: taps inside the image (9 centre, 4 corners, 6 edges).
  GraphBuilder b;
  const int x = b.Input({1, 3, 3, 1});
  const int w = b.Const({1, 3, 3, 1}, std::vector<float>(9, 1));
  const int y = b.Tensor({1, 3, 3, 1});
  ir::DepthwiseConv2DOptions o;
  o.padding = Padding::kSame;
  b.Op(OpType::kDepthwiseConv2D, {x, w}, {y}, o);
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {std::vector<float>(9, 1)}), ElementsAre(4, 6, 4, 6, 9, 6, 4, 6, 4));
}

TEST(PoolTest, AverageIgnoresPaddingAndMaxTakesValidTaps) {
  // 3x3 input 0..8, 2x2 window stride 2 SAME: out 2x2, pad 1 after.
  for (OpType type : {OpType::kAveragePool2D, OpType::kMaxPool2D}) {
    GraphBuilder b;
    const int x = b.Input({1, 3, 3, 1});
    const int y = b.Tensor({1, 2, 2, 1});
    ir::Pool2DOptions o;
    o.padding = Padding::kSame;
    o.stride_h = o.stride_w = 2;
    o.filter_h = o.filter_w = 2;
    b.Op(type, {x}, {y}, o);
    b.Output(y);
    const std::vector<float> out = Run1(b.Build(), {Iota(9)});
    if (type == OpType::kAveragePool2D) {
      // (0+1+3+4)/4, (2+5)/2, (6+7)/2, 8/1
      EXPECT_THAT(out, ElementsAre(2, 3.5f, 6.5f, 8));
    } else {
      EXPECT_THAT(out, ElementsAre(4, 5, 7, 8));
    }
  }
}

TEST(BinaryTest, AddBroadcastsAndFusesRelu) {
  GraphBuilder b;
  const int x = b.Input({1, 2, 3});
  const int z = b.Const({3}, {10, -10, 0});
  const int y = b.Tensor({1, 2, 3});
  b.Op(OpType::kAdd, {x, z}, {y}, ir::BinaryOptions{Activation::kRelu});
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {{1, 2, 3, 4, 5, 6}}), ElementsAre(11, 0, 3, 14, 0, 6));
}

TEST(BinaryTest, MulBroadcastsChannelVectorOverPixels) {
  GraphBuilder b;
  const int x = b.Input({1, 2, 1, 2});
  const int z = b.Input({1, 1, 1, 2});
  const int y = b.Tensor({1, 2, 1, 2});
  b.Op(OpType::kMul, {x, z}, {y}, ir::BinaryOptions{});
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {{1, 2, 3, 4}, {10, 100}}), ElementsAre(10, 200, 30, 400));
}

TEST(BinaryTest, Int32MulAndSub) {
  GraphBuilder b;
  const int x = b.Input({3}, ir::DType::kInt32);
  const int sq = b.Tensor({3}, ir::DType::kInt32);
  const int y = b.Tensor({3}, ir::DType::kInt32);
  b.Op(OpType::kMul, {x, x}, {sq}, ir::BinaryOptions{});
  b.Op(OpType::kSub, {sq, x}, {y}, ir::BinaryOptions{});
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {{-2, 3, 7}}), ElementsAre(6, 6, 42));
}

TEST(BinaryTest, RejectsShapesThatDoNotBroadcast) {
  GraphBuilder b;
  const int x = b.Input({2, 3});
  const int z = b.Input({2});
  const int y = b.Tensor({2, 3});
  b.Op(OpType::kAdd, {x, z}, {y}, ir::BinaryOptions{});
  b.Output(y);
  const absl::Status s = reference::CheckOp(b.Build(), 0);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("(ADD)"));
}

TEST(UnaryTest, ActivationValues) {
  const std::vector<float> in = {-4, -1, 0, 1, 4, 8};
  struct Case {
    OpType type;
    std::vector<float> want;
  };
  const Case cases[] = {
      {OpType::kRelu, {0, 0, 0, 1, 4, 8}},
      {OpType::kRelu6, {0, 0, 0, 1, 4, 6}},
      // x * relu6(x + 3) / 6
      {OpType::kHardSwish, {0, -1.0f / 3, 0, 2.0f / 3, 4, 8}},
      {OpType::kLogistic,
       {1 / (1 + std::exp(4.0f)), 1 / (1 + std::exp(1.0f)), 0.5f, 1 / (1 + std::exp(-1.0f)),
        1 / (1 + std::exp(-4.0f)), 1 / (1 + std::exp(-8.0f))}},
  };
  for (const Case& c : cases) {
    GraphBuilder b;
    const int x = b.Input({6});
    const int y = b.Tensor({6});
    b.Op(c.type, {x}, {y});
    b.Output(y);
    EXPECT_THAT(Run1(b.Build(), {in}), Pointwise(FloatNear(1e-6f), c.want))
        << ir::OpTypeName(c.type);
  }
}

TEST(PreluTest, AlphaPerChannel) {
  GraphBuilder b;
  const int x = b.Input({1, 1, 2, 2});
  const int a = b.Const({1, 1, 2}, {0.5f, 2});
  const int y = b.Tensor({1, 1, 2, 2});
  b.Op(OpType::kPrelu, {x, a}, {y});
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {{-2, -2, 3, -1}}), ElementsAre(-1, -4, 3, -2));
}

TEST(SoftmaxTest, RowsSumToOne) {
  GraphBuilder b;
  const int x = b.Input({2, 2});
  const int y = b.Tensor({2, 2});
  b.Op(OpType::kSoftmax, {x}, {y}, ir::SoftmaxOptions{1.0f});
  b.Output(y);
  const float e = 1 / (1 + std::exp(-1.0f));
  EXPECT_THAT(Run1(b.Build(), {{0, 1, 5, 5}}),
              Pointwise(FloatNear(1e-6f), std::vector<float>{1 - e, e, 0.5f, 0.5f}));
}

ir::Graph Resize(bool align, bool half) {
  GraphBuilder b;
  const int x = b.Input({1, 1, 2, 1});
  const int s = b.ConstInt({2}, {1, 4});
  const int y = b.Tensor({1, 1, 4, 1});
  b.Op(OpType::kResizeBilinear, {x, s}, {y}, ir::ResizeBilinearOptions{align, half});
  b.Output(y);
  return b.Build();
}

TEST(ResizeBilinearTest, SamplingConventions) {
  // Width 2 -> 4, input [0, 1]. half_pixel: src = (i+.5)/2-.5 = -.25,.25,.75,1.25 (clamped ends).
  EXPECT_THAT(Run1(Resize(false, true), {{0, 1}}),
              Pointwise(FloatNear(1e-6f), std::vector<float>{0, 0.25f, 0.75f, 1}));
  // align_corners: src = i/3.
  EXPECT_THAT(Run1(Resize(true, false), {{0, 1}}),
              Pointwise(FloatNear(1e-6f), std::vector<float>{0, 1.0f / 3, 2.0f / 3, 1}));
  // legacy: src = i/2 = 0, .5, 1, 1.5.
  EXPECT_THAT(Run1(Resize(false, false), {{0, 1}}),
              Pointwise(FloatNear(1e-6f), std::vector<float>{0, 0.5f, 1, 1}));
}

TEST(MeanTest, SpatialAxesWithoutKeepDims) {
  GraphBuilder b;
  const int x = b.Input({1, 2, 2, 2});
  const int a = b.ConstInt({2}, {1, 2});
  const int y = b.Tensor({1, 2});
  b.Op(OpType::kMean, {x, a}, {y}, ir::ReducerOptions{false});
  b.Output(y);
  // channel 0: 0,2,4,6 -> 3; channel 1: 1,3,5,7 -> 4.
  EXPECT_THAT(Run1(b.Build(), {Iota(8)}), ElementsAre(3, 4));
}

TEST(StridedSliceTest, MasksNegativeIndicesAndShrink) {
  // x[0, 1:3, -4::2] of a [1,4,6] iota, axis 0 shrunk -> [2,2]:
  // rows 1,2; columns 2,4 -> 8,10,14,16.
  GraphBuilder b;
  const int x = b.Input({1, 4, 6});
  const int bg = b.ConstInt({3}, {0, 1, -4});
  const int en = b.ConstInt({3}, {1, 3, 0});
  const int st = b.ConstInt({3}, {1, 1, 2});
  const int y = b.Tensor({2, 2});
  ir::StridedSliceOptions o;
  o.end_mask = 4;
  o.shrink_axis_mask = 1;
  b.Op(OpType::kStridedSlice, {x, bg, en, st}, {y}, o);
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {Iota(24)}), ElementsAre(8, 10, 14, 16));
}

TEST(StridedSliceTest, ChannelRunsWithOuterStrides) {
  // x[:, 1::2, :, 3:6] of a [1,4,2,7] iota: rows 1 and 3, channels 3..5 of
  // each pixel (the last dimension copied as runs).
  GraphBuilder b;
  const int x = b.Input({1, 4, 2, 7});
  const int bg = b.ConstInt({4}, {0, 1, 0, 3});
  const int en = b.ConstInt({4}, {1, 4, 2, 6});
  const int st = b.ConstInt({4}, {1, 2, 1, 1});
  const int y = b.Tensor({1, 2, 2, 3});
  b.Op(OpType::kStridedSlice, {x, bg, en, st}, {y}, ir::StridedSliceOptions{});
  b.Output(y);
  // Pixel (h, w) starts at (h * 2 + w) * 7.
  EXPECT_THAT(Run1(b.Build(), {Iota(56)}),
              ElementsAre(17, 18, 19, 24, 25, 26, 45, 46, 47, 52, 53, 54));
}

TEST(StridedSliceTest, NegativeStrideReverses) {
  GraphBuilder b;
  const int x = b.Input({5});
  const int bg = b.ConstInt({1}, {-1});
  const int en = b.ConstInt({1}, {0});
  const int st = b.ConstInt({1}, {-2});
  const int y = b.Tensor({2});
  b.Op(OpType::kStridedSlice, {x, bg, en, st}, {y}, ir::StridedSliceOptions{});
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {Iota(5)}), ElementsAre(4, 2));
}

TEST(DataMovementTest, PadDepthToSpaceConcatReshape) {
  {
    GraphBuilder b;
    const int x = b.Input({1, 1, 2, 1});
    const int p = b.ConstInt({4, 2}, {0, 0, 1, 0, 0, 1, 0, 1});
    const int y = b.Tensor({1, 2, 3, 2});
    b.Op(OpType::kPad, {x, p}, {y});
    b.Output(y);
    EXPECT_THAT(Run1(b.Build(), {{7, 8}}), ElementsAre(0, 0, 0, 0, 0, 0, 7, 0, 8, 0, 0, 0));
  }
  {
    // One pixel of depth 4 -> 2x2 block: (0,0)=c0, (0,1)=c1, (1,0)=c2, (1,1)=c3.
    GraphBuilder b;
    const int x = b.Input({1, 1, 2, 4});
    const int y = b.Tensor({1, 2, 4, 1});
    b.Op(OpType::kDepthToSpace, {x}, {y}, ir::DepthToSpaceOptions{2});
    b.Output(y);
    EXPECT_THAT(Run1(b.Build(), {Iota(8)}), ElementsAre(0, 1, 4, 5, 2, 3, 6, 7));
  }
  {
    GraphBuilder b;
    const int x = b.Input({2, 1});
    const int z = b.Input({2, 2});
    const int y = b.Tensor({2, 3});
    b.Op(OpType::kConcatenation, {x, z}, {y}, ir::ConcatenationOptions{-1, Activation::kNone});
    b.Output(y);
    EXPECT_THAT(Run1(b.Build(), {{1, 2}, {3, 4, 5, 6}}), ElementsAre(1, 3, 4, 2, 5, 6));
  }
  {
    GraphBuilder b;
    const int x = b.Input({2, 3});
    const int y = b.Tensor({3, 2});
    b.Op(OpType::kReshape, {x}, {y});
    b.Output(y);
    EXPECT_THAT(Run1(b.Build(), {Iota(6)}), ElementsAreArray(Iota(6)));
  }
}

TEST(FullyConnectedTest, RowsTimesWeightsPlusBias) {
  GraphBuilder b;
  const int x = b.Input({2, 3});
  const int w = b.Const({2, 3}, {1, 0, -1, 2, 2, 2});
  const int bias = b.Const({2}, {0, 1});
  const int y = b.Tensor({2, 2});
  b.Op(OpType::kFullyConnected, {x, w, bias}, {y}, ir::FullyConnectedOptions{});
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {{1, 2, 3, 4, 5, 6}}), ElementsAre(-2, 13, -2, 31));
}

TEST(TransposeConvTest, StrideTwoScattersEachPixelIntoItsBlock) {
  // 2x2 input [1,2;3,4], filter [1,2;3,4], bias 10, SAME with even size:
  // pad = max(0, 2 - 1 % 2 - 1) = 0, output 4x4, out[2i+ky][2j+kx] = x[i][j] w[ky][kx] + 10.
  GraphBuilder b;
  const int x = b.Input({1, 2, 2, 1});
  const int w = b.Const({1, 2, 2, 1}, {1, 2, 3, 4});
  const int bias = b.Const({1}, {10});
  const int y = b.Tensor({1, 4, 4, 1});
  b.Op(OpType::kTransposeConvBias, {x, w, bias}, {y},
       ir::TransposeConvOptions{Padding::kSame, 2, 2});
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {{1, 2, 3, 4}}),
              ElementsAre(11, 12, 12, 14, 13, 14, 16, 18, 13, 16, 14, 18, 19, 22, 22, 26));
}

TEST(TransposeConvTest, OddSizeSamePadsOneAndCropsTheFirstRow) {
  // Height 1: pad = max(0, 2 - 0 % 2 - 1) = 1, output height 2*0 + 2 - 1 = 1, pad before 0:
  // only filter row 0 lands inside.
  GraphBuilder b;
  const int x = b.Input({1, 1, 2, 1});
  const int w = b.Const({1, 2, 2, 1}, {1, 2, 3, 4});
  const int bias = b.Const({1}, {10});
  const int y = b.Tensor({1, 1, 4, 1});
  b.Op(OpType::kTransposeConvBias, {x, w, bias}, {y},
       ir::TransposeConvOptions{Padding::kSame, 2, 2});
  b.Output(y);
  EXPECT_THAT(Run1(b.Build(), {{1, 2}}), ElementsAre(11, 12, 12, 14));
}

TEST(PrepareTest, RejectsWrongOutputShapeNamingTheOp) {
  GraphBuilder b;
  const int x = b.Input({1, 4, 4, 1});
  const int w = b.Const({1, 3, 3, 1}, std::vector<float>(9, 1.0f));
  const int y = b.Tensor({1, 4, 4, 1});  // VALID gives 2x2
  b.Op(OpType::kConv2D, {x, w}, {y}, ir::Conv2DOptions{});
  b.Output(y);
  const absl::Status s = reference::CheckOp(b.Build(), 0);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("operator 0 (CONV_2D)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("output height is 4, the options give 2"));
}

TEST(PrepareTest, RejectsNonConstantFilterAndNonFloatInput) {
  GraphBuilder b;
  const int x = b.Input({1, 2, 2, 1});
  const int w = b.Input({1, 1, 1, 1});
  const int y = b.Tensor({1, 2, 2, 1});
  b.Op(OpType::kConv2D, {x, w}, {y}, ir::Conv2DOptions{});
  b.Output(y);
  EXPECT_EQ(reference::CheckOp(b.Build(), 0).code(), absl::StatusCode::kUnimplemented);

  GraphBuilder b2;
  const int xi = b2.Input({4}, ir::DType::kInt32);
  const int yi = b2.Tensor({4}, ir::DType::kInt32);
  b2.Op(OpType::kLogistic, {xi}, {yi});
  b2.Output(yi);
  EXPECT_EQ(reference::CheckOp(b2.Build(), 0).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace sluice::inference
