#include "inference/ir.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/testing/graph_builder.h"

namespace sluice::inference::ir {
namespace {

using testing::GraphBuilder;
using ::testing::HasSubstr;

TEST(PaddingTest, TfSameAndValid) {
  // SAME: out = ceil(in / stride); total = (out-1)*stride + k - in; before = total / 2.
  EXPECT_EQ(ComputePadding(Padding::kSame, 4, 3, 2, 1).out, 2);
  EXPECT_EQ(ComputePadding(Padding::kSame, 4, 3, 2, 1).pad_before, 0);  // total 1
  EXPECT_EQ(ComputePadding(Padding::kSame, 5, 3, 2, 1).pad_before, 1);  // total 2
  EXPECT_EQ(ComputePadding(Padding::kSame, 7, 5, 1, 1).pad_before, 2);
  EXPECT_EQ(ComputePadding(Padding::kSame, 6, 3, 1, 2).pad_before, 2);  // dilated k = 5
  EXPECT_EQ(ComputePadding(Padding::kValid, 7, 3, 2, 1).out, 3);
  EXPECT_EQ(ComputePadding(Padding::kValid, 128, 2, 2, 1).out, 64);
}

TEST(OpTypeTest, NamesComeFromTheOneList) {
  EXPECT_EQ(OpTypeName(OpType::kConv2D), "CONV_2D");
  EXPECT_EQ(OpTypeName(OpType::kTransposeConvBias), "Convolution2DTransposeBias");
  EXPECT_GT(kNumOpTypes, 25);
}

TEST(ValidateTest, RejectsUseBeforeDefinitionAndDoubleProducers) {
  GraphBuilder b("g.tflite");
  const int x = b.Input({2});
  const int t = b.Tensor({2});
  const int y = b.Tensor({2});
  b.Op(OpType::kAdd, {x, t}, {y}, BinaryOptions{});  // t not produced yet
  b.Op(OpType::kRelu, {x}, {t});
  b.Output(y);
  absl::Status s = b.Build().Validate();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("operator 0 (ADD) of g.tflite"));

  GraphBuilder b2;
  const int x2 = b2.Input({2});
  const int y2 = b2.Tensor({2});
  b2.Op(OpType::kRelu, {x2}, {y2});
  b2.Op(OpType::kRelu6, {x2}, {y2});
  b2.Output(y2);
  EXPECT_THAT(std::string(b2.Build().Validate().message()), HasSubstr("written twice"));
}

}  // namespace
}  // namespace sluice::inference::ir
