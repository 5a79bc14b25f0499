#include "inference/passes.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/model.h"
#include "inference/testing/graph_builder.h"
#include "inference/testing/op_harness.h"
#include "inference/testing/run_graph.h"
#include "inference/testing/test_inputs.h"
#include "inference/tflite/reader.h"

namespace sluice::inference {
namespace {

using ir::OpType;
using ::testing::ElementsAre;
using testing::GraphBuilder;
using testing::RunGraph;

int Fp16(GraphBuilder& b, const ir::Shape& shape, const std::vector<uint16_t>& halves) {
  return b.ConstBytes(shape, ir::DType::kFloat16, halves.data(), halves.size() * 2);
}

TEST(FoldConstantsTest, DequantizeFp16Weights) {
  GraphBuilder b;
  const int x = b.Input({4});
  // 1.0, -2.0, 0.5, smallest subnormal 2^-24
  const int h = Fp16(b, {4}, {0x3C00, 0xC000, 0x3800, 0x0001});
  const int w = b.Tensor({4});
  const int y = b.Tensor({4});
  b.Op(OpType::kDequantize, {h}, {w});
  b.Op(OpType::kMul, {x, w}, {y}, ir::BinaryOptions{});
  b.Output(y);
  ir::Graph g = b.Build();
  ASSERT_TRUE(RunLoadPasses(g).ok());
  ASSERT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(g.ops[0].type, OpType::kMul);
  auto r = RunGraph(g, {{1, 1, 1, 1}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT((*r)[0], ElementsAre(1.0f, -2.0f, 0.5f, 5.9604645e-08f));
}

TEST(FoldConstantsTest, DensifyCsrThenDequantize) {
  // [2,3] with row 0 = {col 2: 1.0}, row 1 = {col 0: -2.0, col 1: 0.5}.
  GraphBuilder b;
  const int x = b.Input({2, 3});
  const int s = Fp16(b, {2, 3}, {0x3C00, 0xC000, 0x3800});
  ir::Sparsity sp;
  sp.traversal_order = {0, 1};
  sp.dims.resize(2);
  sp.dims[0].dense_size = 2;
  sp.dims[1].sparse = true;
  sp.dims[1].segments = {0, 1, 3};
  sp.dims[1].indices = {2, 0, 1};
  b.graph().tensors[s].sparsity.push_back(sp);
  const int dense16 = b.Tensor({2, 3}, ir::DType::kFloat16);
  const int w = b.Tensor({2, 3});
  const int y = b.Tensor({2, 3});
  b.Op(OpType::kDensify, {s}, {dense16});
  b.Op(OpType::kDequantize, {dense16}, {w});
  b.Op(OpType::kAdd, {x, w}, {y}, ir::BinaryOptions{});
  b.Output(y);
  ir::Graph g = b.Build();
  ASSERT_TRUE(RunLoadPasses(g).ok());
  auto r = RunGraph(g, {{0, 0, 0, 0, 0, 0}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT((*r)[0], ElementsAre(0, 0, 1, -2, 0.5f, 0));
}

TEST(FoldConstantsTest, BadSparseIndicesAreAnError) {
  GraphBuilder b;
  const int s = Fp16(b, {1, 2}, {0x3C00});
  ir::Sparsity sp;
  sp.traversal_order = {0, 1};
  sp.dims.resize(2);
  sp.dims[0].dense_size = 1;
  sp.dims[1].sparse = true;
  sp.dims[1].segments = {0, 1};
  sp.dims[1].indices = {5};  // out of range
  b.graph().tensors[s].sparsity.push_back(sp);
  const int y = b.Tensor({1, 2}, ir::DType::kFloat16);
  b.Op(OpType::kDensify, {s}, {y});
  b.Output(y);
  ir::Graph g = b.Build();
  EXPECT_EQ(FoldConstants(g).code(), absl::StatusCode::kInvalidArgument);
}

TEST(FoldConstantsTest, EvaluatorFoldsOtherConstantOps) {
  GraphBuilder b;
  const int x = b.Input({2});
  const int c1 = b.Const({2}, {1, 2});
  const int c2 = b.Const({2}, {10, 20});
  const int s = b.Tensor({2});
  const int y = b.Tensor({2});
  b.Op(OpType::kAdd, {c1, c2}, {s}, ir::BinaryOptions{});
  b.Op(OpType::kMul, {x, s}, {y}, ir::BinaryOptions{});
  b.Output(y);
  ir::Graph g = b.Build();
  ASSERT_TRUE(RunLoadPasses(g, EvaluateConstantOp).ok());
  ASSERT_EQ(g.ops.size(), 1u);
  auto r = RunGraph(g, {{2, 3}});
  ASSERT_TRUE(r.ok());
  EXPECT_THAT((*r)[0], ElementsAre(22, 66));
}

ir::Graph ConvRelu(bool relu_output_also_used) {
  GraphBuilder b;
  const int x = b.Input({1, 1, 1, 1});
  const int w = b.Const({1, 1, 1, 1}, {-1});
  const int c = b.Tensor({1, 1, 1, 1});
  const int y = b.Tensor({1, 1, 1, 1});
  b.Op(OpType::kConv2D, {x, w}, {c}, ir::Conv2DOptions{});
  b.Op(OpType::kRelu6, {c}, {y});
  b.Output(y);
  if (relu_output_also_used) b.Output(c);
  return b.Build();
}

TEST(FuseActivationsTest, Relu6FoldsIntoItsOnlyProducer) {
  ir::Graph g = ConvRelu(false);
  ASSERT_TRUE(RunLoadPasses(g).ok());
  ASSERT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(g.ops[0].opts<ir::Conv2DOptions>().activation, ir::Activation::kRelu6);
  auto r = RunGraph(g, {{-7}});
  ASSERT_TRUE(r.ok());
  EXPECT_THAT((*r)[0], ElementsAre(6));

  ir::Graph kept = ConvRelu(true);  // the pre-activation value is an output too
  ASSERT_TRUE(RunLoadPasses(kept).ok());
  EXPECT_EQ(kept.ops.size(), 2u);
}

TEST(SimplifyViewsTest, IdentityStridedSliceBecomesAView) {
  for (int end : {4, 3}) {
    GraphBuilder b;
    const int x = b.Input({1, 4});
    const int bg = b.ConstInt({2}, {0, 0});
    const int en = b.ConstInt({2}, {1, end});
    const int st = b.ConstInt({2}, {1, 1});
    const int y = b.Tensor({1, end});
    b.Op(OpType::kStridedSlice, {x, bg, en, st}, {y}, ir::StridedSliceOptions{});
    b.Output(y);
    ir::Graph g = b.Build();
    ASSERT_TRUE(RunLoadPasses(g).ok());
    EXPECT_EQ(g.ops[0].type, end == 4 ? OpType::kReshape : OpType::kStridedSlice);
    EXPECT_EQ(g.tensors.size(), end == 4 ? 2u : 5u);  // the slice constants are dead
  }
}

TEST(RemoveDeadCodeTest, UnusedBranchGoesAndTensorsAreRenumbered) {
  GraphBuilder b;
  const int x = b.Input({2});
  const int dead = b.Tensor({2});
  const int y = b.Tensor({2});
  b.Op(OpType::kLogistic, {x}, {dead});
  b.Op(OpType::kRelu, {x}, {y});
  b.Output(y);
  ir::Graph g = b.Build();
  ASSERT_TRUE(RemoveDeadCode(g).ok());
  ASSERT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(g.ops[0].type, OpType::kRelu);
  EXPECT_EQ(g.tensors.size(), 2u);
  EXPECT_TRUE(g.Validate().ok());
}

TEST(LoadPassesTest, RealModelGivesTheSameOutputsWithAndWithoutPasses) {
  // Folded only (separate RELUs, reshapes, dead code) vs all passes.
  const std::string path = testing::SharedDir() + "/models/face_detection_short_range.tflite";
  auto raw = tflite::ReadModelFile(path);
  ASSERT_TRUE(raw.ok()) << raw.status();
  ASSERT_TRUE(FoldConstants(*raw).ok());
  ir::Graph passed = *raw;
  ASSERT_TRUE(RunLoadPasses(passed, EvaluateConstantOp).ok());
  EXPECT_LT(passed.ops.size(), raw->ops.size());  // RELUs fused into their convolutions
  const std::vector<float> input = testing::RandomFloats(128 * 128 * 3, -1, 1, 5);
  auto a = RunGraph(*raw, {input});
  auto b = RunGraph(passed, {input});
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(a->size(), b->size());
  for (size_t o = 0; o < a->size(); ++o) EXPECT_EQ((*a)[o], (*b)[o]) << "output " << o;
}

}  // namespace
}  // namespace sluice::inference
