// The cuda backend's conv family (cuda_ops_conv.cc + kernels/conv*, pool*)
// against the reference kernels, op by op: every option set of the model
// inventory (../shared/research/MODELS_INVENTORY.md, "Distinct attribute sets")
// plus the edges around them (ragged GEMM tiles, batch 2, dilation, depth
// multiplier, the other fused activations, absent bias, keep_num_dims), on
// random inputs, fp32 abs/rel 1e-4. On the fake runtime the launchers are host
// loops over the kernels' per-output maths; on a device, the .cu kernels.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "inference/cuda/cuda_ops.h"
#include "inference/cuda/kernels/nhwc_index.h"
#include "inference/cuda/testing/test_op_context.h"
#include "inference/ir.h"
#include "inference/testing/graph_builder.h"
#include "inference/testing/op_harness.h"

namespace sluice::inference::cuda {
namespace {

using ir::Activation;
using ir::OpType;
using ir::Padding;
using inference::testing::GraphBuilder;
using inference::testing::RandomFloats;
using testing::CompareFamilyOpsWithReference;
using testing::DiffOptions;

std::string Act(Activation a) { return std::string(ir::ActivationName(a)); }
const char* Pad(Padding p) { return p == Padding::kSame ? "SAME" : "VALID"; }

struct ConvSpec {
  int n = 1, h = 9, w = 9, ic = 8, oc = 12;
  int kh = 3, kw = 3, sh = 1, sw = 1, dh = 1, dw = 1;
  Padding pad = Padding::kSame;
  Activation act = Activation::kNone;
  bool bias = true;
  int mult = 1;  // depthwise only
};

std::string Name(const char* op, const ConvSpec& s) {
  return absl::StrCat(op, " k", s.kh, "x", s.kw, " s", s.sh, "x", s.sw, " d", s.dh, "x", s.dw,
                      " ", Pad(s.pad), " ", Act(s.act), s.bias ? "" : " nobias", " m", s.mult,
                      " [", s.n, ",", s.h, ",", s.w, ",", s.ic, "]->", s.oc);
}

ir::Graph Conv(const ConvSpec& s, uint32_t seed = 7) {
  GraphBuilder b("conv");
  const int x = b.Input({s.n, s.h, s.w, s.ic});
  const int wt =
      b.Const({s.oc, s.kh, s.kw, s.ic}, RandomFloats(s.oc * s.kh * s.kw * s.ic, -0.5f, 0.5f, seed));
  const int bias = s.bias ? b.Const({s.oc}, RandomFloats(s.oc, -0.5f, 0.5f, seed + 1)) : -1;
  const ir::PadOut py = ir::ComputePadding(s.pad, s.h, s.kh, s.sh, s.dh);
  const ir::PadOut px = ir::ComputePadding(s.pad, s.w, s.kw, s.sw, s.dw);
  const int y = b.Tensor({s.n, py.out, px.out, s.oc});
  ir::Conv2DOptions o;
  o.padding = s.pad;
  o.stride_h = s.sh, o.stride_w = s.sw, o.dilation_h = s.dh, o.dilation_w = s.dw;
  o.activation = s.act;
  b.Op(OpType::kConv2D, s.bias ? std::vector<int>{x, wt, bias} : std::vector<int>{x, wt}, {y}, o);
  b.Output(y);
  return b.Build();
}

ir::Graph Depthwise(const ConvSpec& s, uint32_t seed = 9) {
  GraphBuilder b("dw");
  const int oc = s.ic * s.mult;
  const int x = b.Input({s.n, s.h, s.w, s.ic});
  const int wt = b.Const({1, s.kh, s.kw, oc}, RandomFloats(s.kh * s.kw * oc, -0.5f, 0.5f, seed));
  const int bias = s.bias ? b.Const({oc}, RandomFloats(oc, -0.5f, 0.5f, seed + 1)) : -1;
  const ir::PadOut py = ir::ComputePadding(s.pad, s.h, s.kh, s.sh, s.dh);
  const ir::PadOut px = ir::ComputePadding(s.pad, s.w, s.kw, s.sw, s.dw);
  const int y = b.Tensor({s.n, py.out, px.out, oc});
  ir::DepthwiseConv2DOptions o;
  o.padding = s.pad;
  o.stride_h = s.sh, o.stride_w = s.sw, o.dilation_h = s.dh, o.dilation_w = s.dw;
  o.depth_multiplier = s.mult;
  o.activation = s.act;
  b.Op(OpType::kDepthwiseConv2D, s.bias ? std::vector<int>{x, wt, bias} : std::vector<int>{x, wt},
       {y}, o);
  b.Output(y);
  return b.Build();
}

void ExpectMatches(const ir::Graph& g, const std::string& name, DiffOptions o = {}) {
  auto r = CompareFamilyOpsWithReference(g, o);
  ASSERT_TRUE(r.ok()) << name << ": " << r.status();
  EXPECT_TRUE(r->passed) << name << ": " << r->detail;
}

// CONV_2D 1x1 s1 (the GEMM): the inventory's VALID/SAME x NONE/RELU/RELU6,
// on shapes with ragged 32-wide tiles in M, N and K, and a batch of 2.
// The output position the one-thread-per-output kernels derive from their
// flat index: every element of a [2, 3, 5, 7] tensor, in NHWC order.
TEST(CudaConvOpsTest, SplitNhwcWalksTheTensorInOrder) {
  int64_t i = 0;
  for (int n = 0; n < 2; ++n) {
    for (int y = 0; y < 3; ++y) {
      for (int x = 0; x < 5; ++x) {
        for (int c = 0; c < 7; ++c, ++i) {
          const kernels::NhwcIndex o = kernels::SplitNhwc(i, 3, 5, 7);
          ASSERT_TRUE(o.n == n && o.y == y && o.x == x && o.c == c) << "element " << i;
        }
      }
    }
  }
}

TEST(CudaConvOpsTest, PointwiseConvMatchesReference) {
  for (Padding pad : {Padding::kValid, Padding::kSame}) {
    for (Activation act : {Activation::kNone, Activation::kRelu, Activation::kRelu6}) {
      ConvSpec s;
      s.h = 9, s.w = 7, s.ic = 37, s.oc = 45, s.kh = s.kw = 1, s.pad = pad, s.act = act;
      ExpectMatches(Conv(s), Name("CONV_2D", s));
    }
  }
  for (ConvSpec s : {ConvSpec{2, 5, 6, 64, 96, 1, 1}, ConvSpec{1, 1, 3, 5, 17, 1, 1},
                     ConvSpec{1, 8, 8, 128, 33, 1, 1}, ConvSpec{1, 4, 4, 3, 1, 1, 1}}) {
    ExpectMatches(Conv(s), Name("CONV_2D", s));
  }
  ConvSpec nobias{1, 6, 6, 20, 24, 1, 1};
  nobias.bias = false;
  nobias.act = Activation::kTanh;
  ExpectMatches(Conv(nobias), Name("CONV_2D", nobias));
}

// The inventory's other CONV_2D sets (direct convolution), the first layers'
// 3-channel inputs, and dilation, odd strides, the remaining activations.
TEST(CudaConvOpsTest, DirectConvMatchesReference) {
  struct Set {
    int k, s;
    Padding pad;
    Activation act;
  };
  const Set sets[] = {
      {2, 1, Padding::kValid, Activation::kNone}, {3, 2, Padding::kSame, Activation::kNone},
      {2, 2, Padding::kValid, Activation::kNone}, {3, 2, Padding::kValid, Activation::kRelu6},
      {3, 3, Padding::kValid, Activation::kNone}, {5, 2, Padding::kSame, Activation::kNone},
      {3, 1, Padding::kSame, Activation::kNone},  {3, 2, Padding::kSame, Activation::kRelu6},
      {3, 2, Padding::kValid, Activation::kRelu},
  };
  for (const Set& set : sets) {
    for (int ic : {3, 16}) {
      ConvSpec s;
      s.h = 13, s.w = 12, s.ic = ic, s.oc = 24;
      s.kh = s.kw = set.k, s.sh = s.sw = set.s, s.pad = set.pad, s.act = set.act;
      ExpectMatches(Conv(s), Name("CONV_2D", s));
    }
  }
  ConvSpec dil{2, 11, 10, 5, 7, 3, 3, 1, 1, 2, 2, Padding::kSame, Activation::kReluN1To1};
  ExpectMatches(Conv(dil), Name("CONV_2D", dil));
  ConvSpec rect{1, 10, 9, 4, 6, 3, 2, 2, 1, 1, 3, Padding::kValid, Activation::kTanh};
  rect.bias = false;
  ExpectMatches(Conv(rect), Name("CONV_2D", rect));
  ConvSpec strided1x1{1, 9, 9, 8, 10, 1, 1, 2, 2};  // 1x1 but strided: not the GEMM
  strided1x1.pad = Padding::kValid;
  ExpectMatches(Conv(strided1x1), Name("CONV_2D", strided1x1));
}

// Every DEPTHWISE_CONV_2D set of the inventory (3x3 / 5x5, s1 / s2,
// SAME / VALID, NONE / RELU6), then the generic variant: a multiplier,
// dilation, a non-square filter, batch 2, no bias.
TEST(CudaConvOpsTest, DepthwiseConvMatchesReference) {
  for (int k : {3, 5}) {
    for (int st : {1, 2}) {
      for (Padding pad : {Padding::kSame, Padding::kValid}) {
        for (Activation act : {Activation::kNone, Activation::kRelu6}) {
          ConvSpec s;
          s.h = 12, s.w = 11, s.ic = 24, s.oc = 24;
          s.kh = s.kw = k, s.sh = s.sw = st, s.pad = pad, s.act = act;
          ExpectMatches(Depthwise(s), Name("DEPTHWISE_CONV_2D", s));
        }
      }
    }
  }
  ConvSpec mult{1, 7, 7, 4, 8, 3, 3, 1, 1, 1, 1, Padding::kSame, Activation::kRelu};
  mult.mult = 2;
  ExpectMatches(Depthwise(mult), Name("DEPTHWISE_CONV_2D", mult));
  ConvSpec dil{2, 11, 11, 6, 6, 3, 3, 1, 1, 2, 2, Padding::kSame, Activation::kReluN1To1};
  ExpectMatches(Depthwise(dil), Name("DEPTHWISE_CONV_2D", dil));
  ConvSpec rect{1, 9, 10, 5, 5, 3, 5, 2, 1, 1, 1, Padding::kSame, Activation::kTanh};
  rect.bias = false;
  ExpectMatches(Depthwise(rect), Name("DEPTHWISE_CONV_2D", rect));
  ConvSpec k5b2{2, 6, 6, 33, 33, 5, 5, 1, 1, 1, 1, Padding::kSame, Activation::kNone};
  ExpectMatches(Depthwise(k5b2), Name("DEPTHWISE_CONV_2D", k5b2));
}

ir::Graph FullyConnected(const ir::Shape& in, int out_n, bool keep_dims, Activation act, bool bias,
                         ir::Shape* out_shape = nullptr) {
  GraphBuilder b("fc");
  const int x = b.Input(in);
  const int in_n = in.back();
  const int w = b.Const({out_n, in_n}, RandomFloats(out_n * in_n, -0.5f, 0.5f, 13));
  const int bb = bias ? b.Const({out_n}, RandomFloats(out_n, -0.5f, 0.5f, 14)) : -1;
  ir::Shape ys = in;
  if (keep_dims) {
    ys.back() = out_n;
  } else {
    ys = {static_cast<int32_t>(ir::NumElements(in) / in_n), out_n};
  }
  const int y = b.Tensor(ys);
  ir::FullyConnectedOptions o;
  o.activation = act;
  o.keep_num_dims = keep_dims;
  b.Op(OpType::kFullyConnected, bias ? std::vector<int>{x, w, bb} : std::vector<int>{x, w}, {y}, o);
  b.Output(y);
  if (out_shape) *out_shape = ys;
  return b.Build();
}

// The inventory's FULLY_CONNECTED (act NONE, keep_num_dims false, rank-2
// input; hand_landmark's heads are 1152 -> 63 / 1 / 1), then up to 4 rows (a
// warp per output) and more (the GEMM), keep_num_dims, activations, no bias.
TEST(CudaConvOpsTest, FullyConnectedMatchesReference) {
  ExpectMatches(FullyConnected({1, 1152}, 63, false, Activation::kNone, true), "FC 1152->63");
  ExpectMatches(FullyConnected({1, 1152}, 1, false, Activation::kNone, true), "FC 1152->1");
  ExpectMatches(FullyConnected({1, 40}, 10, false, Activation::kNone, true), "FC 40->10");
  ExpectMatches(FullyConnected({3, 50}, 20, false, Activation::kRelu6, true),
                "FC 3x50->20 RELU6 (warp per output)");
  ExpectMatches(FullyConnected({4, 33}, 7, false, Activation::kNone, false),
                "FC 4x33->7 nobias (warp per output)");
  ExpectMatches(FullyConnected({5, 70}, 33, false, Activation::kRelu, true),
                "FC 5x70->33 RELU (GEMM)");
  ExpectMatches(FullyConnected({2, 3, 40}, 10, true, Activation::kRelu6, false),
                "FC [2,3,40]->10 keep_num_dims RELU6 nobias");
  ExpectMatches(FullyConnected({2, 3, 40}, 10, false, Activation::kTanh, true),
                "FC [2,3,40]->[6,10] TANH");
}

ir::Graph TransposeConv(int n, int h, int w, int ic, int oc, int k, int s, Padding pad) {
  GraphBuilder b("tconv");
  const int x = b.Input({n, h, w, ic});
  const int wt = b.Const({oc, k, k, ic}, RandomFloats(oc * k * k * ic, -0.5f, 0.5f, 15));
  const int bias = b.Const({oc}, RandomFloats(oc, -0.5f, 0.5f, 16));
  auto out = [&](int in) {
    const int total = pad == Padding::kSame ? std::max(0, k - (in - 1) % s - 1) : 0;
    return s * (in - 1) + k - total;
  };
  const int y = b.Tensor({n, out(h), out(w), oc});
  b.Op(OpType::kTransposeConvBias, {x, wt, bias}, {y}, ir::TransposeConvOptions{pad, s, s});
  b.Output(y);
  return b.Build();
}

// The inventory's Convolution2DTransposeBias (k2 s2 SAME, selfie's
// upsampling) on even and odd sizes, and overlapping windows (k3/k4 s2),
// VALID, batch 2.
TEST(CudaConvOpsTest, TransposeConvBiasMatchesReference) {
  ExpectMatches(TransposeConv(1, 4, 6, 4, 3, 2, 2, Padding::kSame), "tconv k2 s2 SAME even");
  ExpectMatches(TransposeConv(1, 5, 7, 4, 3, 2, 2, Padding::kSame), "tconv k2 s2 SAME odd");
  ExpectMatches(TransposeConv(1, 16, 16, 16, 16, 2, 2, Padding::kSame), "tconv k2 s2 [16,16,16]");
  ExpectMatches(TransposeConv(2, 5, 6, 5, 7, 3, 2, Padding::kSame), "tconv k3 s2 SAME batch 2");
  ExpectMatches(TransposeConv(1, 4, 5, 3, 4, 4, 2, Padding::kValid), "tconv k4 s2 VALID");
  ExpectMatches(TransposeConv(1, 4, 4, 3, 2, 3, 1, Padding::kSame), "tconv k3 s1 SAME");
}

ir::Graph Pool(OpType type, int n, int h, int w, int c, int k, int s, Padding pad,
               Activation act = Activation::kNone) {
  GraphBuilder b("pool");
  const int x = b.Input({n, h, w, c});
  const ir::PadOut py = ir::ComputePadding(pad, h, k, s, 1), px = ir::ComputePadding(pad, w, k, s, 1);
  const int y = b.Tensor({n, py.out, px.out, c});
  ir::Pool2DOptions o;
  o.padding = pad;
  o.stride_h = o.stride_w = s;
  o.filter_h = o.filter_w = k;
  o.activation = act;
  b.Op(type, {x}, {y}, o);
  b.Output(y);
  return b.Build();
}

// MAX_POOL_2D f2 s2 VALID / SAME and the global AVERAGE_POOL_2D sizes of the
// inventory (16, 32, 64, 128), plus padded averages (in-image tap count),
// fused activations, batch 2, global max.
TEST(CudaConvOpsTest, PoolsMatchReference) {
  using P = Padding;
  const OpType kMax = OpType::kMaxPool2D, kAvg = OpType::kAveragePool2D;
  ExpectMatches(Pool(kMax, 1, 9, 9, 5, 2, 2, P::kValid), "max f2 s2 VALID odd");
  ExpectMatches(Pool(kMax, 1, 8, 8, 5, 2, 2, P::kValid), "max f2 s2 VALID even");
  ExpectMatches(Pool(kMax, 1, 9, 9, 5, 2, 2, P::kSame), "max f2 s2 SAME odd");
  ExpectMatches(Pool(kMax, 2, 10, 10, 40, 2, 2, P::kSame), "max f2 s2 SAME batch 2");
  for (int size : {16, 32, 64, 128}) {
    ExpectMatches(Pool(kAvg, 1, size, size, size == 128 ? 8 : 40, size, size, P::kValid),
                  absl::StrCat("global avg ", size));
  }
  ExpectMatches(Pool(kAvg, 2, 7, 7, 3, 7, 7, P::kValid, Activation::kRelu6),
                "global avg batch 2 RELU6");
  ExpectMatches(Pool(kMax, 1, 6, 6, 35, 6, 6, P::kValid), "global max");
  ExpectMatches(Pool(kAvg, 1, 9, 9, 3, 3, 2, P::kSame), "avg f3 s2 SAME");
  ExpectMatches(Pool(kAvg, 1, 10, 11, 4, 3, 1, P::kSame, Activation::kRelu), "avg f3 s1 SAME RELU");
  ExpectMatches(Pool(kMax, 1, 10, 11, 4, 3, 2, P::kValid, Activation::kReluN1To1),
                "max f3 s2 VALID RELU_N1_TO_1");
}

// The conv-family cases of the shared differential harness (StandardOpCases),
// through this family alone.
TEST(CudaConvOpsTest, StandardOpCasesOfTheFamilyMatchReference) {
  int run = 0;
  for (const inference::testing::OpCase& c : inference::testing::StandardOpCases()) {
    bool family = !c.graph.ops.empty();
    for (const ir::Op& op : c.graph.ops) family = family && IsConvFamilyOp(op.type);
    if (!family) continue;
    DiffOptions o;
    o.lo = c.input_lo, o.hi = c.input_hi;
    ExpectMatches(c.graph, c.name, o);
    ++run;
  }
  EXPECT_GE(run, 30);
}

TEST(CudaConvOpsTest, FamilyMembership) {
  for (OpType t : {OpType::kConv2D, OpType::kDepthwiseConv2D, OpType::kFullyConnected,
                   OpType::kTransposeConvBias, OpType::kAveragePool2D, OpType::kMaxPool2D}) {
    EXPECT_TRUE(IsConvFamilyOp(t)) << ir::OpTypeName(t);
  }
  for (OpType t : {OpType::kAdd, OpType::kPad, OpType::kTransformTensorBilinear}) {
    EXPECT_FALSE(IsConvFamilyOp(t)) << ir::OpTypeName(t);
  }
}

// Bad ops are rejected by Check and Prepare with a status naming the op,
// never a crash; nothing is launched.
TEST(CudaConvOpsTest, RejectsBadOpsNamingThem) {
  ConvSpec s;
  ir::Graph grouped = Conv(s);
  grouped.tensors[grouped.ops[0].inputs[1]].shape = {12, 3, 3, 4};  // filter depth 4 != 8
  grouped.tensors[grouped.ops[0].inputs[1]].data.resize(12 * 9 * 4 * sizeof(float));
  absl::Status st = CheckConvFamilyOp(grouped, 0);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("operator 0 (CONV_2D) of conv"), std::string::npos) << st;

