// Compile-time fusion in the cuda backend (issue 7): PADs read through by the
// convs they feed, elementwise consumers run in a conv / depthwise / FC
// kernel's epilogue. Each case checks where the ops went (OpPlacement), how
// many kernels one Invoke launches (fake runtime), and the outputs against the
// reference backend: bit-identical on the fake runtime (the host launchers
// run the same per-element code in the same order; FULLY_CONNECTED's GEMV
// sums in its own order, fused or not), within 1e-4 on a device.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "inference/cuda/cuda_backend.h"
#include "inference/reference/reference_kernels.h"
#include "inference/testing/graph_builder.h"
#include "inference/testing/op_harness.h"

#if SLUICE_FAKE_CUDA
#include "gpu/testing/fake_cuda_runtime.h"
#endif

namespace sluice::inference::cuda {
namespace {

using ir::Activation;
using ir::OpType;
using testing::GraphBuilder;
using testing::RandomFloats;

#if SLUICE_FAKE_CUDA
constexpr float kTol = 0.0f;
#else
constexpr float kTol = 1e-4f;
#endif

struct FusedRun {
  std::vector<std::string> placement;
  int64_t nodes = -1;  // graph nodes one Invoke launched (fake runtime only)
};

// Compiles `g` on cuda and reference, runs both on the same random inputs and
// compares every output within `tol` (abs and relative).
FusedRun RunAndCompare(const ir::Graph& g, float tol = kTol) {
  FusedRun r;
  auto got = CreateCudaBackend()->Compile(g, {});
  EXPECT_TRUE(got.ok()) << got.status();
  auto want = reference::CreateReferenceBackend()->Compile(g, {});
  EXPECT_TRUE(want.ok()) << want.status();
  if (!got.ok() || !want.ok()) return r;
  for (size_t i = 0; i < (*got)->Inputs().size(); ++i) {
    const IoTensor &a = (*got)->Inputs()[i], &b = (*want)->Inputs()[i];
    const std::vector<float> v = RandomFloats(a.num_elements(), -2, 2, 11 + i);
    std::copy(v.begin(), v.end(), a.f32());
    std::copy(v.begin(), v.end(), b.f32());
  }
#if SLUICE_FAKE_CUDA
  const int64_t before = fake_cuda::GetStats().graph_nodes_launched;
#endif
  EXPECT_TRUE((*got)->Invoke().ok());
#if SLUICE_FAKE_CUDA
  r.nodes = fake_cuda::GetStats().graph_nodes_launched - before;
#endif
  EXPECT_TRUE((*want)->Invoke().ok());
  for (size_t o = 0; o < (*want)->Outputs().size(); ++o) {
    const IoTensor &w = (*want)->Outputs()[o], &c = (*got)->Outputs()[o];
    EXPECT_EQ(w.shape, c.shape);
    int64_t bad = 0;
    for (int64_t i = 0; i < w.num_elements(); ++i) {
      const float a = w.f32()[i], b = c.f32()[i];
      if (!(std::fabs(a - b) <= tol + tol * std::fabs(a))) {
        if (bad++ == 0)
          ADD_FAILURE() << "output " << o << " element " << i << ": got " << b << ", want " << a;
      }
    }
    EXPECT_EQ(bad, 0) << "output " << o;
  }
  r.placement = (*got)->OpPlacement();
  return r;
}

std::string FusedInto(int op) { return absl::StrCat("cuda (fused into op ", op, ")"); }

void ExpectNodes(const FusedRun& r, int64_t want) {
#if SLUICE_FAKE_CUDA
  EXPECT_EQ(r.nodes, want);
#else
  (void)r;
  (void)want;
#endif
}

int Conv(GraphBuilder& gb, OpType type, int x, const ir::Shape& w_shape, const ir::Shape& out,
         ir::OpOptions options, uint32_t seed) {
  const int w = gb.Const(w_shape, RandomFloats(ir::NumElements(w_shape), -1, 1, seed));
  const int oc = type == OpType::kFullyConnected ? w_shape[0]
                 : type == OpType::kConv2D       ? w_shape[0]
                                                 : w_shape[3];
  const int b = gb.Const({oc}, RandomFloats(oc, -0.5f, 0.5f, seed + 1));
  const int y = gb.Tensor(out);
  gb.Op(type, {x, w, b}, {y}, std::move(options));
  return y;
}

// PAD (odd, asymmetric spatial pads) -> 3x3 stride-2 CONV_2D, and
// PAD -> 5x5 DEPTHWISE: no PAD kernel, the convs read through.
TEST(CudaFusionTest, PadIsReadThroughByConvAndDepthwise) {
  GraphBuilder gb("pad_conv");
  const int x = gb.Input({1, 7, 9, 3});
  const int pads = gb.ConstInt({4, 2}, {0, 0, 1, 2, 2, 1, 0, 0});
  const int p = gb.Tensor({1, 10, 12, 3});
  gb.Op(OpType::kPad, {x, pads}, {p});  // op 0
  ir::Conv2DOptions co;
  co.stride_h = co.stride_w = 2;
  const int y = Conv(gb, OpType::kConv2D, p, {4, 3, 3, 3}, {1, 4, 5, 4}, co, 1);  // op 1
  const int pads2 = gb.ConstInt({4, 2}, {0, 0, 2, 2, 1, 3, 0, 0});
  const int p2 = gb.Tensor({1, 8, 9, 4});
  gb.Op(OpType::kPad, {y, pads2}, {p2});  // op 2
  ir::DepthwiseConv2DOptions dwo;
  dwo.padding = ir::Padding::kSame;
  const int z = Conv(gb, OpType::kDepthwiseConv2D, p2, {1, 5, 5, 4}, {1, 8, 9, 4}, dwo, 3);  // op 3
  gb.Output(z);
  const FusedRun r = RunAndCompare(gb.Build());
  ASSERT_EQ(r.placement.size(), 4u);
  EXPECT_EQ(r.placement[0], FusedInto(1));
  EXPECT_EQ(r.placement[1], "cuda");
  EXPECT_EQ(r.placement[2], FusedInto(3));
  ExpectNodes(r, 2);
}

// A 1x1 stride-1 conv after a PAD must leave the GEMM path (out != in).
TEST(CudaFusionTest, PadBeforeOneByOneConv) {
  GraphBuilder gb("pad_1x1");
  const int x = gb.Input({1, 3, 5, 6});
  const int pads = gb.ConstInt({4, 2}, {0, 0, 1, 0, 0, 3, 0, 0});
  const int p = gb.Tensor({1, 4, 8, 6});
  gb.Op(OpType::kPad, {x, pads}, {p});
  const int y = Conv(gb, OpType::kConv2D, p, {5, 1, 1, 6}, {1, 4, 8, 5}, ir::Conv2DOptions{}, 5);
  gb.Output(y);
  const FusedRun r = RunAndCompare(gb.Build());
  ASSERT_EQ(r.placement.size(), 2u);
  EXPECT_EQ(r.placement[0], FusedInto(1));
  ExpectNodes(r, 1);
}

// CONV_2D (1x1: the GEMM) -> ADD residual (relu6) -> RELU; a channel-padded
// residual (PAD of channels only, BlazeNet) -> ADD into a depthwise -> PRELU.
TEST(CudaFusionTest, ConvAddReluAndChannelPaddedResidualWithPrelu) {
  GraphBuilder gb("conv_add_relu");
  const int x = gb.Input({1, 6, 5, 8});
  const int y = Conv(gb, OpType::kConv2D, x, {8, 1, 1, 8}, {1, 6, 5, 8}, ir::Conv2DOptions{}, 7);
  const int a = gb.Tensor({1, 6, 5, 8});
  gb.Op(OpType::kAdd, {x, y}, {a}, ir::BinaryOptions{Activation::kRelu6});  // op 1
  const int r1 = gb.Tensor({1, 6, 5, 8});
  gb.Op(OpType::kRelu, {a}, {r1});  // op 2
  // r1 padded from 8 to 12 channels (3 before, 1 after), added to conv -> depthwise.
  const int pads = gb.ConstInt({4, 2}, {0, 0, 0, 0, 0, 0, 3, 1});
  const int pr = gb.Tensor({1, 6, 5, 12});
  gb.Op(OpType::kPad, {r1, pads}, {pr});  // op 3
  ir::DepthwiseConv2DOptions dwo;
  dwo.padding = ir::Padding::kSame;
  const int wx = Conv(gb, OpType::kConv2D, r1, {12, 3, 3, 8}, {1, 6, 5, 12},
                      ir::Conv2DOptions{ir::Padding::kSame}, 9);  // op 4
  const int d =
      Conv(gb, OpType::kDepthwiseConv2D, wx, {1, 3, 3, 12}, {1, 6, 5, 12}, dwo, 11);  // op 5
  const int s = gb.Tensor({1, 6, 5, 12});
  gb.Op(OpType::kAdd, {pr, d}, {s}, ir::BinaryOptions{});  // op 6
  const int alpha = gb.Const({1, 1, 12}, RandomFloats(12, 0, 0.5f, 13));
  const int out = gb.Tensor({1, 6, 5, 12});
  gb.Op(OpType::kPrelu, {s, alpha}, {out});  // op 7
  gb.Output(out);
  const FusedRun r = RunAndCompare(gb.Build());
  ASSERT_EQ(r.placement.size(), 8u);
  EXPECT_EQ(r.placement[1], FusedInto(0));
  EXPECT_EQ(r.placement[2], FusedInto(0));
  EXPECT_EQ(r.placement[3], FusedInto(5));
  EXPECT_EQ(r.placement[4], "cuda");
  EXPECT_EQ(r.placement[6], FusedInto(5));
  EXPECT_EQ(r.placement[7], FusedInto(5));
  ExpectNodes(r, 3);
}

// FULLY_CONNECTED (GEMV) -> MUL by a per-channel constant -> LOGISTIC, and
// -> HARD_SWISH after a conv with a scalar ADD.
TEST(CudaFusionTest, FullyConnectedMulLogisticAndConvHardSwish) {
  GraphBuilder gb("fc_mul");
  const int x = gb.Input({1, 40});
  const int y =
      Conv(gb, OpType::kFullyConnected, x, {24, 40}, {1, 24}, ir::FullyConnectedOptions{}, 15);
  const int c = gb.Const({24}, RandomFloats(24, -2, 2, 17));
  const int m = gb.Tensor({1, 24});
  gb.Op(OpType::kMul, {y, c}, {m}, ir::BinaryOptions{});
  const int l = gb.Tensor({1, 24});
  gb.Op(OpType::kLogistic, {m}, {l});
  gb.Output(l);
  const int img = gb.Input({1, 5, 5, 2});
  const int z = Conv(gb, OpType::kConv2D, img, {3, 3, 3, 2}, {1, 3, 3, 3}, ir::Conv2DOptions{}, 19);
  const int one = gb.Const({1}, {0.25f});
  const int za = gb.Tensor({1, 3, 3, 3});
  gb.Op(OpType::kAdd, {z, one}, {za}, ir::BinaryOptions{});
  const int h = gb.Tensor({1, 3, 3, 3});
  gb.Op(OpType::kHardSwish, {za}, {h});
  gb.Output(h);
  // The GEMV sums in lane order, not the reference's (fused or not).
  const FusedRun r = RunAndCompare(gb.Build(), 1e-5f);
  ASSERT_EQ(r.placement.size(), 6u);
  EXPECT_EQ(r.placement[1], FusedInto(0));
  EXPECT_EQ(r.placement[2], FusedInto(0));
  EXPECT_EQ(r.placement[4], FusedInto(3));
  EXPECT_EQ(r.placement[5], FusedInto(3));
  ExpectNodes(r, 2);
}

// conv, then the residual's producer (a MAX_POOL), then ADD(conv, pool):
// the fused kernel runs where the ADD was, once the pool's output exists; the
// arena is planned for that (the conv's input stays alive until then).
TEST(CudaFusionTest, ResidualProducedAfterTheConvDelaysTheKernel) {
  GraphBuilder gb("late_residual");
  const int x = gb.Input({1, 8, 8, 4});
  ir::Conv2DOptions co;
  co.stride_h = co.stride_w = 2;
  co.padding = ir::Padding::kSame;
  const int y = Conv(gb, OpType::kConv2D, x, {4, 3, 3, 4}, {1, 4, 4, 4}, co, 25);  // op 0
  ir::Pool2DOptions po;
  po.filter_h = po.filter_w = po.stride_h = po.stride_w = 2;
  const int mp = gb.Tensor({1, 4, 4, 4});
  gb.Op(OpType::kMaxPool2D, {x}, {mp}, po);  // op 1
  const int s = gb.Tensor({1, 4, 4, 4});
  gb.Op(OpType::kAdd, {y, mp}, {s}, ir::BinaryOptions{});  // op 2
  const int alpha = gb.Const({4}, RandomFloats(4, 0, 0.5f, 27));
  const int out = gb.Tensor({1, 4, 4, 4});
  gb.Op(OpType::kPrelu, {s, alpha}, {out});  // op 3
  gb.Output(out);
  const FusedRun r = RunAndCompare(gb.Build());
  ASSERT_EQ(r.placement.size(), 4u);
  EXPECT_EQ(r.placement[1], "cuda");
  EXPECT_EQ(r.placement[2], FusedInto(0));
  EXPECT_EQ(r.placement[3], FusedInto(0));
  ExpectNodes(r, 2);
}

// A graph output in the middle of a chain, a tensor with two consumers, and a
// PAD feeding a pool are not fused; the chain stops there.
TEST(CudaFusionTest, GraphOutputsAndSharedTensorsStopTheChain) {
  GraphBuilder gb("no_fuse");
  const int x = gb.Input({1, 4, 4, 3});
  const int y = Conv(gb, OpType::kConv2D, x, {3, 1, 1, 3}, {1, 4, 4, 3}, ir::Conv2DOptions{}, 21);
  const int a = gb.Tensor({1, 4, 4, 3});
  gb.Op(OpType::kRelu, {y}, {a});  // op 1: fused
  const int b = gb.Tensor({1, 4, 4, 3});
  gb.Op(OpType::kLogistic, {a}, {b});  // op 2: not fused, `a` is a graph output
  gb.Output(a);
  const int z = Conv(gb, OpType::kConv2D, b, {3, 1, 1, 3}, {1, 4, 4, 3}, ir::Conv2DOptions{}, 23);
  const int s1 = gb.Tensor({1, 4, 4, 3}), s2 = gb.Tensor({1, 4, 4, 3});
  gb.Op(OpType::kRelu, {z}, {s1});                         // op 4: z has two consumers
  gb.Op(OpType::kAdd, {z, b}, {s2}, ir::BinaryOptions{});  // op 5
  gb.Output(s1);
  gb.Output(s2);
  const int pads = gb.ConstInt({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0});
  const int p = gb.Tensor({1, 6, 6, 3});
  gb.Op(OpType::kPad, {s2, pads}, {p});  // op 6: a pool's zero pad is not the pool's padding
  ir::Pool2DOptions po;
  po.filter_h = po.filter_w = po.stride_h = po.stride_w = 2;
  const int mp = gb.Tensor({1, 3, 3, 3});
  gb.Op(OpType::kMaxPool2D, {p}, {mp}, po);
  gb.Output(mp);
  const FusedRun r = RunAndCompare(gb.Build());
  ASSERT_EQ(r.placement.size(), 8u);
  EXPECT_EQ(r.placement[1], FusedInto(0));
  for (int i : {2, 3, 4, 5, 6, 7}) EXPECT_EQ(r.placement[i], "cuda") << "op " << i;
  ExpectNodes(r, 7);
}

}  // namespace
}  // namespace sluice::inference::cuda