  ir::Graph runtime_weights = Conv(s);
  runtime_weights.tensors[runtime_weights.ops[0].inputs[1]].is_constant = false;
  st = CheckConvFamilyOp(runtime_weights, 0);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("must be a constant"), std::string::npos) << st;

  ir::Graph wrong_out = Depthwise(s);
  wrong_out.tensors[wrong_out.ops[0].outputs[0]].shape[1] += 1;
  st = CheckConvFamilyOp(wrong_out, 0);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("DEPTHWISE_CONV_2D"), std::string::npos) << st;

  ir::Graph int_pool = Pool(OpType::kMaxPool2D, 1, 4, 4, 2, 2, 2, Padding::kValid);
  int_pool.tensors[int_pool.ops[0].inputs[0]].dtype = ir::DType::kInt32;
  EXPECT_FALSE(CheckConvFamilyOp(int_pool, 0).ok());

  GraphBuilder b("notconv");
  const int x = b.Input({1, 4});
  const int y = b.Tensor({1, 4});
  b.Op(OpType::kRelu, {x}, {y});
  b.Output(y);
  const ir::Graph relu = b.Build();
  EXPECT_EQ(CheckConvFamilyOp(relu, 0).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(CheckConvFamilyOp(relu, 5).ok());

  auto ctx = testing::TestOpContext::Create(grouped);
  ASSERT_TRUE(ctx.ok()) << ctx.status();
  auto k = PrepareConvFamilyOp(grouped, 0, **ctx);
  EXPECT_FALSE(k.ok());
  EXPECT_EQ((*ctx)->num_uploaded_constants(), 0);
}

// Prepare uploads its repacked weights once; the launcher can be replayed
// (as a captured CUDA graph is) without uploading again.
TEST(CudaConvOpsTest, PreparedKernelUploadsOnceAndRelaunches) {
  ConvSpec s;
  const ir::Graph g = Conv(s);
  auto ctx = testing::TestOpContext::Create(g);
  ASSERT_TRUE(ctx.ok()) << ctx.status();
  auto k = PrepareConvFamilyOp(g, 0, **ctx);
  ASSERT_TRUE(k.ok()) << k.status();
  const int uploads = (*ctx)->num_uploaded_constants();
  EXPECT_EQ(uploads, 1);  // the repacked filter; the bias is the graph's constant
  for (int i = 0; i < 3; ++i) EXPECT_EQ((*k)((*ctx)->stream()), cudaSuccess);
  EXPECT_TRUE((*ctx)->Sync().ok());
  EXPECT_EQ((*ctx)->num_uploaded_constants(), uploads);
}

}  // namespace
}  // namespace sluice::inference::cuda
