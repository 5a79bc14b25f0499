#include "inference/xnnpack/xnnpack_backend.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "inference/reference/reference_kernels.h"
#include "inference/testing/graph_builder.h"
#include "inference/testing/op_harness.h"
#include "inference/xnnpack/add_mean.h"
#include "inference/xnnpack/branch_schedule.h"
#include "inference/xnnpack/conv2x2.h"
#include "inference/xnnpack/dw_add_upsample.h"
#include "inference/xnnpack/gemv_conv.h"
#include "inference/xnnpack/max_pool.h"
#include "inference/xnnpack/pointwise_conv.h"
#include "inference/xnnpack/prelu_scale.h"
#include "inference/xnnpack/resize_bilinear.h"
#include "inference/xnnpack/stem_conv.h"
#include "inference/xnnpack/upsample_conv.h"
#include "inference/xnnpack/work_pool.h"
#include "util/scoped_env.h"

namespace sluice::inference::xnn {
namespace {

using ir::OpType;
using testing::GraphBuilder;

// These tests check the parallel paths on small shapes, which the backend
// would otherwise run on the caller alone (SLUICE_XNNPACK_SERIAL_WORK, its
// default limit): every step on the pool unless the variable is set outside.
// TinyStepsRunOnTheCallerAlone checks the default.
const bool kAllStepsOnThePool = setenv("SLUICE_XNNPACK_SERIAL_WORK", "0", 0) == 0;

// Runs `graph` on a backend with the given input values; returns output 0.
std::vector<float> RunOn(const Backend& backend, const ir::Graph& graph,
                         const std::vector<std::vector<float>>& inputs, int threads = 1,
                         std::vector<std::string>* placement = nullptr) {
  auto compiled = backend.Compile(graph, BackendOptions{threads});
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return {};
  CompiledModel& m = **compiled;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::memcpy(m.Inputs()[i].data, inputs[i].data(), inputs[i].size() * sizeof(float));
  }
  const absl::Status s = m.Invoke();
  EXPECT_TRUE(s.ok()) << s;
  if (placement) *placement = m.OpPlacement();
  const IoTensor& out = m.Outputs()[0];
  return std::vector<float>(out.f32(), out.f32() + out.num_elements());
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "element " << i;
  }
}

// The same bits: the own kernels keep the float operations, in order, of the
// path their A/B switch restores. `what` names the comparison on failure.
void ExpectSameBits(const std::vector<float>& got, const std::vector<float>& want,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  if (got.empty()) return;  // (memcmp takes no null pointers, even for 0 bytes)
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << what;
}

// RunOn with an own kernel's A/B switch `name` set to "0" (read when a model
// is compiled).
std::vector<float> RunOnSwitchedOff(const char* name, const Backend& backend,
                                    const ir::Graph& graph,
                                    const std::vector<std::vector<float>>& inputs, int threads,
                                    std::vector<std::string>* placement = nullptr) {
  ScopedEnv off(name, "0");
  return RunOn(backend, graph, inputs, threads, placement);
}

// in [1,5,5,3] -> conv 3x3 SAME -> (t1) ; conv 1x1 -> (t2); CONCAT(t1, t2) on
// channels (no XNNPACK node in this version) -> ADD bias -> RELU6: the concat
// must run as a reference island between two XNNPACK runs.
// With `fp16_filter` the first filter is stored fp16 behind a DEQUANTIZE; its
// values are multiples of 1/8 so that fp16 holds them exactly and
// ConvConcatAddGraph(false, true) is the same network in fp32.
ir::Graph ConvConcatAddGraph(bool fp16_filter, bool round_weights = false) {
  GraphBuilder b("concat_island");
  const int in = b.Input({1, 5, 5, 3});
  std::vector<float> w1 = testing::RandomFloats(4 * 3 * 3 * 3, -1, 1, 7);
  if (round_weights || fp16_filter) {
    for (float& w : w1) w = std::lround(w * 8) / 8.0f;
  }
  int f1;
  if (fp16_filter) {
    // An fp16 constant behind an unfolded DEQUANTIZE: converted at compile time.
    std::vector<uint16_t> half(w1.size());
    for (size_t i = 0; i < w1.size(); ++i) {
      // Values k/8 are exact in fp16: sign | exponent | mantissa by hand.
      const int k = static_cast<int>(std::lround(w1[i] * 8));
      w1[i] = k / 8.0f;
      if (k == 0) {
        half[i] = 0;
        continue;
      }
      const float a = std::fabs(static_cast<float>(k)) / 8.0f;
      int e = static_cast<int>(std::floor(std::log2(a)));
      const int mant = static_cast<int>(std::lround((a / std::ldexp(1.0f, e) - 1.0f) * 1024));
      half[i] = static_cast<uint16_t>((k < 0 ? 0x8000 : 0) | ((e + 15) << 10) | mant);
    }
    const int h = b.ConstBytes({4, 3, 3, 3}, ir::DType::kFloat16, half.data(), half.size() * 2);
    f1 = b.Tensor({4, 3, 3, 3});
    b.Op(OpType::kDequantize, {h}, {f1});
  } else {
    f1 = b.Const({4, 3, 3, 3}, w1);
  }
  const int bias1 = b.Const({4}, {0.1f, -0.2f, 0.3f, 0.0f});
  const int t1 = b.Tensor({1, 5, 5, 4});
  ir::Conv2DOptions c1;
  c1.padding = ir::Padding::kSame;
  b.Op(OpType::kConv2D, {in, f1, bias1}, {t1}, c1);
  const int f2 = b.Const({2, 1, 1, 3}, testing::RandomFloats(6, -1, 1, 8));
  const int t2 = b.Tensor({1, 5, 5, 2});
  b.Op(OpType::kConv2D, {in, f2, -1}, {t2}, ir::Conv2DOptions{});
  const int cat = b.Tensor({1, 5, 5, 6});
  ir::ConcatenationOptions co;
  co.axis = 3;
  b.Op(OpType::kConcatenation, {t1, t2}, {cat}, co);
  const int bias = b.Const({6}, {0.5f, -0.5f, 1.f, -1.f, 2.f, 0.f});
  const int out = b.Tensor({1, 5, 5, 6});
  ir::BinaryOptions ao;
  ao.activation = ir::Activation::kRelu6;
  b.Op(OpType::kAdd, {cat, bias}, {out}, ao);
  b.Output(out);
  return b.Build();
}

TEST(XnnpackBackendTest, RunsUnsupportedOpsAsReferenceIslands) {
  const ir::Graph g = ConvConcatAddGraph(/*fp16_filter=*/false);
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<float> x = testing::RandomFloats(75, -1, 1, 3);
  std::vector<std::string> placement;
  const std::vector<float> got = RunOn(*xnn, g, {x}, 1, &placement);
  EXPECT_EQ(placement, (std::vector<std::string>{"xnnpack", "xnnpack", "reference", "xnnpack"}));
  ExpectNear(got, RunOn(*ref, g, {x}), 1e-5f);
}

TEST(XnnpackBackendTest, ConvertsFp16WeightsBehindDequantizeAtCompileTime) {
  const ir::Graph g = ConvConcatAddGraph(/*fp16_filter=*/true);
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<float> x = testing::RandomFloats(75, -1, 1, 4);
  std::vector<std::string> placement;
  const std::vector<float> got = RunOn(*xnn, g, {x}, 1, &placement);
  ASSERT_EQ(placement.size(), 5u);
  EXPECT_EQ(placement[0], "xnnpack");  // the DEQUANTIZE: folded, no kernel
  // The reference backend needs folded weights: it gets the fp32 twin.
  ExpectNear(got, RunOn(*ref, ConvConcatAddGraph(false, true), {x}), 1e-5f);
}

TEST(XnnpackBackendTest, ThreadCountDoesNotChangeResults) {
  const ir::Graph g = ConvConcatAddGraph(false);
  auto xnn = CreateXnnpackBackend();
  const std::vector<float> x = testing::RandomFloats(75, -1, 1, 5);
  ExpectNear(RunOn(*xnn, g, {x}, 2), RunOn(*xnn, g, {x}, 1), 1e-6f);
}

// BlazeBlock tail: x -> PAD -> DEPTHWISE 3x3 -> CONV 1x1 (45 ch) -> ADD(residual
// r zero-padded from 40 to 45 channels by a PAD) -> PRELU, plus a CONV 1x1 -> PRELU and a CONV 1x1
// read twice (not absorbed): the xnnpack backend runs the 1x1 convolutions on its own kernel and
// folds the ADD and PRELU into them where it can (pointwise_conv.h).
ir::Graph PointwiseChainGraph() {
  GraphBuilder b("pointwise_chain");
  const int x = b.Input({1, 5, 7, 19});
  const int r40 = b.Input({1, 5, 7, 40});
  const int r = b.Tensor({1, 5, 7, 45});
  b.Op(OpType::kPad, {r40, b.ConstInt({4, 2}, {0, 0, 0, 0, 0, 0, 0, 5})}, {r});
  // Explicit spatial PAD + VALID depthwise (absorbed into our depthwise).
  const int xp = b.Tensor({1, 7, 9, 19});
  b.Op(OpType::kPad, {x, b.ConstInt({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0})}, {xp});
  const int dw = b.Tensor({1, 5, 7, 19});
  ir::DepthwiseConv2DOptions d;
  d.padding = ir::Padding::kValid;
  b.Op(OpType::kDepthwiseConv2D,
       {xp, b.Const({1, 3, 3, 19}, testing::RandomFloats(171, -1, 1, 21)), -1}, {dw}, d);
  const int c1 = b.Tensor({1, 5, 7, 45});
  b.Op(OpType::kConv2D,
       {dw, b.Const({45, 1, 1, 19}, testing::RandomFloats(45 * 19, -1, 1, 22)),
        b.Const({45}, testing::RandomFloats(45, -1, 1, 23))},
       {c1}, ir::Conv2DOptions{});
  const int sum = b.Tensor({1, 5, 7, 45});
  ir::BinaryOptions ao;
  ao.activation = ir::Activation::kRelu6;
  b.Op(OpType::kAdd, {r, c1}, {sum}, ao);
  const int p1 = b.Tensor({1, 5, 7, 45});
  b.Op(OpType::kPrelu, {sum, b.Const({1, 1, 45}, testing::RandomFloats(45, -1, 1, 24))}, {p1});
  // CONV 1x1 -> PRELU, no ADD.
  const int c2 = b.Tensor({1, 5, 7, 16});
  b.Op(OpType::kConv2D, {p1, b.Const({16, 1, 1, 45}, testing::RandomFloats(720, -1, 1, 25)), -1},
       {c2}, ir::Conv2DOptions{});
  const int p2 = b.Tensor({1, 5, 7, 16});
  b.Op(OpType::kPrelu, {c2, b.Const({16}, testing::RandomFloats(16, -1, 1, 26))}, {p2});
  // A CONV 1x1 whose output two ops read: nothing to absorb.
  const int c3 = b.Tensor({1, 5, 7, 16});
  b.Op(OpType::kConv2D, {p2, b.Const({16, 1, 1, 16}, testing::RandomFloats(256, -1, 1, 27)), -1},
       {c3}, ir::Conv2DOptions{});
  const int out = b.Tensor({1, 5, 7, 16});
  b.Op(OpType::kAdd, {c3, c3}, {out}, ir::BinaryOptions{});
  b.Output(out);
  return b.Build();
}

TEST(XnnpackBackendTest, FusedPointwiseChainsMatchReference) {
  const ir::Graph g = PointwiseChainGraph();
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<float> x = testing::RandomFloats(5 * 7 * 19, -1, 1, 31);
  const std::vector<float> r = testing::RandomFloats(5 * 7 * 40, -1, 1, 32);
  const std::vector<float> want = RunOn(*ref, g, {x, r});
  ExpectNear(RunOn(*xnn, g, {x, r}, 1), want, 1e-5f);
  ExpectNear(RunOn(*xnn, g, {x, r}, 2), want, 1e-5f);
  // Profiled, every op is its own step, except what the chains absorbed:
  // PAD+DEPTHWISE, CONV+PAD+ADD+PRELU, CONV+PRELU, CONV, ADD.
  if (PointwiseConvAvailable() && !std::getenv("SLUICE_XNNPACK_OWN_GEMM")) {
    BackendOptions o;
    o.profile_ops = true;
    auto m = xnn->Compile(g, o);
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_TRUE((*m)->Invoke().ok());
    const std::vector<OpTime> times = (*m)->OpTimes();
    ASSERT_EQ(times.size(), 5u);
    // Each step lists the ops it runs (its first op first); together they
    // are every op of the graph, once.
    std::vector<size_t> sizes;
    std::vector<int> all;
    for (const OpTime& t : times) {
      ASSERT_FALSE(t.ops.empty());
      EXPECT_EQ(t.ops.front(), t.op);
      sizes.push_back(t.ops.size());
      all.insert(all.end(), t.ops.begin(), t.ops.end());
    }
    std::sort(sizes.begin(), sizes.end());
    EXPECT_EQ(sizes, (std::vector<size_t>{1, 1, 2, 2, 4}));
    std::sort(all.begin(), all.end());
    std::vector<int> every(g.ops.size());
    for (size_t i = 0; i < every.size(); ++i) every[i] = static_cast<int>(i);
    EXPECT_EQ(all, every);
  }
}

// A CONV 1x1 K -> N on an h x w image; `variant` 0: alone (RELU6); 1: + ADD
// of a residual input (RELU); 2: + ADD of a residual with fewer channels
// zero-padded by a PAD, then PRELU; 3: after a 3x3 DEPTHWISE (the streamed
// pair, stream_conv.h, calls the 1x1 on a few rows at a time). Inputs: x,
// then the residual for variants 1 and 2.
ir::Graph NarrowPointwiseGraph(int h, int w, int k, int n, int variant, int residual_channels) {
  GraphBuilder b("narrow_pointwise");
  int x = b.Input({1, h, w, k});
  const int r = variant == 1 ? b.Input({1, h, w, n})
                : variant == 2 ? b.Input({1, h, w, residual_channels})
                               : -1;
  if (variant == 3) {
    const int dw = b.Tensor({1, h, w, k});
    ir::DepthwiseConv2DOptions d;
    d.padding = ir::Padding::kSame;
    b.Op(OpType::kDepthwiseConv2D,
         {x, b.Const({1, 3, 3, k}, testing::RandomFloats(9 * k, -1, 1, 101)), -1}, {dw}, d);
    x = dw;
  }
  const int c = b.Tensor({1, h, w, n});
  ir::Conv2DOptions co;
  co.activation = variant == 0 ? ir::Activation::kRelu6 : ir::Activation::kNone;
  b.Op(OpType::kConv2D,
       {x, b.Const({n, 1, 1, k}, testing::RandomFloats(n * k, -1, 1, 102)),
        b.Const({n}, testing::RandomFloats(n, -1, 1, 103))},
       {c}, co);
  int out = c;
  if (variant == 1 || variant == 2) {
    int res = r;
    if (variant == 2) {
      res = b.Tensor({1, h, w, n});
      b.Op(OpType::kPad,
           {r, b.ConstInt({4, 2}, {0, 0, 0, 0, 0, 0, 0, n - residual_channels})}, {res});
    }
    const int sum = b.Tensor({1, h, w, n});
    ir::BinaryOptions ao;
    ao.activation = variant == 1 ? ir::Activation::kRelu : ir::Activation::kNone;
    b.Op(OpType::kAdd, {c, res}, {sum}, ao);
    out = sum;
    if (variant == 2) {
      out = b.Tensor({1, h, w, n});
      b.Op(OpType::kPrelu, {sum, b.Const({n}, testing::RandomFloats(n, -1, 1, 104))}, {out});
    }
  }
  b.Output(out);
  return b.Build();
}

// NarrowPointwiseGraph cases (sizes x n x k x its 4 variants, those `keep`
// accepts) on xnnpack at 1-3 threads: the same bits as with `switch_name`
// set to 0, and within 1e-4 of the reference. Returns the number of cases.
int CheckPointwiseCasesAgainstSwitch(const char* switch_name,
                                     std::initializer_list<std::pair<int, int>> sizes,
                                     std::initializer_list<int> ns, std::initializer_list<int> ks,
                                     int residual_less, uint32_t seed,
                                     const std::function<bool(int, int, int, int)>& keep) {
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  int cases = 0;
  for (const auto& [h, w] : sizes) {
    for (int n : ns) {
      for (int k : ks) {
        for (int variant = 0; variant < 4; ++variant) {
          if (!keep(h, n, k, variant)) continue;
          const int rc = std::max(1, n - residual_less);
          const ir::Graph g = NarrowPointwiseGraph(h, w, k, n, variant, rc);
          const int pixels = h * w;
          std::vector<std::vector<float>> in = {testing::RandomFloats(pixels * k, -2, 2, seed + n)};
          if (variant == 1) in.push_back(testing::RandomFloats(pixels * n, -2, 2, seed + 1));
          if (variant == 2) in.push_back(testing::RandomFloats(pixels * rc, -2, 2, seed + 2));
          SCOPED_TRACE(::testing::Message() << h << "x" << w << " K=" << k << " N=" << n
                                            << " variant=" << variant);
          const std::vector<float> want = RunOn(*ref, g, in);
          for (int threads = 1; threads <= 3; ++threads) {
            const std::vector<float> got = RunOn(*xnn, g, in, threads);
            ExpectSameBits(got, RunOnSwitchedOff(switch_name, *xnn, g, in, threads),
                           "threads " + std::to_string(threads));
            ExpectNear(got, want, 1e-4f);
          }
          ++cases;
        }
      }
    }
  }
  return cases;
}

// PointwiseConv alone, K = k inputs, N = n outputs, with an ADD and a PRELU
// after it (or, with `plain`, neither), on random data (seeds seed .. seed +
// 4), row ranges bounds[i] .. bounds[i + 1] (bounds.back() rows in all), with
// the A/B switch `name` set to `value`: row ranges that start mid-image, as
// threads' chunks and staged sources call it. `split_last`: the last range in
// two block ranges (blocks 0..1, then 1..end), as a thread's block split runs it.
std::vector<float> RunPointwiseAlone(int k, int n, uint32_t seed, const char* name,
                                     const char* value, const std::vector<size_t>& bounds,
                                     bool split_last, bool plain = false) {
  const size_t rows = bounds.back();
  const std::vector<float> w = testing::RandomFloats(n * k, -1, 1, seed);
  const std::vector<float> bias = testing::RandomFloats(n, -1, 1, seed + 1);
  const std::vector<float> in = testing::RandomFloats(rows * k, -2, 2, seed + 2);
  const std::vector<float> res = testing::RandomFloats(rows * n, -2, 2, seed + 3);
  const std::vector<float> slope = testing::RandomFloats(n, -1, 1, seed + 4);
  std::vector<float> out(rows * n, -7.0f);
  const ScopedEnv env(name, value);
  PointwiseConv conv(k, n, w.data(), bias.data(), -1.5f, 1.5f);
  if (!plain) {
    conv.SetResidualAdd(-2.0f, 2.0f);
    conv.SetPrelu(slope.data());
  }
  const float* residual = plain ? nullptr : res.data();
  const size_t last = bounds.size() - 2;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    if (split_last && i == last) {
      conv.Run(in.data(), residual, out.data(), bounds[i], bounds[i + 1], 0, 1);
      conv.Run(in.data(), residual, out.data(), bounds[i], bounds[i + 1], 1);
    } else {
      conv.Run(in.data(), residual, out.data(), bounds[i], bounds[i + 1]);
    }
  }
  return out;
}

// The narrow tile for N <= 8 (pointwise_conv.h): the same bits as the 7x16
// tile (SLUICE_XNNPACK_PW_NARROW=0) and close to the reference, for N = 1..8
// and wider (12, 16: the switch must not matter), K = 3..40, row counts that
// are not whole tiles (5 x 13 = 65 = 28 + 28 + 8 + 1; 3 x 3; 16 x 19 = 304),
// with ADD, channel-padded ADD + PRELU, behind a depthwise, 1-3 threads.
TEST(XnnpackBackendTest, NarrowPointwiseMatchesWideTileBitForBit) {
  const int cases = CheckPointwiseCasesAgainstSwitch(
      "SLUICE_XNNPACK_PW_NARROW", {{5, 13}, {3, 3}, {16, 19}}, {1, 2, 3, 4, 5, 6, 7, 8, 12, 16},
      {3, 8, 24, 40}, /*residual_less=*/2, /*seed=*/105,
      // other sizes than 5 x 13: a third of the cases
      [](int h, int n, int k, int variant) { return h == 5 || (variant + n + k) % 3 == 0; });
  EXPECT_GT(cases, 200);
}

// The register-weight tiles for N <= 16, K = 16 or 24 (pointwise_conv.h):
// the same bits as Tile<1> (SLUICE_XNNPACK_PW_REGS=0) and close to the
// reference, for N = 9..16 (masked stores), K = 16 and 24 (8 weights past
// the registers) and 17 (not taken: the switch must not matter), row
// counts that are not whole 12-row tiles (65, 304, 144), with ADD,
// channel-padded ADD + PRELU, behind a depthwise, 1-3 threads. Then the
// kernel alone on row ranges that start mid-image (threads' chunks, the
// staged sources' calls), so a broken offset cannot hide behind a matcher.
TEST(XnnpackBackendTest, RegisterWeightPointwiseMatchesTile1BitForBit) {
  const int cases = CheckPointwiseCasesAgainstSwitch(
      "SLUICE_XNNPACK_PW_REGS", {{5, 13}, {16, 19}, {12, 12}}, {9, 12, 16}, {16, 17, 24},
      /*residual_less=*/3, /*seed=*/205, [](int, int, int, int) { return true; });
  EXPECT_EQ(cases, 108);
  if (!PointwiseConvAvailable()) return;
  for (int k : {16, 24}) {
    for (int n : {10, 16}) {
      const std::vector<size_t> bounds = {0, 3, 29, 77, 100};
      ExpectSameBits(
          RunPointwiseAlone(k, n, 208, "SLUICE_XNNPACK_PW_REGS", "1", bounds, false),
          RunPointwiseAlone(k, n, 208, "SLUICE_XNNPACK_PW_REGS", "0", bounds, false),
          "K=" + std::to_string(k) + " N=" + std::to_string(n));
    }
  }
}

// The 3-register narrow tile for 16 < N <= 24 (pointwise_conv.h): the same
// bits as Tile<2> (SLUICE_XNNPACK_PW_NARROW24=0) and close to the
// reference, for N = 17, 20, 24 (partial last registers) and 25 (not taken),
// K = 3, 24, 72, 128 (the most the tile takes) and 129 (not taken), row
// counts that are not whole 14-row tiles (65, 304, 9), with ADD,
// channel-padded ADD + PRELU, behind a depthwise, 1-3 threads.
TEST(XnnpackBackendTest, Narrow24PointwiseMatchesWideTileBitForBit) {
  const int cases = CheckPointwiseCasesAgainstSwitch(
      "SLUICE_XNNPACK_PW_NARROW24", {{5, 13}, {16, 19}, {3, 3}}, {17, 20, 24, 25},
      {3, 24, 72, 128, 129}, /*residual_less=*/5, /*seed=*/405,
      [](int h, int n, int k, int variant) { return h == 5 || (variant + n + k) % 2 == 0; });
  EXPECT_GT(cases, 100);
}

// The last channel block on the register-weight tiles (N > 32 with a last
// block of <= 16 channels, K = 16 or 24: the selfie's 16 -> 72): the same
// bits as Tile<1> (SLUICE_XNNPACK_PW_REGS_TAIL=0) and close to the
// reference, for N = 40, 48, 72 (8 and 16 channels left), 56 (24 left: not
// taken), K = 16, 24, 17, rows not whole 84-row chunks or 12-row tiles,
// with ADD, channel-padded ADD + PRELU, 1-3 threads. Then the kernel alone
// on row ranges that start mid-image and on split block ranges.
TEST(XnnpackBackendTest, RegisterWeightLastBlockMatchesTile1BitForBit) {
  const int cases = CheckPointwiseCasesAgainstSwitch(
      "SLUICE_XNNPACK_PW_REGS_TAIL", {{5, 13}, {16, 19}, {12, 12}}, {40, 48, 56, 72}, {16, 17, 24},
      /*residual_less=*/3, /*seed=*/305, [](int, int, int, int) { return true; });
  EXPECT_GT(cases, 100);
  if (!PointwiseConvAvailable()) return;
  for (int k : {16, 24}) {
    for (int n : {40, 72}) {
      const std::vector<size_t> bounds = {0, 3, 29, 113, 200};
      ExpectSameBits(
          RunPointwiseAlone(k, n, 308, "SLUICE_XNNPACK_PW_REGS_TAIL", "1", bounds, true),
          RunPointwiseAlone(k, n, 308, "SLUICE_XNNPACK_PW_REGS_TAIL", "0", bounds, true),
          "K=" + std::to_string(k) + " N=" + std::to_string(n));
    }
  }
}

// The K = 8 register-weight tile (16 < N <= 32, no ADD / PRELU: the
// streamed 8 -> 32 expands): the same bits as Tile<2>
// (SLUICE_XNNPACK_PW_K8=0) and close to the reference, for N = 17, 24, 32
// and 40 / K = 7, 9 (not taken), rows not whole 7-row tiles, every graph
// variant (those with ADD / PRELU keep Tile<2>), 1-3 threads. Then the
// kernel alone (no ADD / PRELU) on row ranges that start mid-image.
TEST(XnnpackBackendTest, K8RegisterWeightPointwiseMatchesTile2BitForBit) {
  const int cases = CheckPointwiseCasesAgainstSwitch(
      "SLUICE_XNNPACK_PW_K8", {{5, 13}, {16, 19}, {3, 3}}, {17, 24, 32, 40}, {7, 8, 9},
      /*residual_less=*/3, /*seed=*/505,
      [](int h, int n, int k, int variant) { return k == 8 || (h == 5 && variant == 0); });
  EXPECT_GT(cases, 40);
  if (!PointwiseConvAvailable()) return;
  for (int n : {20, 32}) {
    const std::vector<size_t> bounds = {0, 3, 29, 77, 100};
    ExpectSameBits(
        RunPointwiseAlone(8, n, 506, "SLUICE_XNNPACK_PW_K8", "1", bounds, false, /*plain=*/true),
        RunPointwiseAlone(8, n, 506, "SLUICE_XNNPACK_PW_K8", "0", bounds, false, /*plain=*/true),
        "N=" + std::to_string(n));
  }
}

// A k x k, stride `stride` convolution-like op's tensors in `b`: input
// [1, h, w, c] and output [1, oh, ow, out_c] by TFLite's padding rule (ph and
// pw for callers that need the padding), and its options.
struct SquareConvTensors {
  int x, y;
  ir::PadOut ph, pw;
};
SquareConvTensors AddSquareConvTensors(GraphBuilder& b, int h, int w, int c, int k, int stride,
                                       ir::Padding padding, int out_c) {
  SquareConvTensors t;
  t.x = b.Input({1, h, w, c});
  t.ph = ir::ComputePadding(padding, h, k, stride, 1);
  t.pw = ir::ComputePadding(padding, w, k, stride, 1);
  t.y = b.Tensor({1, t.ph.out, t.pw.out, out_c});
  return t;
}
template <typename Options>
Options SquareConvOptions(ir::Padding padding, int stride, ir::Activation act) {
  Options o;
  o.padding = padding;
  o.stride_h = o.stride_w = stride;
  o.activation = act;
  return o;
}

// Depthwise convolutions on our kernel (depthwise_conv.h), beyond the op
// harness's 8-channel cases: wide layers (384, 672 channels), a last
// 16-channel group partly used (40, 72), strides 1 and 2, 3x3 and 5x5, SAME
// and VALID, rows whose interior is not a whole number of 8-pixel blocks,
// images smaller than the kernel, each activation; C = 8, 24, 40 at stride 1
// (the flat pixel-pair path: whole blocks of pairs, a lone pair, an odd
// last pixel).
TEST(XnnpackBackendTest, DepthwiseConvolutionsMatchReference) {
  struct Case {
    int h, w, c, k, stride;
    ir::Padding padding;
    ir::Activation act;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{14, 14, 384, 5, 1, ir::Padding::kSame, ir::Activation::kNone},
                        Case{7, 7, 672, 3, 1, ir::Padding::kSame, ir::Activation::kRelu6},
                        Case{15, 17, 40, 3, 2, ir::Padding::kSame, ir::Activation::kRelu},
                        Case{9, 30, 72, 3, 1, ir::Padding::kValid, ir::Activation::kRelu6},
                        Case{13, 21, 24, 5, 2, ir::Padding::kValid, ir::Activation::kNone},
                        Case{2, 3, 96, 5, 1, ir::Padding::kSame, ir::Activation::kNone},
                        Case{28, 28, 144, 5, 2, ir::Padding::kSame, ir::Activation::kRelu},
                        Case{11, 23, 24, 3, 1, ir::Padding::kSame, ir::Activation::kRelu6},
                        Case{6, 19, 40, 5, 1, ir::Padding::kSame, ir::Activation::kNone},
                        Case{9, 37, 8, 3, 1, ir::Padding::kValid, ir::Activation::kRelu},
                        Case{5, 4, 24, 3, 1, ir::Padding::kSame, ir::Activation::kNone}}) {
    GraphBuilder b("depthwise");
    const auto [x, y, ph, pw] = AddSquareConvTensors(b, k.h, k.w, k.c, k.k, k.stride, k.padding, k.c);
    const auto o = SquareConvOptions<ir::DepthwiseConv2DOptions>(k.padding, k.stride, k.act);
    const int n = k.k * k.k * k.c;
    b.Op(OpType::kDepthwiseConv2D,
         {x, b.Const({1, k.k, k.k, k.c}, testing::RandomFloats(n, -1, 1, 71)),
          b.Const({k.c}, testing::RandomFloats(k.c, -1, 1, 72))},
         {y}, o);
    b.Output(y);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -1, 1, 73);
    const std::vector<float> want = RunOn(*ref, g, {in});
    ExpectNear(RunOn(*xnn, g, {in}, 1), want, 1e-5f);
    ExpectNear(RunOn(*xnn, g, {in}, 2), want, 1e-5f);
  }
}

// The depthwise fast paths (depthwise_conv.h, fast_): 16-channel rows:
// the constant-offset interior at stride 1 and 2, 3x3 and 5x5, SAME and VALID,
// interiors that are not whole 8-pixel blocks (13, 30 wide), with the
// DEPTHWISE -> ADD epilogue (the selfie decoders' 128x128x16 layer); the
// last interior block of 4 (16x16x128 5x5: 12 interior pixels); edge
// pixels of 8, 4 + 2, 2 + 1, 4 + 2 + 1 whole groups at once (C = 128, 96,
// 48, 112; C = 40: 2 whole groups and a partial one on the old path; a 5x6
// image whose rows are all edge rows); whole-group interior blocks (plain
// loads); the interior columns of the rows whose taps reach above or below
// the image in whole-group blocks (SLUICE_XNNPACK_DW_KY_BLOCKS; 9x16x128 5x5
// as in selfie_segmentation_landscape); interior blocks of 8, 4 and 1
// pixels two whole groups at a time (SLUICE_XNNPACK_DW_PAIRS; C = 128, 96,
// 64, 32: pairs only; 112, 48: a group left; 40: a pair and a partial
// group). The same bits as the general path (SLUICE_XNNPACK_DW16=0), as
// without the row blocks or the pairs, and close to the reference, 1 and 2
// threads.
TEST(XnnpackBackendTest, Depthwise16ChannelRowsMatchGeneralPathBitForBit) {
  struct Case {
    int h, w, c, k, stride;
    ir::Padding padding;
    bool add;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{13, 30, 16, 3, 1, ir::Padding::kSame, true},
                        Case{9, 13, 16, 3, 2, ir::Padding::kSame, false},
                        Case{12, 30, 16, 5, 1, ir::Padding::kValid, false},
                        Case{11, 29, 16, 5, 2, ir::Padding::kSame, true},
                        Case{32, 32, 16, 3, 1, ir::Padding::kSame, true},
                        Case{16, 16, 128, 5, 1, ir::Padding::kSame, false},
                        Case{10, 19, 40, 3, 1, ir::Padding::kSame, true},
                        Case{9, 11, 96, 5, 2, ir::Padding::kSame, false},
                        Case{8, 13, 48, 3, 2, ir::Padding::kSame, false},
                        Case{5, 6, 112, 5, 1, ir::Padding::kSame, true},
                        Case{12, 21, 64, 3, 1, ir::Padding::kSame, true},
                        Case{9, 16, 128, 5, 1, ir::Padding::kSame, false},
                        Case{18, 32, 32, 5, 2, ir::Padding::kSame, false}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " " << k.k << "x"
                                      << k.k << " stride " << k.stride);
    GraphBuilder b("depthwise16");
    const auto [x, y, ph, pw] = AddSquareConvTensors(b, k.h, k.w, k.c, k.k, k.stride, k.padding, k.c);
    const auto o = SquareConvOptions<ir::DepthwiseConv2DOptions>(k.padding, k.stride, ir::Activation::kRelu);
    const int n = k.k * k.k * k.c;
    b.Op(OpType::kDepthwiseConv2D,
         {x, b.Const({1, k.k, k.k, k.c}, testing::RandomFloats(n, -1, 1, 221)),
          b.Const({k.c}, testing::RandomFloats(k.c, -1, 1, 222))},
         {y}, o);
    int out = y;
    if (k.add && k.stride == 1 && k.padding == ir::Padding::kSame) {
      out = b.Tensor({1, k.h, k.w, k.c});
      b.Op(OpType::kAdd, {x, y}, {out}, ir::BinaryOptions{});
    }
    b.Output(out);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -1, 1, 223);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads = 1; threads <= 2; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_DW16", *xnn, g, {in}, threads),
                     "threads " + std::to_string(threads));
      ExpectSameBits(got,
                     RunOnSwitchedOff("SLUICE_XNNPACK_DW_KY_BLOCKS", *xnn, g, {in}, threads),
                     "row blocks, threads " + std::to_string(threads));
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_DW_PAIRS", *xnn, g, {in}, threads),
                     "group pairs, threads " + std::to_string(threads));
      ExpectNear(got, want, 1e-5f);
    }
  }
}

// One output channel, few input channels (narrow_conv.h): the pose models'
// segmentation head (3x3, 8 -> 1) and neighbours: SAME and VALID, 5x5 and
// 7x7, odd widths (masked tails; 8 channels: the in-register transpose, its
// gather tail, 8/4/1-register blocks), RELU6 and no bias. Tall images and
// heights that 1, 2 and 3 threads (2 bands each) do not divide, down to
// fewer rows than bands, so bands restage their halo rows and bottom
// padding rows reuse ring slots. Against the reference kernels; and the
// bits equal the whole-image version's (SLUICE_XNNPACK_NARROW_STREAM=0),
// XNNPACK's (SLUICE_XNNPACK_NARROW=0) and the packed plane rows'
// (SLUICE_XNNPACK_NARROW_ALIGN=0).
TEST(XnnpackBackendTest, NarrowConvolutionsMatchReference) {
  struct Case {
    int h, w, c, k;
    ir::Padding padding;
    ir::Activation act;
    bool bias;
  };
  using A = ir::Activation;
  constexpr auto kSame = ir::Padding::kSame, kValid = ir::Padding::kValid;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{37, 41, 8, 3, kSame, A::kNone, true},
                        Case{16, 16, 8, 3, kValid, A::kRelu6, true},
                        Case{9, 35, 3, 5, kSame, A::kRelu, false},
                        Case{7, 18, 16, 3, kSame, A::kNone, true},
                        Case{131, 20, 8, 3, kSame, A::kNone, true},
                        Case{97, 150, 8, 3, kSame, A::kRelu6, true},
                        Case{23, 200, 8, 5, kSame, A::kNone, false},
                        Case{67, 33, 4, 5, kSame, A::kNone, true},
                        Case{100, 17, 8, 5, kValid, A::kNone, true},
                        Case{53, 70, 8, 7, kSame, A::kRelu, true},
                        Case{40, 23, 2, 7, kValid, A::kNone, true},
                        Case{2, 64, 8, 3, kSame, A::kNone, true},
                        Case{1, 31, 8, 3, kSame, A::kNone, false}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " k" << k.k);
    GraphBuilder b("narrow");
    const int x = b.Input({1, k.h, k.w, k.c});
    const ir::PadOut ph = ir::ComputePadding(k.padding, k.h, k.k, 1, 1);
    const ir::PadOut pw = ir::ComputePadding(k.padding, k.w, k.k, 1, 1);
    const int y = b.Tensor({1, ph.out, pw.out, 1});
    ir::Conv2DOptions o;
    o.padding = k.padding;
    o.activation = k.act;
    b.Op(OpType::kConv2D,
         {x, b.Const({1, k.k, k.k, k.c}, testing::RandomFloats(k.k * k.k * k.c, -1, 1, 41)),
          k.bias ? b.Const({1}, {0.25f}) : -1},
         {y}, o);
    b.Output(y);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -1, 1, 42);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads");
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 1e-5f);
      for (const char* off : {"SLUICE_XNNPACK_NARROW_STREAM", "SLUICE_XNNPACK_NARROW",
                              "SLUICE_XNNPACK_NARROW_ALIGN"}) {
        ExpectSameBits(RunOnSwitchedOff(off, *xnn, g, {in}, threads), got,
                       std::string(off) + "=0 gives other bits");
      }
    }
  }
}

// Few input channels (stem_conv.h): the models' first layers (3x3 / 5x5,
// stride 2, RGB in) and the other shapes the kernel takes: 5 to 64 channels
// out (the lanes variant takes 8, 16 and 24), stride 1 and 2, widths below 16,
// odd and not a multiple of 16 (masked pixel tails), VALID and SAME, with and
// without bias, 1 to 3 threads. Both variants (SLUICE_XNNPACK_STEM_LANES)
// against the reference and bit for bit against each other, through the
// backend and, so a matcher that stopped picking the kernel could not hide a
// broken kernel, the kernel alone.
TEST(XnnpackBackendTest, StemConvolutionsMatchReference) {
  struct Case {
    int h, w, c, oc, k, stride;
    ir::Padding padding;
    ir::Activation act;
    bool bias;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k :
       {Case{23, 29, 3, 24, 3, 2, ir::Padding::kSame, ir::Activation::kRelu6, true},
        Case{20, 19, 3, 32, 5, 2, ir::Padding::kValid, ir::Activation::kNone, true},
        Case{11, 13, 4, 40, 3, 1, ir::Padding::kSame, ir::Activation::kRelu, false},
        Case{9, 10, 1, 64, 3, 2, ir::Padding::kSame, ir::Activation::kNone, true},
        Case{8, 7, 2, 5, 2, 1, ir::Padding::kValid, ir::Activation::kNone, true},
        Case{16, 32, 3, 16, 3, 2, ir::Padding::kSame, ir::Activation::kNone, true},
        Case{12, 67, 3, 8, 3, 2, ir::Padding::kSame, ir::Activation::kRelu6, true},
        Case{7, 37, 3, 16, 3, 1, ir::Padding::kSame, ir::Activation::kRelu, true},
        Case{10, 5, 3, 24, 3, 2, ir::Padding::kValid, ir::Activation::kNone, false},
        Case{13, 45, 3, 32, 5, 2, ir::Padding::kSame, ir::Activation::kNone, true},
        Case{6, 21, 2, 40, 5, 1, ir::Padding::kValid, ir::Activation::kRelu6, true},
        Case{9, 33, 3, 64, 3, 2, ir::Padding::kSame, ir::Activation::kRelu, true},
        Case{5, 18, 4, 8, 5, 1, ir::Padding::kSame, ir::Activation::kNone, true},
        Case{21, 39, 3, 24, 5, 2, ir::Padding::kValid, ir::Activation::kRelu6, true},
        Case{14, 50, 3, 16, 5, 2, ir::Padding::kSame, ir::Activation::kNone, false},
        Case{9, 40, 1, 16, 5, 1, ir::Padding::kSame, ir::Activation::kRelu, true},
        Case{9, 11, 3, 8, 3, 1, ir::Padding::kValid, ir::Activation::kNone, true},
        Case{4, 3, 2, 24, 3, 2, ir::Padding::kSame, ir::Activation::kNone, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " -> " << k.oc << " k"
                                      << k.k << " s" << k.stride);
    GraphBuilder b("stem");
    const auto [x, y, ph, pw] = AddSquareConvTensors(b, k.h, k.w, k.c, k.k, k.stride, k.padding, k.oc);
    const auto o = SquareConvOptions<ir::Conv2DOptions>(k.padding, k.stride, k.act);
    const int n = k.oc * k.k * k.k * k.c;
    const std::vector<float> w = testing::RandomFloats(n, -1, 1, 51);
    const std::vector<float> bias = testing::RandomFloats(k.oc, -1, 1, 52);
    b.Op(OpType::kConv2D,
         {x, b.Const({k.oc, k.k, k.k, k.c}, w), k.bias ? b.Const({k.oc}, bias) : -1}, {y}, o);
    b.Output(y);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -1, 1, 53);
    const std::vector<float> want = RunOn(*ref, g, {in});
    StemConvShape shape;
    shape.in_h = k.h, shape.in_w = k.w, shape.channels = k.c;
    shape.out_h = ph.out, shape.out_w = pw.out, shape.out_channels = k.oc;
    shape.kernel_h = shape.kernel_w = k.k;
    shape.stride_h = shape.stride_w = k.stride;
    shape.pad_top = ph.pad_before, shape.pad_left = pw.pad_before;
    float lo, hi;
    ir::ActivationRange(k.act, &lo, &hi);
    std::vector<std::vector<float>> got_by_variant;
    for (const char* lanes : {"1", "0"}) {
      SCOPED_TRACE(::testing::Message() << "SLUICE_XNNPACK_STEM_LANES=" << lanes);
      const ScopedEnv env("SLUICE_XNNPACK_STEM_LANES", lanes);
      std::vector<float> got;
      for (int threads = 1; threads <= 3; ++threads) {
        got = RunOn(*xnn, g, {in}, threads);
        ExpectNear(got, want, 1e-5f);
        if (!got_by_variant.empty()) EXPECT_EQ(got, got_by_variant[0]) << threads << " threads";
      }
      got_by_variant.push_back(got);
      if (!StemConv::Supports(shape)) continue;
      EXPECT_EQ(StemConv::UsesLanes(shape), lanes[0] == '1' && k.oc % 8 == 0 && k.oc <= 24);
      const StemConv conv(shape, w.data(), k.bias ? bias.data() : nullptr, lo, hi);
      std::vector<float> alone(want.size(), -7.0f);
      conv.Stage(in.data(), 0, k.h / 2);  // in parts, as threads split rows
      conv.Stage(in.data(), k.h / 2, k.h);
      conv.Compute(alone.data(), 0, ph.out / 2);
      conv.Compute(alone.data(), ph.out / 2, ph.out);
      EXPECT_EQ(alone, got);
    }
  }
}

// A stem convolution's HARD_SWISH or PRELU after it (the selfie and face
// models), absorbed by the lanes variant as its epilogue: against the
// reference and bit for bit against the unfused ops
// (SLUICE_XNNPACK_STEM_LANES=0), also when the convolution's output is a graph
// output too (nothing absorbed).
TEST(XnnpackBackendTest, StemConvolutionActivationsMatch) {
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const OpType act : {OpType::kHardSwish, OpType::kPrelu}) {
    for (const int oc : {8, 16, 24}) {
      for (const bool conv_out : {false, true}) {
        SCOPED_TRACE(::testing::Message() << (act == OpType::kPrelu ? "PRELU " : "HARD_SWISH ")
                                          << oc << " channels" << (conv_out ? ", conv out" : ""));
        GraphBuilder b("stem_act");
        const int x = b.Input({1, 19, 37, 3});
        const int y = b.Tensor({1, 10, 19, oc});
        ir::Conv2DOptions o;
        o.padding = ir::Padding::kSame;
        o.stride_h = o.stride_w = 2;
        b.Op(OpType::kConv2D,
             {x, b.Const({oc, 3, 3, 3}, testing::RandomFloats(oc * 27, -1, 1, 71)),
              b.Const({oc}, testing::RandomFloats(oc, -1, 1, 72))},
             {y}, o);
        const int z = b.Tensor({1, 10, 19, oc});
        if (act == OpType::kPrelu) {
          b.Op(OpType::kPrelu, {y, b.Const({1, 1, oc}, testing::RandomFloats(oc, -1, 1, 73))}, {z});
        } else {
          b.Op(OpType::kHardSwish, {y}, {z});
        }
        b.Output(z);
        if (conv_out) b.Output(y);
        const ir::Graph g = b.Build();
        const std::vector<float> in = testing::RandomFloats(19 * 37 * 3, -2, 2, 74);
        const std::vector<float> want = RunOn(*ref, g, {in});
        for (int threads = 1; threads <= 2; ++threads) {
          std::vector<float> unfused;
          {
            const ScopedEnv env("SLUICE_XNNPACK_STEM_LANES", "0");
            unfused = RunOn(*xnn, g, {in}, threads);
          }
          const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
          ExpectNear(got, want, 1e-5f);
          EXPECT_EQ(got, unfused) << threads << " threads";
        }
      }
    }
  }
}

// The direct stem (stem_conv.h, direct_: 3x3, stride 2, 3 -> 16 or 8 channels,
// no staging): the same bits as the lanes variant (SLUICE_XNNPACK_STEM_DIRECT
// =0) and near the reference: SAME and VALID, widths with 16-, 8- and 4-pixel
// blocks, an overlapping last block and border columns (23x29, 64x75),
// images narrower than a block (9x7), a zero PAD in front absorbed (the
// border on the top and left too), HARD_SWISH and PRELU absorbed, 1-3
// threads; then the kernel alone, staged and computed in parts.
TEST(XnnpackBackendTest, StemDirectMatchesLanesBitForBit) {
  struct Case {
    int h, w;
    ir::Padding padding;
    bool pad_op;
    OpType act;  // kHardSwish, kPrelu, or kAdd for none
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const int oc : {16, 8}) {  // selfie's and hand_recrop's stems
    const std::vector<float> w = testing::RandomFloats(oc * 27, -1, 1, 251);
    const std::vector<float> bias = testing::RandomFloats(oc, -1, 1, 252);
    for (const Case& k : {Case{23, 29, ir::Padding::kSame, false, OpType::kHardSwish},
                          Case{64, 75, ir::Padding::kSame, false, OpType::kAdd},
                          Case{20, 19, ir::Padding::kValid, false, OpType::kPrelu},
                          Case{9, 7, ir::Padding::kSame, false, OpType::kAdd},
                          Case{17, 40, ir::Padding::kValid, true, OpType::kHardSwish}}) {
      SCOPED_TRACE(::testing::Message()
                   << k.h << "x" << k.w << (k.pad_op ? " PAD" : "") << " oc " << oc);
      GraphBuilder b("stem_direct");
      int x = b.Input({1, k.h, k.w, 3});
      int h = k.h, wd = k.w;
      if (k.pad_op) {  // one row and column of zeros on each side
        h += 2, wd += 2;
        const int padded = b.Tensor({1, h, wd, 3});
        b.Op(OpType::kPad, {x, b.ConstInt({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0})}, {padded});
        x = padded;
      }
      const ir::PadOut ph = ir::ComputePadding(k.padding, h, 3, 2, 1);
      const ir::PadOut pw = ir::ComputePadding(k.padding, wd, 3, 2, 1);
      const ir::Shape oshape{1, ph.out, pw.out, oc};
      int y = b.Tensor(oshape);
      ir::Conv2DOptions o;
      o.padding = k.padding;
      o.stride_h = o.stride_w = 2;
      b.Op(OpType::kConv2D, {x, b.Const({oc, 3, 3, 3}, w), b.Const({oc}, bias)}, {y}, o);
      if (k.act != OpType::kAdd) {
        const int z = b.Tensor(oshape);
        if (k.act == OpType::kPrelu) {
          b.Op(OpType::kPrelu, {y, b.Const({1, 1, oc}, testing::RandomFloats(oc, -1, 1, 253))},
               {z});
        } else {
          b.Op(OpType::kHardSwish, {y}, {z});
        }
        y = z;
      }
      b.Output(y);
      const ir::Graph g = b.Build();
      const std::vector<float> in = testing::RandomFloats(k.h * k.w * 3, -2, 2, 254);
      const std::vector<float> want = RunOn(*ref, g, {in});
      for (int threads = 1; threads <= 3; ++threads) {
        const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
        ExpectNear(got, want, 1e-5f);
        ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_STEM_DIRECT", *xnn, g, {in}, threads),
                       "threads " + std::to_string(threads));
      }
      if (k.pad_op) continue;
      StemConvShape shape;
      shape.in_h = k.h, shape.in_w = k.w, shape.channels = 3;
      shape.out_h = ph.out, shape.out_w = pw.out, shape.out_channels = oc;
      shape.stride_h = shape.stride_w = 2;
      shape.pad_top = ph.pad_before, shape.pad_left = pw.pad_before;
      if (!StemConv::Supports(shape)) continue;
      auto alone = [&](const char* direct) {
        const ScopedEnv env("SLUICE_XNNPACK_STEM_DIRECT", direct);
        const StemConv conv(shape, w.data(), bias.data(), -3.0f, 3.0f);
        EXPECT_EQ(conv.direct(), std::string(direct) == "1");  // the variant under test runs
        std::vector<float> out(static_cast<size_t>(ph.out) * pw.out * oc, -7.0f);
        conv.Stage(in.data(), 0, k.h / 2);  // in parts, as threads split rows
        conv.Stage(in.data(), k.h / 2, k.h);
        conv.Compute(out.data(), 0, ph.out / 2);
        conv.Compute(out.data(), ph.out / 2, ph.out);
        return out;
      };
      ExpectSameBits(alone("1"), alone("0"), "kernel alone");
    }
  }
}

// The direct stem's DEPTHWISE 1x1 tail (stem_conv.h, SetScale,
// SetSecondOutput, SetMaxPool; OwnChain::scale, prelu2, scale2, pool),
// hand_recrop's first ops: conv 3x3 stride 2 -> PRELU -> DEPTHWISE 1x1 (t),
// then PRELU(t) -> DEPTHWISE 1x1 (u), a MAX_POOL 2x2 of t after that (odd
// heights drop a row); outputs u and the pool (u through a second MAX_POOL,
// XNNPACK's) or t alone (the scale only).
// With and without biases, RELU6 on one, odd sizes, 1-3 threads, 8
// channels (and 16, where XNNPACK keeps the tail): the same bits as
// SLUICE_XNNPACK_STEM_TAIL=0 (XNNPACK runs the tail) and near the reference.
TEST(XnnpackBackendTest, StemDepthwiseTailIsBitExactWithTheSwitchOff) {
  struct Case {
    int h, w, oc;
    bool bias, second;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{32, 32, 8, true, true}, Case{23, 29, 8, false, true},
                        Case{17, 40, 8, true, true}, Case{20, 19, 8, true, false},
                        Case{9, 7, 8, false, false}, Case{17, 40, 16, true, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " oc " << k.oc
                                      << (k.second ? " second output" : ""));
    const int oc = k.oc;
    GraphBuilder b("stem_tail");
    const int x = b.Input({1, k.h, k.w, 3});
    const ir::PadOut ph = ir::ComputePadding(ir::Padding::kSame, k.h, 3, 2, 1);
    const ir::PadOut pw = ir::ComputePadding(ir::Padding::kSame, k.w, 3, 2, 1);
    const ir::Shape oshape{1, ph.out, pw.out, oc};
    ir::Conv2DOptions o;
    o.padding = ir::Padding::kSame;
    o.stride_h = o.stride_w = 2;
    const int y = b.Tensor(oshape), z = b.Tensor(oshape), t = b.Tensor(oshape);
    b.Op(OpType::kConv2D,
         {x, b.Const({oc, 3, 3, 3}, testing::RandomFloats(oc * 27, -1, 1, 261)),
          b.Const({oc}, testing::RandomFloats(oc, -1, 1, 262))},
         {y}, o);
    b.Op(OpType::kPrelu, {y, b.Const({1, 1, oc}, testing::RandomFloats(oc, -1, 1, 263))}, {z});
    auto scale = [&](int in, int out, uint32_t seed, ir::Activation act) {
      ir::DepthwiseConv2DOptions d;
      d.padding = ir::Padding::kSame;
      d.activation = act;
      std::vector<int> ins{in, b.Const({1, 1, 1, oc}, testing::RandomFloats(oc, -2, 2, seed))};
      if (k.bias) ins.push_back(b.Const({oc}, testing::RandomFloats(oc, -1, 1, seed + 1)));
      b.Op(OpType::kDepthwiseConv2D, ins, {out}, d);
    };
    scale(z, t, 264, ir::Activation::kNone);
    if (k.second) {
      const int p = b.Tensor(oshape), u = b.Tensor(oshape);
      b.Op(OpType::kPrelu, {t, b.Const({1, 1, oc}, testing::RandomFloats(oc, -1, 1, 266))}, {p});
      scale(p, u, 267, ir::Activation::kRelu6);
      ir::Pool2DOptions po;
      po.padding = ir::Padding::kValid;
      po.filter_h = po.filter_w = po.stride_h = po.stride_w = 2;
      const int m = b.Tensor({1, ph.out / 2, pw.out / 2, oc});
      b.Op(OpType::kMaxPool2D, {t}, {m}, po);
      // One output: u and the pool side by side.
      const int mu = b.Tensor({1, ph.out / 2, pw.out / 2, oc});
      b.Op(OpType::kMaxPool2D, {u}, {mu}, po);
      const int cat = b.Tensor({1, ph.out / 2, pw.out / 2, 2 * oc});
      ir::ConcatenationOptions co;
      co.axis = 3;
      b.Op(OpType::kConcatenation, {m, mu}, {cat}, co);
      b.Output(cat);
    } else {
      b.Output(t);
    }
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * 3, -2, 2, 268);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 1e-5f);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_STEM_TAIL", *xnn, g, {in}, threads),
                     "threads " + std::to_string(threads));
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_STEM_POOL", *xnn, g, {in}, threads),
                     "pool, threads " + std::to_string(threads));
    }
  }
}

// hand_recrop's 2x2 stride-2 8 -> 8 CONV (stem_conv.h, DirectRows8K2) with
// and without its PRELU -> DEPTHWISE 1x1 tail, VALID, odd sizes (a row and
// a column dropped), 1-3 threads: the same bits as SLUICE_XNNPACK_STEM_C8=0
// (XNNPACK's IGEMM) and near the reference; and the kernel alone (asserting
// the direct variant runs) against the switched-off backend.
TEST(XnnpackBackendTest, StemTwoByTwoEightChannelsIsBitExactWithTheSwitchOff) {
  struct Case {
    int h, w;
    bool tail;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<float> w = testing::RandomFloats(8 * 32, -1, 1, 281);
  const std::vector<float> bias = testing::RandomFloats(8, -1, 1, 282);
  for (const Case& k : {Case{128, 128, true}, Case{17, 23, true}, Case{4, 6, false},
                        Case{30, 70, false}, Case{2, 2, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << (k.tail ? " tail" : ""));
    const ir::Shape oshape{1, k.h / 2, k.w / 2, 8};
    GraphBuilder b("stem_2x2_c8");
    const int x = b.Input({1, k.h, k.w, 8});
    int y = b.Tensor(oshape);
    ir::Conv2DOptions o;
    o.padding = ir::Padding::kValid;
    o.stride_h = o.stride_w = 2;
    b.Op(OpType::kConv2D, {x, b.Const({8, 2, 2, 8}, w), b.Const({8}, bias)}, {y}, o);
    if (k.tail) {
      const int z = b.Tensor(oshape), t = b.Tensor(oshape);
      b.Op(OpType::kPrelu, {y, b.Const({1, 1, 8}, testing::RandomFloats(8, -1, 1, 283))}, {z});
      ir::DepthwiseConv2DOptions d;
      d.padding = ir::Padding::kSame;
      b.Op(OpType::kDepthwiseConv2D,
           {z, b.Const({1, 1, 1, 8}, testing::RandomFloats(8, -2, 2, 284)),
            b.Const({8}, testing::RandomFloats(8, -1, 1, 285))},
           {t}, d);
      y = t;
    }
    b.Output(y);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * 8, -2, 2, 286);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 1e-4f);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_STEM_C8", *xnn, g, {in}, threads),
                     "threads " + std::to_string(threads));
      // The pair variant (PairRows8K2) against the ymm one (DirectRows8K2).
      ExpectSameBits(got,
                     RunOnSwitchedOff("SLUICE_XNNPACK_STEM_K2_PAIRS", *xnn, g, {in}, threads),
                     "ymm, threads " + std::to_string(threads));
    }
    if (k.tail) continue;
    StemConvShape shape;
    shape.in_h = k.h, shape.in_w = k.w, shape.channels = 8;
    shape.out_h = k.h / 2, shape.out_w = k.w / 2, shape.out_channels = 8;
    shape.kernel_h = shape.kernel_w = 2;
    shape.stride_h = shape.stride_w = 2;
    if (!StemConv::Supports(shape)) continue;  // no AVX-512
    const float inf = std::numeric_limits<float>::infinity();
    const StemConv conv(shape, w.data(), bias.data(), -inf, inf);
    EXPECT_TRUE(conv.direct());
    EXPECT_TRUE(conv.pairs());
    std::vector<float> out(static_cast<size_t>(shape.out_h) * shape.out_w * 8, -7.0f);
    conv.Stage(in.data(), 0, k.h / 2);  // in parts, as threads split rows
    conv.Stage(in.data(), k.h / 2, k.h);
    conv.Compute(out.data(), 0, shape.out_h / 2);
    conv.Compute(out.data(), shape.out_h / 2, shape.out_h);
    ExpectSameBits(out, RunOnSwitchedOff("SLUICE_XNNPACK_STEM_C8", *xnn, g, {in}, 1),
                   "kernel alone");
  }
}


// A 3x3 stride-2 SAME stem on an h x wd x 3 input with oc outputs.
StemConvShape Stem3x3Stride2Shape(int h, int wd, int oc) {
  const ir::PadOut ph = ir::ComputePadding(ir::Padding::kSame, h, 3, 2, 1);
  const ir::PadOut pw = ir::ComputePadding(ir::Padding::kSame, wd, 3, 2, 1);
  StemConvShape shape;
  shape.in_h = h, shape.in_w = wd, shape.channels = 3;
  shape.out_h = ph.out, shape.out_w = pw.out, shape.out_channels = oc;
  shape.stride_h = shape.stride_w = 2;
  shape.pad_top = ph.pad_before, shape.pad_left = pw.pad_before;
  return shape;
}

// A DEPTHWISE 1x1 (a per-channel scale and bias) from in to out, SAME.
void AddScale(GraphBuilder& b, int in, int out, int oc, uint32_t seed) {
  ir::DepthwiseConv2DOptions d;
  d.padding = ir::Padding::kSame;
  b.Op(OpType::kDepthwiseConv2D,
       {in, b.Const({1, 1, 1, oc}, testing::RandomFloats(oc, -2, 2, seed)),
        b.Const({oc}, testing::RandomFloats(oc, -1, 1, seed + 1))},
       {out}, d);
}

// hand_recrop's stem head on input x (h x w x 3): 3x3 stride-2 SAME conv
// 3 -> oc (weights w, bias), PRELU, DEPTHWISE 1x1 (t), PRELU, DEPTHWISE 1x1
// (u); the other constants from seeds seed .. seed + 5.
struct StemHead {
  ir::PadOut ph, pw;
  ir::Shape oshape, pshape;  // the head's outputs; after a 2x2 stride-2 pool
  int t = -1, u = -1;
};
StemHead AddStemHead(GraphBuilder& b, int x, int h, int w, int oc, const std::vector<float>& weights,
                     const std::vector<float>& bias, uint32_t seed) {
  StemHead r;
  r.ph = ir::ComputePadding(ir::Padding::kSame, h, 3, 2, 1);
  r.pw = ir::ComputePadding(ir::Padding::kSame, w, 3, 2, 1);
  r.oshape = {1, r.ph.out, r.pw.out, oc};
  r.pshape = {1, r.ph.out / 2, r.pw.out / 2, oc};
  ir::Conv2DOptions o;
  o.padding = ir::Padding::kSame;
  o.stride_h = o.stride_w = 2;
  const int y = b.Tensor(r.oshape), z = b.Tensor(r.oshape), p = b.Tensor(r.oshape);
  r.t = b.Tensor(r.oshape), r.u = b.Tensor(r.oshape);
  b.Op(OpType::kConv2D, {x, b.Const({oc, 3, 3, 3}, weights), b.Const({oc}, bias)}, {y}, o);
  b.Op(OpType::kPrelu, {y, b.Const({1, 1, oc}, testing::RandomFloats(oc, -1, 1, seed))}, {z});
  AddScale(b, z, r.t, oc, seed + 1);
  b.Op(OpType::kPrelu, {r.t, b.Const({1, 1, oc}, testing::RandomFloats(oc, -1, 1, seed + 3))},
       {p});
  AddScale(b, p, r.u, oc, seed + 4);
  return r;
}

// The stem's pair variant (stem_conv.h, PairRows8: two output pixels a zmm,
// rows two at a time with the MAX_POOL from the registers, the output not
// stored where only the tail and the pool read it): hand_recrop's chain
// (conv 3x3 stride 2, 3 -> 8, PRELU, DEPTHWISE 1x1, PRELU, DEPTHWISE 1x1,
// MAX_POOL) at odd sizes, padding 0 and 1, widths up to the limit (128 and
// 256 outputs) and past it (XNNPACK's path), the output also read by an ADD
// (so it must be stored), 1-3 threads: the same bits as
// SLUICE_XNNPACK_STEM_PAIRS=0 (the ymm direct variant) and
// SLUICE_XNNPACK_STEM_UNREAD=0, near the reference. Then the kernel alone
// (asserting the pair variant runs) with each activation, in row ranges of
// two and whole, against the ymm variant.
TEST(XnnpackBackendTest, StemPairsAreBitExactWithTheSwitchOff) {
  struct Case {
    int h, w;
    bool add;  // the DEPTHWISE's output also read by an ADD
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const int oc = 8;
  const std::vector<float> w = testing::RandomFloats(oc * 27, -1, 1, 291);
  const std::vector<float> bias = testing::RandomFloats(oc, -1, 1, 292);
  for (const Case& k : {Case{256, 256, false}, Case{23, 29, false}, Case{11, 11, false},
                        Case{17, 40, true}, Case{64, 75, false}, Case{6, 512, false},
                        Case{4, 514, false}, Case{5, 3, false}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << (k.add ? " ADD" : ""));
    GraphBuilder b("stem_pairs");
    const int x = b.Input({1, k.h, k.w, 3});
    const StemHead head = AddStemHead(b, x, k.h, k.w, oc, w, bias, 293);
    const ir::PadOut ph = head.ph, pw = head.pw;
    const ir::Shape oshape = head.oshape, pshape = head.pshape;
    const int t = head.t, u = head.u;
    ir::Pool2DOptions po;
    po.padding = ir::Padding::kValid;
    po.filter_h = po.filter_w = po.stride_h = po.stride_w = 2;
    const int m = b.Tensor(pshape), mu = b.Tensor(pshape);
    const int cat = b.Tensor({1, ph.out / 2, pw.out / 2, 2 * oc});
    b.Op(OpType::kMaxPool2D, {t}, {m}, po);
    int last = u;
    if (k.add) {  // t read once more, after the pool
      last = b.Tensor(oshape);
      b.Op(OpType::kAdd, {t, u}, {last}, ir::BinaryOptions{});
    }
    b.Op(OpType::kMaxPool2D, {last}, {mu}, po);
    ir::ConcatenationOptions co;
    co.axis = 3;
    b.Op(OpType::kConcatenation, {m, mu}, {cat}, co);
    b.Output(cat);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * 3, -2, 2, 299);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 1e-4f);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_STEM_PAIRS", *xnn, g, {in}, threads),
                     "threads " + std::to_string(threads));
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_STEM_UNREAD", *xnn, g, {in}, threads),
                     "unread, threads " + std::to_string(threads));
    }
  }
  // The kernel alone, each activation, with and without the tail and pool.
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> slope = testing::RandomFloats(oc, -1, 1, 301);
  const std::vector<float> sc = testing::RandomFloats(oc, -2, 2, 302);
  const std::vector<float> sb = testing::RandomFloats(oc, -1, 1, 303);
  for (const int h : {64, 9, 2}) {
    for (const int wd : {256, 29, 11, 3}) {
      for (const int act : {0, 1, 2}) {
        for (const bool tail : {false, true}) {
          SCOPED_TRACE(::testing::Message() << h << "x" << wd << " act " << act
                                            << (tail ? " tail" : ""));
          const StemConvShape shape = Stem3x3Stride2Shape(h, wd, oc);
          if (!StemConv::Supports(shape) || !StemConv::UsesDirect(shape)) continue;
          const std::vector<float> in = testing::RandomFloats(h * wd * 3, -2, 2, 304);
          const size_t n = static_cast<size_t>(shape.out_h) * shape.out_w * oc;
          const size_t pn = static_cast<size_t>(shape.out_h / 2) * (shape.out_w / 2) * oc;
          auto alone = [&](const char* pairs, int step, std::vector<float>* out2,
                           std::vector<float>* out3) {
            const ScopedEnv env("SLUICE_XNNPACK_STEM_PAIRS", pairs);
            StemConv conv(shape, w.data(), bias.data(), act == 1 ? -inf : -3.0f, 3.0f);
            EXPECT_EQ(conv.pairs(), std::string(pairs) == "1");
            if (act == 1) conv.SetHardSwish();
            if (act == 2) conv.SetPrelu(slope.data());
            out2->assign(n, -7.0f);
            out3->assign(pn, -7.0f);
            if (tail) {
              conv.SetScale(sc.data(), sb.data(), -inf, inf);
              conv.SetSecondOutput(out2->data(), slope.data(), sc.data(), nullptr, 0.0f, 6.0f);
              conv.SetMaxPool(out3->data(), -inf, inf);
            }
            std::vector<float> out(n, -7.0f);
            conv.Stage(in.data(), 0, h);
            for (int r = 0; r < shape.out_h; r += step) conv.Compute(out.data(), r, std::min(r + step, shape.out_h));
            return out;
          };
          std::vector<float> a2, a3, b2, b3;
          const std::vector<float> whole = alone("1", shape.out_h, &a2, &a3);
          const std::vector<float> off = alone("0", tail ? 2 : 1, &b2, &b3);
          ExpectSameBits(whole, off, "output, whole");
          ExpectSameBits(a2, b2, "second output, whole");
          ExpectSameBits(a3, b3, "pool, whole");
          const std::vector<float> split = alone("1", 2, &a2, &a3);
          ExpectSameBits(split, off, "output, rows of two");
          ExpectSameBits(a2, b2, "second output, rows of two");
          ExpectSameBits(a3, b3, "pool, rows of two");
        }
      }
    }
  }
}

// The pair stem skips its clamps only when all are infinite
// (SLUICE_XNNPACK_STEM_UNBOUNDED; hand_recrop's chain above takes it): the
// kernel alone with the tail and pool, none or one clamp finite (tight
// enough to bite), whole and in rows of two, the same bits as the ymm
// variant (which always clamps) and as the switch off.
TEST(XnnpackBackendTest, StemPairsSkipOnlyInfiniteClamps) {
  const float inf = std::numeric_limits<float>::infinity();
  const int oc = 8, h = 29, wd = 37;
  const std::vector<float> w = testing::RandomFloats(oc * 27, -1, 1, 311);
  const std::vector<float> bias = testing::RandomFloats(oc, -1, 1, 312);
  const std::vector<float> slope = testing::RandomFloats(oc, -1, 1, 313);
  const std::vector<float> sc = testing::RandomFloats(oc, -2, 2, 314);
  const std::vector<float> sb = testing::RandomFloats(oc, -1, 1, 315);
  const std::vector<float> in = testing::RandomFloats(h * wd * 3, -2, 2, 316);
  const StemConvShape shape = Stem3x3Stride2Shape(h, wd, oc);
  if (!StemConv::Supports(shape) || !StemConv::UsesDirect(shape)) GTEST_SKIP() << "no AVX-512";
  const size_t n = static_cast<size_t>(shape.out_h) * shape.out_w * oc;
  const size_t pn = static_cast<size_t>(shape.out_h / 2) * (shape.out_w / 2) * oc;
  for (int finite = -1; finite < 4; ++finite) {  // which clamp is finite (-1: none)
    SCOPED_TRACE(::testing::Message() << "finite clamp " << finite);
    auto lo = [&](int i) { return finite == i ? -0.4f : -inf; };
    auto hi = [&](int i) { return finite == i ? 0.6f : inf; };
    auto run = [&](const char* pairs, const char* unbounded, int step, std::vector<float>* out2,
                   std::vector<float>* out3) {
      const ScopedEnv env("SLUICE_XNNPACK_STEM_PAIRS", pairs);
      const ScopedEnv env2("SLUICE_XNNPACK_STEM_UNBOUNDED", unbounded);
      StemConv conv(shape, w.data(), bias.data(), lo(0), hi(0));
      EXPECT_EQ(conv.pairs(), std::string(pairs) == "1");
      conv.SetPrelu(slope.data());
      out2->assign(n, -7.0f);
      out3->assign(pn, -7.0f);
      conv.SetScale(sc.data(), sb.data(), lo(1), hi(1));
      conv.SetSecondOutput(out2->data(), slope.data(), sc.data(), sb.data(), lo(2), hi(2));
      conv.SetMaxPool(out3->data(), lo(3), hi(3));
      std::vector<float> out(n, -7.0f);
      conv.Stage(in.data(), 0, h);
      for (int r = 0; r < shape.out_h; r += step) {
        conv.Compute(out.data(), r, std::min(r + step, shape.out_h));
      }
      return out;
    };
    std::vector<float> a2, a3, b2, b3, c2, c3;
    const std::vector<float> off = run("0", "1", 2, &b2, &b3);
    const std::vector<float> bounded = run("1", "0", shape.out_h, &c2, &c3);
    for (const int step : {shape.out_h, 2}) {
      const std::vector<float> got = run("1", "1", step, &a2, &a3);
      ExpectSameBits(got, off, "output vs ymm");
      ExpectSameBits(a2, b2, "second output vs ymm");
      ExpectSameBits(a3, b3, "pool vs ymm");
      ExpectSameBits(got, bounded, "output vs switch off");
      ExpectSameBits(a2, c2, "second output vs switch off");
      ExpectSameBits(a3, c3, "pool vs switch off");
    }
  }
}

// The 16-channel direct stem's asm FMAs (SLUICE_XNNPACK_STEM_MEMFMA), its
// skipped infinite clamp (SLUICE_XNNPACK_STEM_UNBOUNDED) and its border
// blocks reading zeros (SLUICE_XNNPACK_STEM_ZERO_TAPS): the kernel alone at
// the selfie models' 256x256 and 144x256 (SAME: the last column and row
// read zeros), 20x34 and 40x96 (the same with 17 and 48 columns: blocks
// overlapping), 37x41 VALID (no tap outside, 20 columns), odd SAME sizes
// (23x29: padding on the left and top, the guarded path) and an image
// narrower than a block (9x7), no activation / HARD_SWISH / PRELU, the
// conv's clamp infinite or finite (tight enough to bite), computed in parts
// of 3 rows: near a plain loop over the taps, the same bits as each switch
// off.
TEST(XnnpackBackendTest, StemDirect16MemFmaIsBitExactWithTheSwitchesOff) {
  const float inf = std::numeric_limits<float>::infinity();
  const int oc = 16;
  const std::vector<float> w = testing::RandomFloats(oc * 27, -1, 1, 321);
  const std::vector<float> bias = testing::RandomFloats(oc, -1, 1, 322);
  const std::vector<float> slope = testing::RandomFloats(oc, -1, 1, 323);
  struct Size {
    int h, wd;
    bool valid;
  };
  for (const Size& z : {Size{256, 256, false}, Size{144, 256, false}, Size{20, 34, false},
                        Size{40, 96, false}, Size{37, 41, true}, Size{23, 29, false},
                        Size{9, 7, false}}) {
    const int h = z.h, wd = z.wd;
    StemConvShape shape = Stem3x3Stride2Shape(h, wd, oc);
    if (z.valid) {
      shape.out_h = (h - 3) / 2 + 1, shape.out_w = (wd - 3) / 2 + 1;
      shape.pad_top = shape.pad_left = 0;
    }
    if (!StemConv::Supports(shape) || !StemConv::UsesDirect(shape)) GTEST_SKIP() << "no AVX-512";
    const std::vector<float> in = testing::RandomFloats(h * wd * 3, -2, 2, 324);
    const size_t n = static_cast<size_t>(shape.out_h) * shape.out_w * oc;
    for (const int act : {0, 1, 2}) {  // none, HARD_SWISH, PRELU
      for (const bool finite : {false, true}) {
        SCOPED_TRACE(::testing::Message()
                     << h << "x" << wd << " act " << act << (finite ? " finite" : " infinite"));
        const float lo = finite ? -0.4f : -inf, hi = finite ? 0.6f : inf;
        auto run = [&](const char* mem_fma, const char* unbounded, const char* zero_taps) {
          const ScopedEnv env("SLUICE_XNNPACK_STEM_MEMFMA", mem_fma);
          const ScopedEnv env2("SLUICE_XNNPACK_STEM_UNBOUNDED", unbounded);
          const ScopedEnv env3("SLUICE_XNNPACK_STEM_ZERO_TAPS", zero_taps);
          StemConv conv(shape, w.data(), bias.data(), lo, hi);
          EXPECT_TRUE(conv.direct());
          if (act == 1) conv.SetHardSwish();
          if (act == 2) conv.SetPrelu(slope.data());
          std::vector<float> out(n, -7.0f);
          conv.Stage(in.data(), 0, h);
          for (int r = 0; r < shape.out_h; r += 3) {
            conv.Compute(out.data(), r, std::min(r + 3, shape.out_h));
          }
          return out;
        };
        const std::vector<float> got = run("1", "1", "1");
        ExpectSameBits(got, run("0", "1", "1"), "vs MEMFMA=0");
        ExpectSameBits(got, run("1", "0", "1"), "vs UNBOUNDED=0");
        ExpectSameBits(got, run("1", "1", "0"), "vs ZERO_TAPS=0");
        std::vector<float> want(n);
        for (int oy = 0; oy < shape.out_h; ++oy) {
          for (int ox = 0; ox < shape.out_w; ++ox) {
            for (int o = 0; o < oc; ++o) {
              double acc = bias[o];
              for (int ky = 0; ky < 3; ++ky) {
                for (int kx = 0; kx < 3; ++kx) {
                  const int iy = oy * 2 - shape.pad_top + ky, ix = ox * 2 - shape.pad_left + kx;
                  if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                  for (int c = 0; c < 3; ++c) {
                    acc += double{w[((o * 3 + ky) * 3 + kx) * 3 + c]} *
                           in[(iy * wd + ix) * 3 + c];
                  }
                }
              }
              float v = std::min(std::max(static_cast<float>(acc), lo), hi);
              if (act == 1) v *= std::min(std::max(v / 6 + 0.5f, 0.0f), 1.0f);
              if (act == 2 && v < 0) v *= slope[o];
              want[(static_cast<size_t>(oy) * shape.out_w + ox) * oc + o] = v;
            }
          }
        }
        ExpectNear(got, want, 1e-4f);
      }
    }
  }
}

// The 2x2 pair stem (PairRows8K2) with its PRELU -> DEPTHWISE 1x1 tail skips
// its clamps only when all are infinite (hand_recrop: none finite): with a
// RELU / RELU6 on the conv or on the DEPTHWISE, or none, 1-2 threads, the
// same bits as SLUICE_XNNPACK_STEM_K2_UNBOUNDED=0 and the ymm variant.
TEST(XnnpackBackendTest, StemTwoByTwoPairsSkipOnlyInfiniteClamps) {
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<float> w = testing::RandomFloats(8 * 32, -1, 1, 321);
  const std::vector<float> bias = testing::RandomFloats(8, -1, 1, 322);
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(::testing::Message() << "variant " << variant);
    const int h = 34, wd = 46;
    const ir::Shape oshape{1, h / 2, wd / 2, 8};
    GraphBuilder b("stem_2x2_c8_clamps");
    const int x = b.Input({1, h, wd, 8});
    const int y = b.Tensor(oshape), z = b.Tensor(oshape), t = b.Tensor(oshape);
    ir::Conv2DOptions o;
    o.padding = ir::Padding::kValid;
    o.stride_h = o.stride_w = 2;
    if (variant == 1) o.activation = ir::Activation::kRelu6;
    b.Op(OpType::kConv2D, {x, b.Const({8, 2, 2, 8}, w), b.Const({8}, bias)}, {y}, o);
    b.Op(OpType::kPrelu, {y, b.Const({1, 1, 8}, testing::RandomFloats(8, -1, 1, 323))}, {z});
    ir::DepthwiseConv2DOptions d;
    d.padding = ir::Padding::kSame;
    if (variant == 2) d.activation = ir::Activation::kRelu;
    b.Op(OpType::kDepthwiseConv2D,
         {z, b.Const({1, 1, 1, 8}, testing::RandomFloats(8, -2, 2, 324)),
          b.Const({8}, testing::RandomFloats(8, -1, 1, 325))},
         {t}, d);
    b.Output(t);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(h * wd * 8, -3, 3, 326);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads = 1; threads <= 2; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 1e-4f);
      ExpectSameBits(got,
                     RunOnSwitchedOff("SLUICE_XNNPACK_STEM_K2_UNBOUNDED", *xnn, g, {in}, threads),
                     "bounded, threads " + std::to_string(threads));
      ExpectSameBits(got,
                     RunOnSwitchedOff("SLUICE_XNNPACK_STEM_K2_PAIRS", *xnn, g, {in}, threads),
                     "ymm, threads " + std::to_string(threads));
    }
  }
}

// hand_recrop's ops 0-8: the pair stem's chain (conv 3x3 stride 2, 3 -> 8,
// PRELU, DEPTHWISE 1x1, MAX_POOL; PRELU, DEPTHWISE 1x1) with the 2x2
// stride-2 8 -> 8 conv, PRELU and DEPTHWISE 1x1 after the second output
// run inside the stem (StemConv::SetNext, SLUICE_XNNPACK_STEM_NEXT): sizes
// that take it (one strip, two strips, the 2x2 conv clamped by a RELU) and
// that do not (odd output rows, widths not a multiple of 8), 1-3 threads:
// near the reference, the same bits as the switch off and as whole-row
// strips (SLUICE_XNNPACK_STEM_STRIP=0), one step fewer where it is taken.
int ProfiledSteps(const Backend& backend, const ir::Graph& g);  // (below)
TEST(XnnpackBackendTest, StemNextConvIsBitExactWithTheSwitchOff) {
  struct Case {
    int h, w;
    bool relu;   // a RELU on the 2x2 conv (its clamps taken)
    bool fused;  // TakesNext holds
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const int oc = 8;
  for (const Case& k : {Case{256, 256, false, true}, Case{64, 96, false, true},
                        Case{40, 160, true, true}, Case{34, 80, false, false},
                        Case{48, 84, false, false}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << (k.relu ? " RELU" : ""));
    GraphBuilder b("stem_next");
    const int x = b.Input({1, k.h, k.w, 3});
    const StemHead head = AddStemHead(b, x, k.h, k.w, oc, testing::RandomFloats(oc * 27, -1, 1, 321),
                                      testing::RandomFloats(oc, -1, 1, 322), 323);
    const ir::PadOut ph = head.ph, pw = head.pw;
    const ir::Shape pshape = head.pshape;
    const int t = head.t, u = head.u;
    // The 2x2 stride-2 conv on the second output, its PRELU and DEPTHWISE.
    const int v = b.Tensor(pshape), vz = b.Tensor(pshape), vt = b.Tensor(pshape);
    ir::Conv2DOptions o2;
    o2.padding = ir::Padding::kValid;
    o2.stride_h = o2.stride_w = 2;
    if (k.relu) o2.activation = ir::Activation::kRelu;
    b.Op(OpType::kConv2D,
         {u, b.Const({oc, 2, 2, oc}, testing::RandomFloats(oc * 32, -1, 1, 329)),
          b.Const({oc}, testing::RandomFloats(oc, -1, 1, 330))},
         {v}, o2);
    b.Op(OpType::kPrelu, {v, b.Const({1, 1, oc}, testing::RandomFloats(oc, -1, 1, 331))}, {vz});
    AddScale(b, vz, vt, oc, 332);
    ir::Pool2DOptions po;
    po.padding = ir::Padding::kValid;
    po.filter_h = po.filter_w = po.stride_h = po.stride_w = 2;
    const int m = b.Tensor(pshape);
    b.Op(OpType::kMaxPool2D, {t}, {m}, po);
    const int cat = b.Tensor({1, ph.out / 2, pw.out / 2, 2 * oc});
    ir::ConcatenationOptions co;
    co.axis = 3;
    b.Op(OpType::kConcatenation, {m, vt}, {cat}, co);
    b.Output(cat);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * 3, -2, 2, 334);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 1e-4f);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_STEM_NEXT", *xnn, g, {in}, threads),
                     "threads " + std::to_string(threads));
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_STEM_STRIP", *xnn, g, {in}, threads),
                     "whole rows, threads " + std::to_string(threads));
    }
    const StemConvShape shape = Stem3x3Stride2Shape(k.h, k.w, oc);
    if (!StemConv::Supports(shape) || !StemConv::UsesPairs(shape)) continue;  // no AVX-512
    const int steps = ProfiledSteps(*xnn, g);
    int steps_off = -1;
    {
      const ScopedEnv env("SLUICE_XNNPACK_STEM_NEXT", "0");
      steps_off = ProfiledSteps(*xnn, g);
    }
    if (steps >= 0) EXPECT_EQ(steps, steps_off - (k.fused ? 1 : 0));
  }
}

// MAX_POOL_2D 2x2 stride 2 on our kernel (max_pool.h): hand_recrop's
// 64x64x16, 16, 32 and 64 channels, channel counts that leave a partial
// register (3, 24), odd sizes (VALID drops a row and a column), SAME on
// even sizes, RELU6, inputs with +-0.0 (which zero survives depends on
// XNNPACK's max order), 1-3 threads: the same bits as
// SLUICE_XNNPACK_MAXPOOL=0 (XNNPACK) and equal to the reference; and the
// kernel alone against the switched-off backend.
TEST(XnnpackBackendTest, MaxPoolIsBitExactWithTheSwitchOff) {
  struct Case {
    int h, w, c;
    ir::Padding padding;
    ir::Activation act;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{64, 64, 16, ir::Padding::kValid, ir::Activation::kNone},
                        Case{33, 35, 32, ir::Padding::kValid, ir::Activation::kRelu6},
                        Case{16, 18, 64, ir::Padding::kSame, ir::Activation::kNone},
                        Case{48, 40, 3, ir::Padding::kValid, ir::Activation::kNone},
                        Case{30, 29, 24, ir::Padding::kValid, ir::Activation::kRelu}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c);
    const ir::Shape oshape{1, k.h / 2, k.w / 2, k.c};
    GraphBuilder b("max_pool");
    const int x = b.Input({1, k.h, k.w, k.c});
    const int y = b.Tensor(oshape);
    ir::Pool2DOptions po;
    po.padding = k.padding;
    po.filter_h = po.filter_w = po.stride_h = po.stride_w = 2;
    po.activation = k.act;
    b.Op(OpType::kMaxPool2D, {x}, {y}, po);
    b.Output(y);
    const ir::Graph g = b.Build();
    std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -2, 2, 311);
    // Mostly zeros of either sign under negative values: windows whose max is
    // a zero, where the operand order decides the sign.
    for (size_t i = 0; i < in.size(); ++i) {
      const uint32_t r = (static_cast<uint32_t>(i) * 2654435761u) >> 13;
      if (r % 4 < 2) in[i] = r % 4 ? 0.0f : -0.0f;
      if (r % 4 == 2) in[i] = -std::fabs(in[i]);
    }
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 0.0f);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_MAXPOOL", *xnn, g, {in}, threads),
                     "threads " + std::to_string(threads));
    }
    MaxPool2x2Shape shape;
    shape.in_h = k.h, shape.in_w = k.w, shape.channels = k.c;
    shape.out_h = k.h / 2, shape.out_w = k.w / 2;
    if (!MaxPool2x2::Supports(shape)) continue;  // no AVX-512
    float lo, hi;
    ir::ActivationRange(k.act, &lo, &hi);
    const MaxPool2x2 pool(shape, lo, hi);
    std::vector<float> out(ir::NumElements(oshape), -7.0f);
    pool.Run(in.data(), out.data(), 0, shape.out_h / 2);  // in parts, as threads split rows
    pool.Run(in.data(), out.data(), shape.out_h / 2, shape.out_h);
    ExpectSameBits(out, RunOnSwitchedOff("SLUICE_XNNPACK_MAXPOOL", *xnn, g, {in}, 1),
                   "kernel alone");
  }
}

// CONV_2D 2x2 stride 2, 16 -> 16, 32 -> 32, 64 -> 32, 64 -> 16 channels
// (conv2x2.h, hand_recrop's downsamplings): with the PRELU -> DEPTHWISE 1x1 epilogue (bias or not,
// RELU6 on the DEPTHWISE), alone with RELU / none, odd sizes (the last row
// and column dropped; widths left over after 16 / 8, 4 and 1-pixel blocks),
// SAME on even sizes (no padding), the conv's output also a graph output
// (no epilogue then); a PRELU -> DEPTHWISE 1x1 pair in front (applied on
// the fly; SLUICE_XNNPACK_CONV2X2_IN=0: XNNPACK's pass); +-0.0 in the input. Through the backend, 1-3 threads:
// the same bits as SLUICE_XNNPACK_CONV2X2=0 (XNNPACK's IGEMM) and near the
// reference; and the kernel alone in two row ranges.
TEST(XnnpackBackendTest, Conv2x2IsBitExactWithTheSwitchOff) {
  struct Case {
    int h, w, c;
    bool tail, bias2, also_out;
    ir::Padding padding;
    ir::Activation act, act2;
    int oc = 0;  // 0: c
    bool in_pair = false;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const auto kValid = ir::Padding::kValid, kSame = ir::Padding::kSame;
  const auto kNone = ir::Activation::kNone, kRelu = ir::Activation::kRelu,
             kRelu6 = ir::Activation::kRelu6;
  for (const Case& k : {Case{64, 64, 16, true, true, false, kValid, kNone, kNone},
                        Case{32, 32, 32, true, false, false, kValid, kNone, kRelu6},
                        Case{33, 35, 16, false, false, false, kValid, kRelu, kNone},
                        Case{10, 22, 32, true, true, false, kValid, kNone, kNone},
                        Case{6, 26, 16, true, true, false, kSame, kRelu6, kNone},
                        Case{8, 42, 32, true, true, true, kValid, kNone, kNone},
                        Case{3, 3, 16, false, false, false, kValid, kNone, kNone},
                        Case{16, 16, 64, true, true, false, kValid, kNone, kNone, 32},
                        Case{9, 13, 64, true, false, false, kValid, kRelu6, kRelu6, 32},
                        Case{8, 8, 64, true, true, false, kValid, kNone, kNone, 16},
                        Case{7, 34, 64, false, false, false, kValid, kNone, kNone, 16},
                        Case{64, 64, 16, true, true, false, kValid, kNone, kNone, 0, true},
                        Case{13, 19, 32, false, false, false, kValid, kNone, kRelu6, 0, true},
                        Case{16, 20, 64, true, true, false, kValid, kNone, kNone, 32, true},
                        Case{8, 8, 64, true, true, true, kValid, kNone, kNone, 16, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << "->" << k.oc);
    const int oh = k.h / 2, ow = k.w / 2, oc = k.oc ? k.oc : k.c;
    const ir::Shape oshape{1, oh, ow, oc};
    GraphBuilder b("conv2x2");
    const ir::Shape ishape{1, k.h, k.w, k.c};
    int x = b.Input(ishape);
    const std::vector<float> islope = testing::RandomFloats(k.c, -1, 1, 407);
    const std::vector<float> iscale = testing::RandomFloats(k.c, -2, 2, 408);
    const std::vector<float> ibias = testing::RandomFloats(k.c, -1, 1, 409);
    if (k.in_pair) {  // PRELU -> DEPTHWISE 1x1 (RELU6 as act2) in front
      const int z = b.Tensor(ishape), t = b.Tensor(ishape);
      b.Op(OpType::kPrelu, {x, b.Const({1, 1, k.c}, islope)}, {z});
      ir::DepthwiseConv2DOptions d;
      d.padding = ir::Padding::kSame;
      d.activation = k.act2;
      b.Op(OpType::kDepthwiseConv2D,
           {z, b.Const({1, 1, 1, k.c}, iscale), b.Const({k.c}, ibias)}, {t}, d);
      x = t;
    }
    const std::vector<float> w = testing::RandomFloats(4 * oc * k.c, -0.5f, 0.5f, 401);
    const std::vector<float> bias = testing::RandomFloats(oc, -1, 1, 402);
    const std::vector<float> slope = testing::RandomFloats(oc, -1, 1, 403);
    const std::vector<float> scale = testing::RandomFloats(oc, -2, 2, 404);
    const std::vector<float> bias2 = testing::RandomFloats(oc, -1, 1, 405);
    const int y = b.Tensor(oshape);
    ir::Conv2DOptions co;
    co.padding = k.padding;
    co.stride_h = co.stride_w = 2;
    co.activation = k.act;
    b.Op(OpType::kConv2D, {x, b.Const({oc, 2, 2, k.c}, w), b.Const({oc}, bias)}, {y}, co);
    int out = y;
    if (k.tail) {
      const int z = b.Tensor(oshape), t = b.Tensor(oshape);
      b.Op(OpType::kPrelu, {y, b.Const({1, 1, oc}, slope)}, {z});
      ir::DepthwiseConv2DOptions d;
      d.padding = ir::Padding::kSame;
      d.activation = k.act2;
      std::vector<int> ins{z, b.Const({1, 1, 1, oc}, scale)};
      if (k.bias2) ins.push_back(b.Const({oc}, bias2));
      b.Op(OpType::kDepthwiseConv2D, ins, {t}, d);
      out = t;
    }
    b.Output(out);
    if (k.also_out) b.Output(y);
    const ir::Graph g = b.Build();
    std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -2, 2, 406);
    for (size_t i = 0; i < in.size(); i += 7) in[i] = (i / 7) % 2 ? 0.0f : -0.0f;
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 1e-4f);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_CONV2X2", *xnn, g, {in}, threads),
                     "threads " + std::to_string(threads));
      if (k.in_pair) {
        ExpectSameBits(got,
                       RunOnSwitchedOff("SLUICE_XNNPACK_CONV2X2_IN", *xnn, g, {in}, threads),
                       "CONV2X2_IN=0, threads " + std::to_string(threads));
      }
    }
    Conv2x2Shape s;
    s.in_h = k.h, s.in_w = k.w, s.channels = k.c, s.out_h = oh, s.out_w = ow, s.out_channels = oc;
    if (!Conv2x2::Supports(s)) continue;  // no AVX-512
    float lo, hi, lo2, hi2;
    ir::ActivationRange(k.act, &lo, &hi);
    ir::ActivationRange(k.act2, &lo2, &hi2);
    Conv2x2 conv(s, w.data(), bias.data(), lo, hi);
    if (k.tail) {  // (also_out: the backend ran it without; output 0 is still t)
      conv.SetPreluScale(slope.data(), scale.data(), k.bias2 ? bias2.data() : nullptr, lo2, hi2);
    }
    if (k.in_pair) {
      conv.SetInputPreluScale(islope.data(), iscale.data(), ibias.data(), lo2, hi2);
    }
    std::vector<float> alone(ir::NumElements(oshape), -7.0f);
    conv.Run(in.data(), alone.data(), 0, oh / 2);  // in parts, as threads split rows
    conv.Run(in.data(), alone.data(), oh / 2, oh);
    ExpectSameBits(alone, RunOnSwitchedOff("SLUICE_XNNPACK_CONV2X2", *xnn, g, {in}, 1),
                   "the kernel alone");
  }
}

// PRELU -> DEPTHWISE 1x1 (prelu_scale.h, hand_recrop's blocks): 8 channels
// with odd widths (rows starting mid-register), 16 and 32, with and without a
// bias, RELU6 on the DEPTHWISE, +-0.0 in the input; 3 channels (XNNPACK's
// path). Through the backend, 1-3 threads: the same bits as
// SLUICE_XNNPACK_PRELU_SCALE=0 (XNNPACK runs both) and near the reference;
// and, so a matcher that stopped picking the kernel could not hide a broken
// kernel, the kernel alone against the switched-off backend.
TEST(XnnpackBackendTest, PreluScaleIsBitExactWithTheSwitchOff) {
  struct Case {
    int h, w, c;
    bool bias;
    ir::Activation act;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{64, 64, 8, true, ir::Activation::kNone},
                        Case{9, 7, 8, false, ir::Activation::kNone},
                        Case{5, 13, 8, true, ir::Activation::kRelu6},
                        Case{16, 16, 16, true, ir::Activation::kNone},
                        Case{3, 5, 32, false, ir::Activation::kRelu6},
                        Case{6, 5, 3, true, ir::Activation::kNone}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c);
    const ir::Shape shape{1, k.h, k.w, k.c};
    GraphBuilder b("prelu_scale");
    const int x = b.Input(shape);
    const int z = b.Tensor(shape), t = b.Tensor(shape);
    const std::vector<float> slope = testing::RandomFloats(k.c, -1, 1, 281);
    const std::vector<float> scale = testing::RandomFloats(k.c, -2, 2, 282);
    const std::vector<float> bias = testing::RandomFloats(k.c, -1, 1, 283);
    b.Op(OpType::kPrelu, {x, b.Const({1, 1, k.c}, slope)}, {z});
    ir::DepthwiseConv2DOptions d;
    d.padding = ir::Padding::kSame;
    d.activation = k.act;
    std::vector<int> ins{z, b.Const({1, 1, 1, k.c}, scale)};
    if (k.bias) ins.push_back(b.Const({k.c}, bias));
    b.Op(OpType::kDepthwiseConv2D, ins, {t}, d);
    b.Output(t);
    const ir::Graph g = b.Build();
    std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -2, 2, 284);
    in[0] = -0.0f, in[1] = 0.0f, in[in.size() - 1] = -0.0f;
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 1e-5f);
      const std::vector<float> off =
          RunOnSwitchedOff("SLUICE_XNNPACK_PRELU_SCALE", *xnn, g, {in}, threads);
      ExpectSameBits(got, off, "threads " + std::to_string(threads));
      if (threads != 1) continue;
      PreluScaleShape s;
      s.rows = k.h, s.row_pixels = k.w, s.channels = k.c;
      if (!PreluScale::Supports(s)) {
        EXPECT_EQ(k.c, 3);
        continue;
      }
      float lo, hi;
      ir::ActivationRange(k.act, &lo, &hi);
      const PreluScale kernel(s, slope.data(), scale.data(), k.bias ? bias.data() : nullptr, lo,
                              hi);
      std::vector<float> alone(in.size());
      kernel.Run(in.data(), alone.data(), 0, 2);
      kernel.Run(in.data(), alone.data(), 2, k.h);
      ExpectSameBits(alone, off, "the kernel alone");
    }
  }
}

// Convolution2DTransposeBias with kernel == stride == 2 and one output
// channel (upsample_conv.h): the selfie models' last layer, odd widths and
// widths past one 16-pixel register (masked tails), 1x1 images, 64
// channels, and two output channels (XNNPACK's path). Through the backend and, so a
// matcher that stopped picking the kernel could not hide a broken kernel,
// the kernel alone.
TEST(XnnpackBackendTest, UpsampleConvolutionsMatchReference) {
  struct Case {
    int h, w, c, oc;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{16, 16, 16, 1}, Case{5, 37, 16, 1}, Case{3, 9, 3, 1},
                        Case{1, 1, 1, 1}, Case{7, 17, 64, 1}, Case{6, 8, 16, 2}}) {
    GraphBuilder b("upsample");
    const int x = b.Input({1, k.h, k.w, k.c});
    const int y = b.Tensor({1, 2 * k.h, 2 * k.w, k.oc});
    const std::vector<float> w = testing::RandomFloats(k.oc * 4 * k.c, -1, 1, 61);
    const std::vector<float> bias = testing::RandomFloats(k.oc, -1, 1, 62);
    b.Op(OpType::kTransposeConvBias,
         {x, b.Const({k.oc, 2, 2, k.c}, w), b.Const({k.oc}, bias)}, {y},
         ir::TransposeConvOptions{ir::Padding::kValid, 2, 2});
    b.Output(y);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -1, 1, 63);
    const std::vector<float> want = RunOn(*ref, g, {in});
    ExpectNear(RunOn(*xnn, g, {in}, 1), want, 1e-5f);
    ExpectNear(RunOn(*xnn, g, {in}, 2), want, 1e-5f);
    const UpsampleConvShape shape{k.h, k.w, k.c};
    if (k.oc != 1 || !UpsampleConv::Supports(shape)) continue;
    const UpsampleConv conv(shape, w.data(), bias.data());
    std::vector<float> got(want.size(), -7.0f);
    conv.Run(in.data(), got.data(), 0, k.h / 2);  // two calls, as threads split rows
    conv.Run(in.data(), got.data(), k.h / 2, k.h);
    ExpectNear(got, want, 1e-5f);
  }
}

// The upsample kernel's 16-channel transpose path (upsample_conv.h): the
// same bits as its gathers (SLUICE_XNNPACK_UPSAMPLE_T=0), on whole 16-pixel
// blocks, a masked tail (37 = 2 x 16 + 5) and a row split mid-image; and
// near the reference through the backend.
TEST(XnnpackBackendTest, UpsampleTransposeMatchesGathersBitForBit) {
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const int w : {16, 37, 128}) {
    const int h = 6, c = 16;
    const std::vector<float> wt = testing::RandomFloats(4 * c, -1, 1, 231);
    const std::vector<float> bias = testing::RandomFloats(1, -1, 1, 232);
    const std::vector<float> in = testing::RandomFloats(h * w * c, -1, 1, 233);
    GraphBuilder b("upsample16");
    const int x = b.Input({1, h, w, c});
    const int y = b.Tensor({1, 2 * h, 2 * w, 1});
    b.Op(OpType::kTransposeConvBias, {x, b.Const({1, 2, 2, c}, wt), b.Const({1}, bias)}, {y},
         ir::TransposeConvOptions{ir::Padding::kValid, 2, 2});
    b.Output(y);
    const ir::Graph g = b.Build();
    const std::vector<float> got = RunOn(*xnn, g, {in}, 2);
    ExpectNear(got, RunOn(*ref, g, {in}), 1e-5f);
    ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_UPSAMPLE_T", *xnn, g, {in}, 2),
                   "backend, width " + std::to_string(w));
    const UpsampleConvShape shape{h, w, c};
    if (!UpsampleConv::Supports(shape)) continue;
    std::vector<float> fast(got.size(), -7.0f), slow(got.size(), -7.0f);
    {
      const UpsampleConv conv(shape, wt.data(), bias.data());
      conv.Run(in.data(), fast.data(), 0, 1);
      conv.Run(in.data(), fast.data(), 1, h);
    }
    {
      const ScopedEnv env("SLUICE_XNNPACK_UPSAMPLE_T", "0");
      const UpsampleConv conv(shape, wt.data(), bias.data());
      conv.Run(in.data(), slow.data(), 0, h);
    }
    ExpectSameBits(fast, slow, "kernel, width " + std::to_string(w));
  }
}

// DEPTHWISE 3x3 SAME -> CONV 1x1 -> ADD(x, .) blocks (dw_pw_block.h): the
// pose models' segmentation branch. `residual`: the ADD's other input
// (x for the fused pattern); `dw_also_out`: the depthwise output is a graph
// output too (then the pattern must not match). `prelu`: a PRELU after each
// ADD (face_landmark's blocks); kSlopeInput: its slope a graph input (not
// absorbable); kAddAlsoOut: the first ADD's output a graph output too.
enum class DwPwPrelu { kNone, kConst, kSlopeInput, kAddAlsoOut };
struct DwPwCase {
  int h, w, c;
  ir::Activation dw_act, pw_act, add_act;
  bool bias;
  int blocks = 1;
  DwPwPrelu prelu = DwPwPrelu::kNone;
};
ir::Graph DwPwGraph(const DwPwCase& k, bool residual_is_x = true, bool dw_also_out = false) {
  GraphBuilder b("dw_pw");
  const ir::Shape shape{1, k.h, k.w, k.c};
  int x = b.Input(shape);
  const int r = residual_is_x ? -1 : b.Input(shape);
  const int slope_in = k.prelu == DwPwPrelu::kSlopeInput ? b.Input({k.c}) : -1;
  int dw_out = -1, add_out = -1;
  for (int blk = 0; blk < k.blocks; ++blk) {
    const uint32_t seed = 60 + 10 * blk;
    const int d = b.Tensor(shape);
    ir::DepthwiseConv2DOptions dopt;
    dopt.padding = ir::Padding::kSame;
    dopt.activation = k.dw_act;
    b.Op(OpType::kDepthwiseConv2D,
         {x, b.Const({1, 3, 3, k.c}, testing::RandomFloats(9 * k.c, -1, 1, seed)),
          k.bias ? b.Const({k.c}, testing::RandomFloats(k.c, -1, 1, seed + 1)) : -1},
         {d}, dopt);
    const int p = b.Tensor(shape);
    ir::Conv2DOptions popt;
    popt.padding = ir::Padding::kSame;
    popt.activation = k.pw_act;
    b.Op(OpType::kConv2D,
         {d, b.Const({k.c, 1, 1, k.c}, testing::RandomFloats(k.c * k.c, -1, 1, seed + 2)),
          k.bias ? b.Const({k.c}, testing::RandomFloats(k.c, -1, 1, seed + 3)) : -1},
         {p}, popt);
    const int y = b.Tensor(shape);
    ir::BinaryOptions aopt;
    aopt.activation = k.add_act;
    // Both operand orders of the ADD.
    if (blk % 2 == 0) {
      b.Op(OpType::kAdd, {residual_is_x ? x : r, p}, {y}, aopt);
    } else {
      b.Op(OpType::kAdd, {p, residual_is_x ? x : r}, {y}, aopt);
    }
    if (dw_out < 0) dw_out = d;
    if (add_out < 0) add_out = y;
    x = y;
    if (k.prelu != DwPwPrelu::kNone) {
      x = b.Tensor(shape);
      const int slope = slope_in >= 0 ? slope_in
                                      : b.Const({1, 1, k.c}, testing::RandomFloats(
                                                                 k.c, -1, 1, seed + 4));
      b.Op(OpType::kPrelu, {y, slope}, {x});
    }
  }
  b.Output(x);
  if (dw_also_out) b.Output(dw_out);
  if (k.prelu == DwPwPrelu::kAddAlsoOut) b.Output(add_out);
  return b.Build();
}

// Steps of the compiled model, profiled (each op its own step unless a
// kernel absorbed it); -1 when the own kernels are off.
int ProfiledSteps(const Backend& backend, const ir::Graph& g) {
  if (!PointwiseConvAvailable() || std::getenv("SLUICE_XNNPACK_OWN_GEMM") ||
      std::getenv("SLUICE_XNNPACK_DWPW") || std::getenv("SLUICE_XNNPACK_FUSE_ADD")) {
    return -1;
  }
  BackendOptions o;
  o.profile_ops = true;
  auto m = backend.Compile(g, o);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return -1;
  EXPECT_TRUE((*m)->Invoke().ok());
  return static_cast<int>((*m)->OpTimes().size());
}

// The fused block against the reference kernels: C = 8 (two pixels per
// register, plain loads), 16 (one pixel), 5 and 12 (masked / expanded
// slots); odd widths (a last single pixel), 1x1, 2x3, 1-row and 1-column
// images; every activation on each op; with and without bias; two blocks in
// a row; 1 and 2 threads.
TEST(XnnpackBackendTest, DwPwBlocksMatchReference) {
  using A = ir::Activation;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<DwPwCase> cases = {
      {16, 16, 8, A::kNone, A::kNone, A::kNone, true, 2},
      {9, 7, 8, A::kRelu, A::kNone, A::kRelu6, true},
      {1, 1, 8, A::kNone, A::kRelu6, A::kNone, true},
      {2, 3, 8, A::kRelu6, A::kRelu, A::kReluN1To1, false},
      {1, 6, 8, A::kNone, A::kNone, A::kRelu, true},
      {5, 1, 8, A::kReluN1To1, A::kNone, A::kNone, true},
      {11, 13, 16, A::kNone, A::kRelu6, A::kNone, true, 2},
      {2, 3, 16, A::kRelu, A::kNone, A::kRelu6, false},
      {1, 1, 16, A::kNone, A::kNone, A::kNone, true},
      {10, 9, 5, A::kNone, A::kNone, A::kNone, true, 2},
      {2, 3, 5, A::kRelu6, A::kReluN1To1, A::kRelu, true},
      {1, 1, 4, A::kNone, A::kNone, A::kNone, false},
      {7, 6, 4, A::kRelu, A::kRelu, A::kRelu, true},
      {6, 5, 12, A::kNone, A::kNone, A::kRelu, true},
  };
  for (const DwPwCase& k : cases) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " acts "
                                      << static_cast<int>(k.dw_act) << static_cast<int>(k.pw_act)
                                      << static_cast<int>(k.add_act) << " bias " << k.bias
                                      << " blocks " << k.blocks);
    const ir::Graph g = DwPwGraph(k);
    // Inputs in [-2, 2], so that the RELU_N1_TO_1 / RELU6 clamps bite.
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -2, 2, 71);
    const std::vector<float> want = RunOn(*ref, g, {in});
    ExpectNear(RunOn(*xnn, g, {in}, 1), want, 1e-5f);
    ExpectNear(RunOn(*xnn, g, {in}, 2), want, 1e-5f);
    // One step per block; blocks of 9-15 channels are fused only with
    // SLUICE_XNNPACK_DWPW=wide (else a depthwise step and a 1x1+ADD step).
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0 && !std::getenv("SLUICE_XNNPACK_FACE")) {
      EXPECT_EQ(steps, k.c <= 8 || k.c == 16 ? k.blocks : 2 * k.blocks);
    }
    if (k.c > 8 && k.c != 16) {
      ScopedEnv wide("SLUICE_XNNPACK_DWPW", "wide");
      ExpectNear(RunOn(*xnn, g, {in}, 1), want, 1e-5f);
      ExpectNear(RunOn(*xnn, g, {in}, 2), want, 1e-5f);
      const int wide_steps = ProfiledSteps(*xnn, g);
      if (wide_steps >= 0) EXPECT_EQ(wide_steps, k.blocks);
    }
  }
  // Wide enough for threads to split the rows (halo rows read twice).
  const DwPwCase big{64, 45, 8, A::kNone, A::kNone, A::kNone, true, 2};
  const ir::Graph g = DwPwGraph(big);
  const std::vector<float> in = testing::RandomFloats(64 * 45 * 8, -2, 2, 72);
  const std::vector<float> want = RunOn(*ref, g, {in});
  for (int threads : {1, 2, 3}) ExpectNear(RunOn(*xnn, g, {in}, threads), want, 1e-5f);
}

// C = 8 blocks whose 1x1 has no activation (pose_landmark's): the interior
// steps skip the 1x1's [-inf, inf] clamp. The same bits as with the clamp
// (SLUICE_XNNPACK_DWPW_FREE=0), also for inputs of +-inf, NaN and -0 (a NaN
// after the 1x1 meets the ADD's clamp either way), every activation on the
// depthwise and the ADD, with and without PRELU, 1-3 threads.
TEST(XnnpackBackendTest, DwPwBlocksSkipAnUnboundedPointwiseClampWithTheSameBits) {
  using A = ir::Activation;
  using P = DwPwPrelu;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<DwPwCase> cases = {
      {16, 16, 8, A::kRelu6, A::kNone, A::kRelu6, true, 2},
      {9, 31, 8, A::kNone, A::kNone, A::kNone, true, 2},
      {7, 20, 8, A::kRelu, A::kNone, A::kReluN1To1, false},
      {40, 37, 8, A::kNone, A::kNone, A::kRelu, true, 1, P::kConst},
      {5, 12, 8, A::kReluN1To1, A::kNone, A::kNone, true, 2, P::kConst},
  };
  for (const DwPwCase& k : cases) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " acts "
                                      << static_cast<int>(k.dw_act) << static_cast<int>(k.add_act)
                                      << " blocks " << k.blocks << " prelu "
                                      << static_cast<int>(k.prelu));
    const ir::Graph g = DwPwGraph(k);
    std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -2, 2, 93);
    const std::vector<float> want = RunOn(*ref, g, {in});
    ExpectNear(RunOn(*xnn, g, {in}, 1), want, 3e-5f);
    const float inf = std::numeric_limits<float>::infinity();
    const float special[] = {inf, -inf, std::numeric_limits<float>::quiet_NaN(), -0.0f};
    for (size_t i = 5; i < in.size(); i += 97) in[i] = special[(i / 97) % 4];
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads");
      ExpectSameBits(RunOn(*xnn, g, {in}, threads),
                     RunOnSwitchedOff("SLUICE_XNNPACK_DWPW_FREE", *xnn, g, {in}, threads),
                     "SLUICE_XNNPACK_DWPW_FREE=0 gives other bits");
    }
  }
}

// C = 16, 32, 64 blocks with and without a PRELU after the ADD
// (face_landmark's 96x96x16, 48x48x32, 24x24x64 blocks; dw_pw_block.cc's
// WideRows: steps of 12 / 12 / 6 pixels, the row's last step moved left,
// edge pixels gathered into their own tiles, flushed part-full at the end):
// widths below, at and above a step + 2 and odd, 1-row and 1-column images,
// every activation, 1-3 threads; and C = 8 with a PRELU. Against the
// reference, and the same bits as SLUICE_XNNPACK_FACE=0 (the depthwise and
// 1x1 kernels, or their streamed pair, apart); one step per block (PRELU
// absorbed) vs two.
TEST(XnnpackBackendTest, DwPwBlocksWideWithPreluMatchUnfused) {
  using A = ir::Activation;
  using P = DwPwPrelu;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const bool env_free = !std::getenv("SLUICE_XNNPACK_FACE");
  const std::vector<DwPwCase> cases = {
      {13, 29, 16, A::kNone, A::kNone, A::kNone, true, 2, P::kConst},
      {7, 14, 16, A::kRelu6, A::kRelu, A::kNone, true, 1, P::kConst},
      {6, 15, 16, A::kNone, A::kReluN1To1, A::kRelu6, false, 1, P::kConst},
      {5, 13, 16, A::kRelu, A::kNone, A::kRelu, true, 1, P::kConst},
      {9, 40, 16, A::kNone, A::kNone, A::kReluN1To1, true, 3, P::kNone},
      {1, 31, 16, A::kNone, A::kRelu6, A::kNone, true, 1, P::kConst},
      {17, 1, 16, A::kNone, A::kNone, A::kNone, true, 1, P::kConst},
      {3, 2, 16, A::kRelu, A::kNone, A::kNone, false, 2, P::kConst},
      {50, 49, 16, A::kNone, A::kNone, A::kNone, true, 2, P::kConst},
      {11, 27, 32, A::kNone, A::kNone, A::kNone, true, 2, P::kConst},
      {4, 14, 32, A::kRelu6, A::kRelu, A::kReluN1To1, false, 1, P::kConst},
      {2, 5, 32, A::kNone, A::kNone, A::kNone, true, 1, P::kNone},
      {49, 48, 32, A::kNone, A::kNone, A::kNone, true, 2, P::kConst},
      {9, 17, 64, A::kNone, A::kNone, A::kNone, true, 2, P::kConst},
      {3, 8, 64, A::kRelu, A::kNone, A::kRelu6, true, 1, P::kConst},
      {1, 1, 64, A::kNone, A::kNone, A::kNone, false, 1, P::kConst},
      {24, 24, 64, A::kNone, A::kNone, A::kNone, true, 1, P::kNone},
      {9, 11, 8, A::kNone, A::kRelu6, A::kNone, true, 2, P::kConst},
  };
  for (const DwPwCase& k : cases) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " acts "
                                      << static_cast<int>(k.dw_act) << static_cast<int>(k.pw_act)
                                      << static_cast<int>(k.add_act) << " bias " << k.bias
                                      << " blocks " << k.blocks << " prelu "
                                      << static_cast<int>(k.prelu));
    const ir::Graph g = DwPwGraph(k);
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -2, 2, 91);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads");
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      // (Chained unclamped blocks: FMA vs the reference's rounding.)
      ExpectNear(got, want, 3e-5f);
      ExpectSameBits(RunOnSwitchedOff("SLUICE_XNNPACK_FACE", *xnn, g, {in}, threads), got,
                     "SLUICE_XNNPACK_FACE=0 gives other bits");
    }
    if (!env_free) continue;
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0) EXPECT_EQ(steps, k.blocks);
    if (steps >= 0 && k.h * k.w < 48 * 48) {  // below the streamed pair's sizes
      ScopedEnv off("SLUICE_XNNPACK_FACE", "0");
      BackendOptions o;
      o.profile_ops = true;
      auto m = xnn->Compile(g, o);
      ASSERT_TRUE(m.ok()) << m.status();
      ASSERT_TRUE((*m)->Invoke().ok());
      EXPECT_EQ(static_cast<int>((*m)->OpTimes().size()), 2 * k.blocks);
    }
  }
}

// Where a C = 16 block or its PRELU must not be fused: 12 channels (the
// generic loop, slower), 48 (no loop for it), the ADD's other input not x, the PRELU's slope not
// constant, the ADD's output read elsewhere (a graph output).
TEST(XnnpackBackendTest, DwPwBlock16OnlyWhereThePatternHolds) {
  using A = ir::Activation;
  using P = DwPwPrelu;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const bool env_free = !std::getenv("SLUICE_XNNPACK_FACE");
  struct Case {
    DwPwCase k;
    bool residual_is_x;
    int steps;  // profiled: block, PRELU, DEPTHWISE, 1x1 chain
  };
  const std::vector<Case> cases = {
      {{6, 17, 12, A::kNone, A::kNone, A::kNone, true, 1, P::kConst}, true, 2},
      {{6, 17, 48, A::kNone, A::kNone, A::kNone, true, 1, P::kConst}, true, 2},
      {{6, 17, 16, A::kNone, A::kNone, A::kNone, true, 1, P::kConst}, false, 2},
      {{6, 17, 16, A::kNone, A::kNone, A::kNone, true, 1, P::kSlopeInput}, true, 2},
      {{6, 17, 16, A::kNone, A::kNone, A::kNone, true, 1, P::kAddAlsoOut}, true, 2},
  };
  for (const Case& c : cases) {
    const DwPwCase& k = c.k;
    SCOPED_TRACE(::testing::Message() << "c " << k.c << " residual_is_x " << c.residual_is_x
                                      << " prelu " << static_cast<int>(k.prelu));
    const ir::Graph g = DwPwGraph(k, c.residual_is_x);
    std::vector<std::vector<float>> ins = {testing::RandomFloats(k.h * k.w * k.c, -2, 2, 93)};
    if (k.prelu == P::kSlopeInput) ins.push_back(testing::RandomFloats(k.c, -1, 1, 94));
    if (!c.residual_is_x) ins.push_back(testing::RandomFloats(k.h * k.w * k.c, -2, 2, 95));
    const std::vector<float> want = RunOn(*ref, g, ins);
    ExpectNear(RunOn(*xnn, g, ins, 1), want, 1e-5f);
    ExpectNear(RunOn(*xnn, g, ins, 2), want, 1e-5f);
    const int steps = env_free ? ProfiledSteps(*xnn, g) : -1;
    if (steps >= 0) EXPECT_EQ(steps, c.steps);
  }
}

// A CONV_2D whose filter covers its whole input (one output pixel) with
// fp16-exact weights of >= 256 KiB: gemv_conv.h (face_landmark's 3x3x32 ->
// 1404 head; N not a multiple of 16 or of the 128-output blocks, 1-3
// threads, with and without bias, RELU6). Against the reference and the same
// bits as SLUICE_XNNPACK_FACE=0 (XNNPACK's GEMM). Also weights not exact in
// fp16 and too small ones (XNNPACK's then; right all the same).
TEST(XnnpackBackendTest, GemvConvMatchesXnnpack) {
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  struct Case {
    int h, w, c, n;
    bool bias, fp16_exact;
    ir::Activation act;
  };
  const std::vector<Case> cases = {
      {3, 3, 32, 1404, true, true, ir::Activation::kNone},
      {3, 3, 32, 233, false, true, ir::Activation::kRelu6},
      {2, 2, 128, 150, true, true, ir::Activation::kNone},
      {2, 2, 128, 150, true, false, ir::Activation::kNone},
      {3, 3, 8, 100, true, true, ir::Activation::kNone},  // 28 KiB
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " -> " << k.n
                                      << " bias " << k.bias << " fp16 " << k.fp16_exact);
    const int kk = k.h * k.w * k.c;
    std::vector<float> w = testing::RandomFloats(k.n * kk, -1, 1, 101);
    // Multiples of 2^-10 in [-1, 1]: exact in fp16.
    if (k.fp16_exact) {
      for (float& v : w) v = std::round(v * 1024.0f) / 1024.0f;
    }
    GraphBuilder b("gemv");
    const int x = b.Input({1, k.h, k.w, k.c});
    const int y = b.Tensor({1, 1, 1, k.n});
    ir::Conv2DOptions o;
    o.padding = ir::Padding::kValid;
    o.activation = k.act;
    b.Op(OpType::kConv2D,
         {x, b.Const({k.n, k.h, k.w, k.c}, w),
          k.bias ? b.Const({k.n}, testing::RandomFloats(k.n, -1, 1, 102)) : -1},
         {y}, o);
    b.Output(y);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(kk, -1, 1, 103);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads");
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 1e-5f);
      ExpectSameBits(RunOnSwitchedOff("SLUICE_XNNPACK_FACE", *xnn, g, {in}, threads), got,
                     "SLUICE_XNNPACK_FACE=0 gives other bits");
    }
  }
  // The kernel alone: fp16 exactness is what Supports checks.
  const float exact[] = {0.5f, -1.0f / 1024, 65504.0f, 0.0f};
  const float inexact[] = {0.5f, 0.1f};
  if (PointwiseConvAvailable()) EXPECT_TRUE(GemvConv::Supports(exact, 4));
  EXPECT_FALSE(GemvConv::Supports(inexact, 2));
}

// Where the block must not be fused: the ADD's other input is not the
// depthwise's input, or the depthwise output is read elsewhere too (a graph
// output). Still right, and more than one step.
TEST(XnnpackBackendTest, DwPwBlockOnlyWhereThePatternHolds) {
  using A = ir::Activation;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const DwPwCase k{9, 7, 8, A::kNone, A::kNone, A::kRelu6, true};
  const std::vector<float> in = testing::RandomFloats(9 * 7 * 8, -2, 2, 81);
  const std::vector<float> r = testing::RandomFloats(9 * 7 * 8, -2, 2, 82);
  const ir::Graph other_residual = DwPwGraph(k, /*residual_is_x=*/false);
  const std::vector<float> want = RunOn(*ref, other_residual, {in, r});
  ExpectNear(RunOn(*xnn, other_residual, {in, r}, 1), want, 1e-5f);
  ExpectNear(RunOn(*xnn, other_residual, {in, r}, 2), want, 1e-5f);
  const ir::Graph dw_read_twice = DwPwGraph(k, true, /*dw_also_out=*/true);
  ExpectNear(RunOn(*xnn, dw_read_twice, {in}, 1), RunOn(*ref, dw_read_twice, {in}), 1e-5f);
  // DEPTHWISE alone, then CONV 1x1 + ADD (pointwise_conv.h's chain).
  for (const ir::Graph* g : {&other_residual, &dw_read_twice}) {
    const int steps = ProfiledSteps(*xnn, *g);
    if (steps >= 0) EXPECT_EQ(steps, 2);
  }
}

// DEPTHWISE -> ADD(r, .) with the ADD as the depthwise kernel's epilogue
// (depthwise_conv.h SetResidualAdd): r is the depthwise's input (the
// selfie decoders' x + relu(dw(x))) or another tensor of the output's shape
// (stride 2, VALID); 3x3 and 5x5; C = 5, 16, 24, 40 (masked groups); odd
// sizes, 1-pixel images; every activation; both operand orders.
struct DwAddCase {
  int h, w, c, k, stride;
  ir::Padding padding;
  ir::Activation dw_act, add_act;
  bool residual_is_x;
};
ir::Graph DwAddGraph(const DwAddCase& k, bool dw_also_out = false) {
  GraphBuilder b("dw_add");
  const int x = b.Input({1, k.h, k.w, k.c});
  const ir::PadOut ph = ir::ComputePadding(k.padding, k.h, k.k, k.stride, 1);
  const ir::PadOut pw = ir::ComputePadding(k.padding, k.w, k.k, k.stride, 1);
  const ir::Shape out{1, ph.out, pw.out, k.c};
  const int r = k.residual_is_x ? x : b.Input(out);
  const int d = b.Tensor(out);
  ir::DepthwiseConv2DOptions o;
  o.padding = k.padding;
  o.stride_h = o.stride_w = k.stride;
  o.activation = k.dw_act;
  b.Op(OpType::kDepthwiseConv2D,
       {x, b.Const({1, k.k, k.k, k.c}, testing::RandomFloats(k.k * k.k * k.c, -1, 1, 91)),
        b.Const({k.c}, testing::RandomFloats(k.c, -1, 1, 92))},
       {d}, o);
  const int y = b.Tensor(out);
  ir::BinaryOptions a;
  a.activation = k.add_act;
  if (k.c % 2) {
    b.Op(OpType::kAdd, {d, r}, {y}, a);
  } else {
    b.Op(OpType::kAdd, {r, d}, {y}, a);
  }
  b.Output(y);
  if (dw_also_out) b.Output(d);
  return b.Build();
}

TEST(XnnpackBackendTest, DepthwiseResidualAddsMatchReference) {
  using A = ir::Activation;
  using P = ir::Padding;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const DwAddCase& k : {DwAddCase{17, 13, 16, 3, 1, P::kSame, A::kRelu, A::kNone, true},
                             DwAddCase{9, 11, 5, 3, 1, P::kSame, A::kNone, A::kRelu6, true},
                             DwAddCase{1, 1, 24, 3, 1, P::kSame, A::kRelu6, A::kNone, true},
                             DwAddCase{7, 1, 40, 5, 1, P::kSame, A::kNone, A::kReluN1To1, true},
                             DwAddCase{15, 17, 40, 3, 2, P::kSame, A::kRelu, A::kRelu, false},
                             DwAddCase{13, 21, 24, 5, 2, P::kValid, A::kNone, A::kNone, false}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " k" << k.k << " s"
                                      << k.stride);
    const ir::Graph g = DwAddGraph(k);
    std::vector<std::vector<float>> in = {testing::RandomFloats(k.h * k.w * k.c, -2, 2, 93)};
    if (!k.residual_is_x) {
      in.push_back(testing::RandomFloats(g.tensors[g.outputs[0]].num_elements(), -2, 2, 94));
    }
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) ExpectNear(RunOn(*xnn, g, in, threads), want, 1e-5f);
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0 && !std::getenv("SLUICE_XNNPACK_DW_WIDE")) EXPECT_EQ(steps, 1);
  }
  // The depthwise output read elsewhere too (a graph output): not fused.
  const DwAddCase k{9, 11, 16, 3, 1, P::kSame, A::kRelu, A::kNone, true};
  const ir::Graph g = DwAddGraph(k, /*dw_also_out=*/true);
  const std::vector<float> in = testing::RandomFloats(9 * 11 * 16, -2, 2, 95);
  ExpectNear(RunOn(*xnn, g, {in}, 2), RunOn(*ref, g, {in}), 1e-5f);
  const int steps = ProfiledSteps(*xnn, g);
  if (steps >= 0) EXPECT_EQ(steps, 2);
}

// DEPTHWISE 3x3 SAME -> ADD -> Convolution2DTransposeBias 2x2 stride 2 to
// one channel (the selfie models' last stage) as one row kernel through L1
// (dw_add_upsample.h). `residual_is_x`: ADD(x, dw) as in the models, else a
// second input; `sigmoid`: a LOGISTIC after the upsample (the models');
// `sum_out`: the ADD's output a graph output too (then the pattern must not
// match).
ir::Graph DwAddUpsampleGraph(int h, int w, int c, ir::Activation dw_act, ir::Activation add_act,
                             bool residual_is_x, bool sigmoid, bool sum_out = false) {
  GraphBuilder b("dw_add_upsample");
  const ir::Shape shape{1, h, w, c};
  const int x = b.Input(shape);
  const int r = residual_is_x ? x : b.Input(shape);
  const int d = b.Tensor(shape), s = b.Tensor(shape);
  int y = b.Tensor({1, 2 * h, 2 * w, 1});
  ir::DepthwiseConv2DOptions o;
  o.padding = ir::Padding::kSame;
  o.activation = dw_act;
  b.Op(OpType::kDepthwiseConv2D,
       {x, b.Const({1, 3, 3, c}, testing::RandomFloats(9 * c, -1, 1, 401)),
        b.Const({c}, testing::RandomFloats(c, -1, 1, 402))},
       {d}, o);
  ir::BinaryOptions a;
  a.activation = add_act;
  b.Op(OpType::kAdd, {r, d}, {s}, a);
  b.Op(OpType::kTransposeConvBias,
       {s, b.Const({1, 2, 2, c}, testing::RandomFloats(4 * c, -1, 1, 403)),
        b.Const({1}, testing::RandomFloats(1, -1, 1, 404))},
       {y}, ir::TransposeConvOptions{ir::Padding::kValid, 2, 2});
  if (sigmoid) {
    const int z = b.Tensor({1, 2 * h, 2 * w, 1});
    b.Op(OpType::kLogistic, {y}, {z});
    y = z;
  }
  b.Output(y);
  if (sum_out) b.Output(s);
  return b.Build();
}

// Odd heights and widths (masked 16-pixel tails), 1-row images, 16 channels
// (the models'), 5 and 24 (masked groups), activations on each op; 1-3
// threads: the same bits as two steps (SLUICE_XNNPACK_DW_UPSAMPLE=0), near
// the reference, one step; with a LOGISTIC after it taken too
// (SLUICE_XNNPACK_DW_UPSAMPLE_SIGMOID=1: XNNPACK's sigmoid operator on the
// kernel's bands, the last band short) the same bits as its own step. The
// kernel alone, rows split as threads do, the same bits as the depthwise
// with its ADD epilogue then the upsample.
TEST(XnnpackBackendTest, DwAddUpsampleIsBitExactWithTheSwitchOff) {
  using A = ir::Activation;
  struct Case {
    int h, w, c;
    A dw_act, add_act;
    bool residual_is_x, sigmoid;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{9, 37, 16, A::kNone, A::kNone, true, true},
                        Case{13, 128, 16, A::kRelu, A::kNone, true, false},
                        Case{15, 128, 16, A::kNone, A::kNone, true, true},
                        Case{1, 16, 16, A::kNone, A::kRelu6, true, true},
                        Case{7, 5, 5, A::kRelu6, A::kNone, false, false},
                        Case{6, 19, 24, A::kNone, A::kReluN1To1, false, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c
                                      << (k.sigmoid ? " LOGISTIC" : ""));
    const ir::Graph g =
        DwAddUpsampleGraph(k.h, k.w, k.c, k.dw_act, k.add_act, k.residual_is_x, k.sigmoid);
    std::vector<std::vector<float>> in;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      in.push_back(testing::RandomFloats(k.h * k.w * k.c, -2, 2, 405 + i));
    }
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) {
      const std::vector<float> got = RunOn(*xnn, g, in, threads);
      ExpectNear(got, want, 1e-5f);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_DW_UPSAMPLE", *xnn, g, in, threads),
                     "threads " + std::to_string(threads));
      if (!k.sigmoid) continue;
      const ScopedEnv on("SLUICE_XNNPACK_DW_UPSAMPLE_SIGMOID", "1");
      ExpectSameBits(RunOn(*xnn, g, in, threads), got,
                     "sigmoid, threads " + std::to_string(threads));
    }
    const bool taken =
        !std::getenv("SLUICE_XNNPACK_DW_UPSAMPLE") && !std::getenv("SLUICE_XNNPACK_UPSAMPLE");
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0 && taken) EXPECT_EQ(steps, k.sigmoid ? 2 : 1);
    if (k.sigmoid && taken) {
      const ScopedEnv on("SLUICE_XNNPACK_DW_UPSAMPLE_SIGMOID", "1");
      const int fused = ProfiledSteps(*xnn, g);
      if (fused >= 0) EXPECT_EQ(fused, 1);
    }

    // The kernel alone against its two parts.
    const DepthwiseShape ds{k.h, k.w, k.c, k.h, k.w, 3, 1, 1, 1, 1};
    const UpsampleConvShape us{k.h, k.w, k.c};
    if (!DepthwiseAddUpsample::Supports(ds, us)) continue;
    const std::vector<float> dw_w = testing::RandomFloats(9 * k.c, -1, 1, 411);
    const std::vector<float> dw_b = testing::RandomFloats(k.c, -1, 1, 412);
    const std::vector<float> up_w = testing::RandomFloats(4 * k.c, -1, 1, 413);
    const std::vector<float> up_b = testing::RandomFloats(1, -1, 1, 414);
    const std::vector<float>& x = in[0];
    const std::vector<float>& r = in.back();
    auto dw = std::make_shared<DepthwiseConv>(ds, dw_w.data(), dw_b.data(), -1.5f, 1.75f);
    auto up = std::make_shared<const UpsampleConv>(us, up_w.data(), up_b.data());
    std::vector<float> sum(x.size(), -7.0f), two(4 * k.h * k.w, -7.0f), one(two.size(), -7.0f);
    dw->SetResidualAdd(-2.5f, 3.0f);
    dw->Run(x.data(), r.data(), sum.data(), 0, k.h);
    up->Run(sum.data(), two.data(), 0, k.h);
    const DepthwiseAddUpsample fused(dw, up, r.data(), -2.5f, 3.0f);
    fused.Run(x.data(), one.data(), 0, k.h / 2);
    fused.Run(x.data(), one.data(), k.h / 2, k.h);
    ExpectSameBits(one, two, "the kernel alone");
  }
  // The sum read elsewhere too (a graph output): two steps, still right.
  const ir::Graph g =
      DwAddUpsampleGraph(9, 37, 16, A::kNone, A::kNone, true, false, /*sum_out=*/true);
  const std::vector<float> in = testing::RandomFloats(9 * 37 * 16, -2, 2, 415);
  for (int threads : {1, 2}) ExpectNear(RunOn(*xnn, g, {in}, threads), RunOn(*ref, g, {in}), 1e-5f);
  const int steps = ProfiledSteps(*xnn, g);
  if (steps >= 0) EXPECT_EQ(steps, 2);
}

// y = ADD(MUL(x, gate), b) with a per-channel gate (gated_add.h), alone or
// as the input of a 1x1 conv (`conv_out` > 0 output channels) that may add
// a residual (`conv_residual`: pointwise_conv.h's epilogue on top).
struct GatedCase {
  int h, w, c;
  ir::Activation mul_act, add_act;
  int conv_out = 0;
  bool conv_residual = false;
  bool gate_flat = false;  // the gate as [C] rather than [1, 1, 1, C]
};
// `product_out`: the MUL's output is a graph output too; `spatial_gate`: the
// gate is [1, h, w, 1] (not per channel). Neither may fuse.
ir::Graph GatedGraph(const GatedCase& k, bool product_out = false, bool spatial_gate = false) {
  GraphBuilder b("gated");
  const ir::Shape shape{1, k.h, k.w, k.c};
  const int x = b.Input(shape);
  const int gate = b.Input(spatial_gate ? ir::Shape{1, k.h, k.w, 1}
                           : k.gate_flat ? ir::Shape{k.c}
                                         : ir::Shape{1, 1, 1, k.c});
  const int rb = b.Input(shape);
  const int prod = b.Tensor(shape);
  ir::BinaryOptions m;
  m.activation = k.mul_act;
  if (k.c % 2) {
    b.Op(OpType::kMul, {gate, x}, {prod}, m);
  } else {
    b.Op(OpType::kMul, {x, gate}, {prod}, m);
  }
  int y = b.Tensor(shape);
  ir::BinaryOptions a;
  a.activation = k.add_act;
  if (k.w % 2) {
    b.Op(OpType::kAdd, {rb, prod}, {y}, a);
  } else {
    b.Op(OpType::kAdd, {prod, rb}, {y}, a);
  }
  if (k.conv_out > 0) {
    const ir::Shape oshape{1, k.h, k.w, k.conv_out};
    const int z = b.Tensor(oshape);
    ir::Conv2DOptions o;
    o.padding = ir::Padding::kSame;
    o.activation = ir::Activation::kRelu;
    b.Op(OpType::kConv2D,
         {y, b.Const({k.conv_out, 1, 1, k.c}, testing::RandomFloats(k.conv_out * k.c, -1, 1, 96)),
          b.Const({k.conv_out}, testing::RandomFloats(k.conv_out, -1, 1, 97))},
         {z}, o);
    y = z;
    if (k.conv_residual) {
      const int r = b.Input(oshape);
      const int s = b.Tensor(oshape);
      b.Op(OpType::kAdd, {y, r}, {s}, ir::BinaryOptions{});
      y = s;
    }
  }
  b.Output(y);
  if (product_out) b.Output(prod);
  return b.Build();
}
std::vector<std::vector<float>> GatedInputs(const ir::Graph& g) {
  std::vector<std::vector<float>> in;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    in.push_back(testing::RandomFloats(g.tensors[g.inputs[i]].num_elements(), -2, 2, 100 + i));
  }
  return in;
}

// The selfie decoders' last two steps: ADD(MUL(x, gate), b) -> CONV 1x1
// (cin -> c) -> DEPTHWISE 3x3 SAME -> ADD(that, .) -> 2x2 upsample to one
// channel (without `upsample`: the ADD's output is the graph's, as in the
// decoders' 64x64 and 32x32 stages). `conv_out`: the 1x1's output a graph
// output too (then it is written: two steps).
ir::Graph StagedDwUpsampleGraph(int h, int w, int cin, int c, ir::Activation conv_act,
                                bool conv_out, bool upsample = true) {
  GraphBuilder b("staged_dw_upsample");
  const ir::Shape xs{1, h, w, cin}, shape{1, h, w, c};
  const int x = b.Input(xs), gate = b.Input({1, 1, 1, cin}), rb = b.Input(xs);
  const int prod = b.Tensor(xs), y = b.Tensor(xs), z = b.Tensor(shape);
  b.Op(OpType::kMul, {x, gate}, {prod}, ir::BinaryOptions{});
  b.Op(OpType::kAdd, {prod, rb}, {y}, ir::BinaryOptions{});
  ir::Conv2DOptions co;
  co.activation = conv_act;
  b.Op(OpType::kConv2D,
       {y, b.Const({c, 1, 1, cin}, testing::RandomFloats(c * cin, -1, 1, 421)),
        b.Const({c}, testing::RandomFloats(c, -1, 1, 422))},
       {z}, co);
  const int d = b.Tensor(shape), sum = b.Tensor(shape), out = b.Tensor({1, 2 * h, 2 * w, 1});
  ir::DepthwiseConv2DOptions o;
  o.padding = ir::Padding::kSame;
  b.Op(OpType::kDepthwiseConv2D,
       {z, b.Const({1, 3, 3, c}, testing::RandomFloats(9 * c, -1, 1, 423)),
        b.Const({c}, testing::RandomFloats(c, -1, 1, 424))},
       {d}, o);
  ir::BinaryOptions ao;
  ao.activation = upsample ? ir::Activation::kNone : ir::Activation::kRelu6;
  b.Op(OpType::kAdd, {z, d}, {sum}, ao);
  if (upsample) {
    b.Op(OpType::kTransposeConvBias,
         {sum, b.Const({1, 2, 2, c}, testing::RandomFloats(4 * c, -1, 1, 425)),
          b.Const({1}, testing::RandomFloats(1, -1, 1, 426))},
         {out}, ir::TransposeConvOptions{ir::Padding::kValid, 2, 2});
    b.Output(out);
  } else {
    b.Output(sum);
  }
  if (conv_out) b.Output(z);
  return b.Build();
}

// The staged 1x1 in front of the depthwise + ADD (+ upsample) kernel, its
// rows computed in the bands (SLUICE_XNNPACK_STAGED_DW_UPSAMPLE, _DW_ADD):
// near the reference and the same bits as the two steps at 1-3 threads (band
// edges with their halo rows; 1- and 2-row images), one step; with the 1x1's
// output read elsewhere, two.
TEST(XnnpackBackendTest, StagedDwUpsampleIsBitExactWithTheSwitchOff) {
  using A = ir::Activation;
  if (std::getenv("SLUICE_XNNPACK_STAGED_DW_UPSAMPLE") || std::getenv("SLUICE_XNNPACK_DW_UPSAMPLE") ||
      std::getenv("SLUICE_XNNPACK_STAGED_DW_ADD")) {
    GTEST_SKIP() << "switch set outside";
  }
  struct Case {
    int h, w, cin, c;
    A act;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const bool upsample : {true, false}) {
    const char* sw =
        upsample ? "SLUICE_XNNPACK_STAGED_DW_UPSAMPLE" : "SLUICE_XNNPACK_STAGED_DW_ADD";
    for (const Case& k : {Case{9, 37, 16, 16, A::kNone}, Case{13, 128, 16, 16, A::kRelu},
                          Case{1, 16, 16, 16, A::kNone}, Case{2, 11, 24, 5, A::kRelu6},
                          Case{7, 5, 5, 24, A::kNone}}) {
      SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " " << k.cin << " -> " << k.c
                                        << (upsample ? " upsample" : ""));
      const ir::Graph g = StagedDwUpsampleGraph(k.h, k.w, k.cin, k.c, k.act, false, upsample);
      const std::vector<std::vector<float>> in = GatedInputs(g);
      const std::vector<float> want = RunOn(*ref, g, in);
      for (int threads : {1, 2, 3}) {
        const std::vector<float> got = RunOn(*xnn, g, in, threads);
        ExpectNear(got, want, 1e-4f);
        ExpectSameBits(got, RunOnSwitchedOff(sw, *xnn, g, in, threads),
                       "threads " + std::to_string(threads));
      }
      const int steps = ProfiledSteps(*xnn, g);
      if (steps >= 0 && PointwiseConvAvailable() && !std::getenv("SLUICE_XNNPACK_OWN_GEMM") &&
          !std::getenv("SLUICE_XNNPACK_GATE_MUL") && !std::getenv("SLUICE_XNNPACK_UPSAMPLE")) {
        EXPECT_EQ(steps, 1);
        ScopedEnv off(sw, "0");
        EXPECT_EQ(ProfiledSteps(*xnn, g), 2);
      }
    }
  }
  const ir::Graph g = StagedDwUpsampleGraph(9, 37, 16, 16, A::kNone, true);
  const std::vector<std::vector<float>> in = GatedInputs(g);
  for (int threads : {1, 2}) ExpectNear(RunOn(*xnn, g, in, threads), RunOn(*ref, g, in), 1e-4f);
  const int steps = ProfiledSteps(*xnn, g);
  if (steps >= 0) EXPECT_EQ(steps, 2);
}

// Against the reference kernels: C = 16 (one register a pixel), 5, 24, 40
// (masked groups); odd sizes, 1x1 images; every activation on MUL and ADD;
// both operand orders; into a 1x1 conv with C -> 16, 24 -> 40, 5 -> 3, with
// and without its residual ADD; 1, 2 and 3 threads; one step each.
TEST(XnnpackBackendTest, GatedResidualsMatchReference) {
  using A = ir::Activation;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<GatedCase> cases = {
      {17, 13, 16, A::kNone, A::kNone},
      {9, 7, 5, A::kRelu, A::kRelu6},
      {1, 1, 24, A::kReluN1To1, A::kNone, 0, false, true},
      {6, 11, 40, A::kNone, A::kRelu},
      {33, 31, 16, A::kNone, A::kNone, 16},
      {9, 8, 24, A::kRelu6, A::kNone, 40, true},
      {5, 3, 5, A::kNone, A::kReluN1To1, 3, false, true},
      {1, 1, 16, A::kNone, A::kNone, 16, true},
      {70, 41, 16, A::kNone, A::kNone, 16, true},  // several staged chunks
  };
  for (const GatedCase& k : cases) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " conv " << k.conv_out
                                      << " residual " << k.conv_residual);
    const ir::Graph g = GatedGraph(k);
    const std::vector<std::vector<float>> in = GatedInputs(g);
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) ExpectNear(RunOn(*xnn, g, in, threads), want, 1e-5f);
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0) EXPECT_EQ(steps, 1);
  }
}

// Where the gated residual must not fuse: the product is read elsewhere (a
// graph output), or the gate is per pixel, not per channel. Still right.
TEST(XnnpackBackendTest, GatedResidualOnlyWhereThePatternHolds) {
  using A = ir::Activation;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (int conv_out : {0, 16}) {
    const GatedCase k{9, 7, 16, A::kNone, A::kNone, conv_out};
    for (const ir::Graph& g : {GatedGraph(k, /*product_out=*/true), GatedGraph(k, false, true)}) {
      const std::vector<std::vector<float>> in = GatedInputs(g);
      ExpectNear(RunOn(*xnn, g, in, 2), RunOn(*ref, g, in), 1e-5f);
      const int steps = ProfiledSteps(*xnn, g);
      if (steps >= 0) EXPECT_EQ(steps, conv_out > 0 ? 3 : 2);  // MUL, ADD (, CONV)
    }
  }
}

// MUL by a per-channel gate whose product only a 1x1 conv reads (the
// squeeze-excite outputs of selfie_segmentation's early blocks): the MUL
// computed on the fly as the conv's input. C = 16 (64x64, the 16 -> 16
// layer), 96 -> 24, 5 -> 3 (masked), 40 -> 8 (narrow tile) with a residual
// ADD; odd sizes; MUL activations; both operand orders; 1-3 threads. The
// same bits as the MUL on XNNPACK (SLUICE_XNNPACK_GATE_MUL=0), near the
// reference, and one step (the MUL absorbed). A product that is also a
// graph output keeps the MUL.
TEST(XnnpackBackendTest, GateMulIntoPointwiseConvIsBitExactWithTheSwitchOff) {
  using A = ir::Activation;
  struct Case {
    int h, w, c, n;
    A act;
    bool residual, product_out;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{64, 64, 16, 16, A::kNone, false, false},
                        Case{16, 16, 96, 24, A::kRelu6, false, false},
                        Case{9, 7, 5, 3, A::kRelu, false, false},
                        Case{13, 11, 40, 8, A::kNone, true, false},
                        Case{9, 7, 16, 16, A::kNone, false, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " -> " << k.n);
    GraphBuilder b("gate_mul");
    const ir::Shape shape{1, k.h, k.w, k.c};
    const int x = b.Input(shape);
    const int gate = b.Input({1, 1, 1, k.c});
    const int prod = b.Tensor(shape);
    ir::BinaryOptions m;
    m.activation = k.act;
    b.Op(OpType::kMul, k.c % 2 ? std::vector<int>{gate, x} : std::vector<int>{x, gate}, {prod}, m);
    const ir::Shape oshape{1, k.h, k.w, k.n};
    int y = b.Tensor(oshape);
    ir::Conv2DOptions o;
    o.activation = A::kRelu;
    b.Op(OpType::kConv2D,
         {prod, b.Const({k.n, 1, 1, k.c}, testing::RandomFloats(k.n * k.c, -1, 1, 241)),
          b.Const({k.n}, testing::RandomFloats(k.n, -1, 1, 242))},
         {y}, o);
    if (k.residual) {
      const int r = b.Input(oshape);
      const int sum = b.Tensor(oshape);
      b.Op(OpType::kAdd, {y, r}, {sum}, ir::BinaryOptions{});
      y = sum;
    }
    b.Output(y);
    if (k.product_out) b.Output(prod);
    const ir::Graph g = b.Build();
    const std::vector<std::vector<float>> in = GatedInputs(g);
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, in, threads);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_GATE_MUL", *xnn, g, in, threads),
                     "threads " + std::to_string(threads));
      ExpectNear(got, want, 1e-4f);
    }
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0) EXPECT_EQ(steps, k.product_out ? 2 : 1);
  }
}

// RESIZE_BILINEAR -> CONV 1x1 with the resize computed on the fly
// (resize_bilinear.h): half-pixel centres, align_corners and TensorFlow's
// legacy mode; x2 (the selfie decoders), odd scales up and down, 1-pixel
// inputs; C = 16, 5, 24, 40 into 16, 3, 40, 8 channels; with the conv's
// residual ADD; 1, 2 and 3 threads; against the reference kernels.
struct ResizeConvCase {
  int h, w, oh, ow, c, n;
  bool align, half;
  bool residual = false;
};
ir::Graph ResizeConvGraph(const ResizeConvCase& k, bool resized_out = false) {
  GraphBuilder b("resize_conv");
  const int x = b.Input({1, k.h, k.w, k.c});
  const int r = b.Tensor({1, k.oh, k.ow, k.c});
  b.Op(OpType::kResizeBilinear, {x, b.ConstInt({2}, {k.oh, k.ow})}, {r},
       ir::ResizeBilinearOptions{k.align, k.half});
  int y = b.Tensor({1, k.oh, k.ow, k.n});
  ir::Conv2DOptions o;
  o.padding = ir::Padding::kSame;
  b.Op(OpType::kConv2D,
       {r, b.Const({k.n, 1, 1, k.c}, testing::RandomFloats(k.n * k.c, -1, 1, 111)),
        b.Const({k.n}, testing::RandomFloats(k.n, -1, 1, 112))},
       {y}, o);
  if (k.residual) {
    const int res = b.Input({1, k.oh, k.ow, k.n});
    const int s = b.Tensor({1, k.oh, k.ow, k.n});
    b.Op(OpType::kAdd, {res, y}, {s}, ir::BinaryOptions{});
    y = s;
  }
  b.Output(y);
  if (resized_out) b.Output(r);
  return b.Build();
}

TEST(XnnpackBackendTest, ResizeIntoPointwiseConvMatchesReference) {
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<ResizeConvCase> cases = {
      {32, 32, 64, 64, 16, 16, false, true},
      {33, 17, 66, 34, 24, 16, false, true, true},
      {5, 7, 11, 9, 5, 3, false, true},
      {5, 7, 11, 9, 40, 8, true, false},
      {9, 6, 4, 13, 16, 16, false, false, true},
      {1, 1, 3, 2, 16, 16, false, true},
      {1, 1, 3, 2, 24, 40, true, false},
      {7, 9, 7, 9, 16, 16, false, false},
  };
  for (const ResizeConvCase& k : cases) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " -> " << k.oh << "x" << k.ow
                                      << " c" << k.c << " n" << k.n << " align " << k.align
                                      << " half " << k.half);
    const ir::Graph g = ResizeConvGraph(k);
    const std::vector<std::vector<float>> in = GatedInputs(g);
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) ExpectNear(RunOn(*xnn, g, in, threads), want, 1e-5f);
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0) EXPECT_EQ(steps, 1);
  }
  // The resized tensor read elsewhere too (a graph output): not fused.
  const ResizeConvCase k{5, 7, 11, 9, 16, 16, false, true};
  const ir::Graph g = ResizeConvGraph(k, /*resized_out=*/true);
  const std::vector<std::vector<float>> in = GatedInputs(g);
  ExpectNear(RunOn(*xnn, g, in, 2), RunOn(*ref, g, in), 1e-5f);
  const int steps = ProfiledSteps(*xnn, g);
  if (steps >= 0) EXPECT_EQ(steps, 2);
}

// One-block 1x1s (N <= 32) on a pool take a few long row runs a thread
// instead of 16 short ones (SLUICE_XNNPACK_PW_ONE_BLOCK_TASKS): the same
// bits as the old split and near the reference on 1-3 threads, for images
// whose row counts are not whole chunks either way (36x64 = 2304, 18x32,
// 37x29 = 1073, 5x13), N = 8 (narrow), 16, 24 (narrow24), 32, K = 16, 72,
// 88, alone / + ADD / + padded ADD + PRELU; then the staged sources (RESIZE
// -> 1x1, MUL by a gate -> 1x1), whose chunks are the same rows.
TEST(XnnpackBackendTest, OneBlockPointwiseSplitsKeepTheBits) {
  if (std::getenv("SLUICE_XNNPACK_PW_ONE_BLOCK_TASKS")) GTEST_SKIP() << "switch set outside";
  const int cases = CheckPointwiseCasesAgainstSwitch(
      "SLUICE_XNNPACK_PW_ONE_BLOCK_TASKS", {{36, 64}, {18, 32}, {37, 29}, {5, 13}}, {8, 16, 24, 32},
      {16, 72, 88}, /*residual_less=*/3, /*seed=*/505,
      // the streamed variant 3 does not take the split; a third of the rest
      [](int h, int n, int k, int variant) { return variant < 3 && (h + n + k + variant) % 3 == 0; });
  EXPECT_GT(cases, 20);
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const ResizeConvCase& k : {ResizeConvCase{18, 32, 36, 64, 16, 16, false, true},
                                  ResizeConvCase{36, 64, 72, 128, 16, 16, false, true, true},
                                  ResizeConvCase{19, 15, 37, 29, 24, 24, false, false}}) {
    SCOPED_TRACE(::testing::Message() << "resize " << k.oh << "x" << k.ow << " n" << k.n);
    const ir::Graph g = ResizeConvGraph(k);
    const std::vector<std::vector<float>> in = GatedInputs(g);
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, in, threads);
      ExpectSameBits(got,
                     RunOnSwitchedOff("SLUICE_XNNPACK_PW_ONE_BLOCK_TASKS", *xnn, g, in, threads),
                     "threads " + std::to_string(threads));
      ExpectNear(got, want, 1e-5f);
    }
  }
  // MUL by a per-channel gate -> 1x1 (selfie's squeeze-excite outputs).
  GraphBuilder b("gate_mul_one_block");
  const ir::Shape shape{1, 37, 29, 96};
  const int x = b.Input(shape);
  const int gate = b.Input({1, 1, 1, 96});
  const int prod = b.Tensor(shape);
  b.Op(OpType::kMul, {x, gate}, {prod}, ir::BinaryOptions{});
  const int y = b.Tensor({1, 37, 29, 24});
  b.Op(OpType::kConv2D,
       {prod, b.Const({24, 1, 1, 96}, testing::RandomFloats(24 * 96, -1, 1, 506)),
        b.Const({24}, testing::RandomFloats(24, -1, 1, 507))},
       {y}, ir::Conv2DOptions{});
  b.Output(y);
  const ir::Graph g = b.Build();
  const std::vector<std::vector<float>> in = GatedInputs(g);
  const std::vector<float> want = RunOn(*ref, g, in);
  for (int threads = 1; threads <= 3; ++threads) {
    const std::vector<float> got = RunOn(*xnn, g, in, threads);
    ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_PW_ONE_BLOCK_TASKS", *xnn, g, in, threads),
                   "gated, threads " + std::to_string(threads));
    ExpectNear(got, want, 1e-4f);
  }
}

// Tiles of 7 or 8 rows covering the last <= 64 rows of a 1x1's range
// exactly (pointwise_conv.cc TileRows, SLUICE_XNNPACK_PW_TILE8): the same
// bits as 7-row tiles, through the backend (8x8, 6x6, 4x4, 2x2 and odd
// images, N = 16 on one register, 48 = a block and a half, 96; with ADD,
// channel-padded ADD + PRELU, behind a depthwise; 1-3 threads) and for the
// kernel alone on row ranges that start mid-image and split by block.
TEST(XnnpackBackendTest, EightRowTilesKeepTheBits) {
  if (std::getenv("SLUICE_XNNPACK_PW_TILE8")) GTEST_SKIP() << "switch set outside";
  const int cases = CheckPointwiseCasesAgainstSwitch(
      "SLUICE_XNNPACK_PW_TILE8", {{8, 8}, {6, 6}, {4, 4}, {2, 2}, {9, 7}, {5, 13}}, {16, 48, 96},
      {24, 96}, /*residual_less=*/3, /*seed=*/707,
      [](int h, int n, int k, int variant) { return (h + n + k + variant) % 2 == 0; });
  EXPECT_GT(cases, 20);
  if (!PointwiseConvAvailable()) return;
  for (int n : {16, 48, 96}) {
    for (int k : {24, 96}) {
      for (const std::vector<size_t>& bounds :
           {std::vector<size_t>{0, 64}, std::vector<size_t>{0, 7, 22, 36},
            std::vector<size_t>{0, 1, 65, 130}, std::vector<size_t>{0, 15, 16}}) {
        SCOPED_TRACE(::testing::Message() << "alone N=" << n << " K=" << k << " rows "
                                          << bounds.back());
        ExpectSameBits(RunPointwiseAlone(k, n, 708, "SLUICE_XNNPACK_PW_TILE8", "1", bounds, true),
                       RunPointwiseAlone(k, n, 708, "SLUICE_XNNPACK_PW_TILE8", "0", bounds, true),
                       "kernel alone");
      }
    }
  }
}

// Plain multi-block 1x1s with K <= 32 on small images run on a pool as a
// few row ranges a thread, all blocks each (SLUICE_XNNPACK_PW_ROWS): the same
// bits as the chunk x block grid and near the reference on 1-3 threads, for
// the selfie models' sizes (36x64 = 2304 rows, 18x32, 9x16, one pixel) and
// odd ones (5x13), N = 40 (a last block of 8), 72, 128, K = 16, 24, 32,
// alone / + ADD / + padded ADD + PRELU; 36x64 with N = 128, K >= 24 is over
// the size limit and keeps the grid.
TEST(XnnpackBackendTest, PointwiseRowRangesKeepTheBits) {
  if (std::getenv("SLUICE_XNNPACK_PW_ROWS")) GTEST_SKIP() << "switch set outside";
  const int cases = CheckPointwiseCasesAgainstSwitch(
      "SLUICE_XNNPACK_PW_ROWS", {{36, 64}, {18, 32}, {9, 16}, {1, 1}, {5, 13}}, {40, 72, 128},
      {16, 24, 32}, /*residual_less=*/5, /*seed=*/611,
      [](int h, int n, int k, int variant) { return variant < 3 && (h + n + k + variant) % 2 == 0; });
  EXPECT_GT(cases, 30);
}

// Rows sharing their source rows filled together (resize_bilinear.h,
// SLUICE_XNNPACK_RESIZE_ROWS): the same bits as one row at a time, for the
// kernel alone on ranges that start and end mid-row (a row's pair outside
// the range, a lone row, the whole image; x2 half-pixel, align_corners,
// legacy, downscaling; C = 3, 8, 16, 24, 128), and through RESIZE -> 1x1
// graphs on 1-3 threads (the staged chunks then end between row groups).
TEST(XnnpackBackendTest, ResizeRowPairsMatchOneRowAtATimeBitForBit) {
  if (!PointwiseConvAvailable()) GTEST_SKIP() << "no AVX-512";
  if (std::getenv("SLUICE_XNNPACK_RESIZE") || std::getenv("SLUICE_XNNPACK_RESIZE_ROWS")) {
    GTEST_SKIP() << "switch set outside";
  }
  struct Case {
    int h, w, oh, ow, c;
    bool align, half;
  };
  const Case cases[] = {{8, 8, 16, 16, 16, false, true},  {5, 6, 10, 12, 24, false, true},
                        {4, 4, 8, 8, 128, false, true},   {7, 5, 14, 10, 8, false, true},
                        {6, 6, 11, 13, 3, true, false},   {6, 5, 12, 10, 16, false, false},
                        {9, 9, 4, 5, 16, false, true},    {1, 3, 4, 6, 24, false, true}};
  int pairs_seen = 0;
  for (const Case& k : cases) {
    ResizeShape shape;
    shape.in_h = k.h, shape.in_w = k.w, shape.out_h = k.oh, shape.out_w = k.ow;
    shape.channels = k.c, shape.align_corners = k.align, shape.half_pixel_centers = k.half;
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -2, 2, 501);
    const size_t total = static_cast<size_t>(k.oh) * k.ow;
    const size_t ow = static_cast<size_t>(k.ow);
    const size_t ranges[][2] = {{0, total}, {1, 2 * ow}, {ow + 3, 2 * ow + 1}, {ow - 1, 2},
                                {2 * ow + 5, ow - 5}};
    for (const auto& range : ranges) {
      const size_t first = std::min(range[0], total - 1);
      const size_t pixels = std::min(range[1], total - first);
      std::vector<float> got(pixels * k.c, -7.0f), want(pixels * k.c, -7.0f);
      {
        const ScopedEnv env("SLUICE_XNNPACK_RESIZE_ROWS", "1");
        ResizeBilinear(shape).Fill(in.data(), first, pixels, got.data());
      }
      {
        const ScopedEnv env("SLUICE_XNNPACK_RESIZE_ROWS", "0");
        ResizeBilinear(shape).Fill(in.data(), first, pixels, want.data());
      }
      ExpectSameBits(got, want,
                     "c" + std::to_string(k.c) + " ow" + std::to_string(k.ow) + " first " +
                         std::to_string(first) + " pixels " + std::to_string(pixels));
    }
    // ChunkEnd: within the bounds, and never between two rows that share
    // their source rows (x2 half-pixel: rows 1 and 2).
    const ResizeBilinear kernel(shape);
    for (size_t first = 0; first < total; first += 7) {
      const size_t e = kernel.ChunkEnd(first, 5, 4 * k.ow);
      EXPECT_GT(e, first);
      EXPECT_LE(e, first + std::max<size_t>(5, std::min<size_t>(3 * k.ow, 4 * k.ow)));
      if (k.half && !k.align && k.oh == 2 * k.h && e % k.ow == 0 && e < total) {
        EXPECT_NE(e / k.ow % 2, 0u) << "chunk ends inside a row pair at row " << e / k.ow;
        ++pairs_seen;
      }
    }
  }
  EXPECT_GT(pairs_seen, 0);
  auto xnn = CreateXnnpackBackend();
  const std::vector<ResizeConvCase> graphs = {{32, 32, 64, 64, 16, 16, false, true},
                                              {16, 16, 32, 32, 24, 16, false, true, true},
                                              {8, 8, 16, 16, 128, 24, false, true},
                                              {5, 7, 11, 9, 40, 8, true, false}};
  for (const ResizeConvCase& k : graphs) {
    const ir::Graph g = ResizeConvGraph(k);
    const std::vector<std::vector<float>> in = GatedInputs(g);
    for (int threads : {1, 2, 3}) {
      ExpectSameBits(RunOn(*xnn, g, in, threads),
                     RunOnSwitchedOff("SLUICE_XNNPACK_RESIZE_ROWS", *xnn, g, in, threads),
                     "c" + std::to_string(k.c) + " threads " + std::to_string(threads));
    }
  }
}

// A RESIZE_BILINEAR that no 1x1 absorbs runs alone on our kernel
// (resize_bilinear.h), rows split across threads: up and down, odd sizes,
// each of TFLite's coordinate modes, 1 to 1152 channels. Near the reference
// and the same bits as XNNPACK's node (SLUICE_XNNPACK_RESIZE=0).
TEST(XnnpackBackendTest, StandaloneResizeIsBitExactWithXnnpack) {
  if (std::getenv("SLUICE_XNNPACK_RESIZE")) GTEST_SKIP() << "switch set outside";
  struct Case {
    int h, w, oh, ow, c;
    bool align, half;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{128, 128, 256, 256, 8, false, true}, Case{5, 7, 11, 9, 5, true, false},
                        Case{9, 6, 4, 13, 16, false, false}, Case{1, 1, 3, 2, 24, false, true},
                        Case{12, 12, 24, 24, 1152, false, false}, Case{7, 3, 7, 3, 1, false, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " -> " << k.oh << "x" << k.ow << " c"
                                      << k.c << " align " << k.align << " half " << k.half);
    GraphBuilder b("resize");
    const int x = b.Input({1, k.h, k.w, k.c});
    const int y = b.Tensor({1, k.oh, k.ow, k.c});
    b.Op(OpType::kResizeBilinear, {x, b.ConstInt({2}, {k.oh, k.ow})}, {y},
         ir::ResizeBilinearOptions{k.align, k.half});
    b.Output(y);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * k.c, -1, 1, 121);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads : {1, 2, 3}) {
      const std::vector<float> ours = RunOn(*xnn, g, {in}, threads);
      ExpectNear(ours, want, 1e-5f);
      ExpectSameBits(ours, RunOnSwitchedOff("SLUICE_XNNPACK_RESIZE", *xnn, g, {in}, threads),
                     "threads " + std::to_string(threads));
    }
  }
}

// 8-channel resizes run two pixels a register (resize_bilinear.cc): x2 up
// (neighbouring source pixels: one load a pair), TensorFlow's legacy mode
// (both pixels of a pair on one source pixel), downscaling and odd scales
// (pairs apart), odd output widths (a last single pixel), 1-pixel inputs;
// alone and as a 1x1's input (pixel ranges that start mid-row). The same
// bits as XNNPACK's node and as one pixel a register
// (SLUICE_XNNPACK_RESIZE_PAIRS=0), on 1, 2 and 3 threads.
TEST(XnnpackBackendTest, EightChannelResizePairsAreBitExact) {
  if (std::getenv("SLUICE_XNNPACK_RESIZE") || std::getenv("SLUICE_XNNPACK_RESIZE_PAIRS")) {
    GTEST_SKIP() << "switch set outside";
  }
  struct Case {
    int h, w, oh, ow;
    bool align, half;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{64, 64, 128, 128, false, true}, Case{16, 16, 32, 32, false, false},
                        Case{9, 7, 18, 15, true, false}, Case{13, 11, 5, 7, false, true},
                        Case{6, 9, 11, 23, false, false}, Case{1, 1, 3, 5, false, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " -> " << k.oh << "x" << k.ow
                                      << " align " << k.align << " half " << k.half);
    GraphBuilder b("resize8");
    const int x = b.Input({1, k.h, k.w, 8});
    const int y = b.Tensor({1, k.oh, k.ow, 8});
    b.Op(OpType::kResizeBilinear, {x, b.ConstInt({2}, {k.oh, k.ow})}, {y},
         ir::ResizeBilinearOptions{k.align, k.half});
    b.Output(y);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(k.h * k.w * 8, -1, 1, 131);
    const std::vector<float> want = RunOn(*ref, g, {in});
    // ... and as a 1x1's input (fused: staged in chunks of pixels).
    const ResizeConvCase kc{k.h, k.w, k.oh, k.ow, 8, 16, k.align, k.half, true};
    const ir::Graph gc = ResizeConvGraph(kc);
    const std::vector<std::vector<float>> inc = GatedInputs(gc);
    const std::vector<float> want_c = RunOn(*ref, gc, inc);
    for (int threads : {1, 2, 3}) {
      const std::string t = "threads " + std::to_string(threads);
      const std::vector<float> ours = RunOn(*xnn, g, {in}, threads);
      ExpectNear(ours, want, 1e-5f);
      ExpectSameBits(ours, RunOnSwitchedOff("SLUICE_XNNPACK_RESIZE", *xnn, g, {in}, threads), t);
      ExpectSameBits(ours, RunOnSwitchedOff("SLUICE_XNNPACK_RESIZE_PAIRS", *xnn, g, {in}, threads),
                     t);
      const std::vector<float> ours_c = RunOn(*xnn, gc, inc, threads);
      ExpectNear(ours_c, want_c, 1e-5f);
      ExpectSameBits(ours_c,
                     RunOnSwitchedOff("SLUICE_XNNPACK_RESIZE_PAIRS", *xnn, gc, inc, threads), t);
    }
  }
}

// RESIZE_BILINEAR -> ADD of a same-shape tensor: one step, the ADD on each
// resized row (pose_landmark's upsample + skip). Either ADD operand order,
// its activations, 8 and 5 channels; the same bits as the two ops apart
// (SLUICE_XNNPACK_RESIZE_ADD=0) and as XNNPACK's nodes; not fused when the
// resized tensor is a graph output too.
TEST(XnnpackBackendTest, ResizeThenAddIsOneStepWithTheSameBits) {
  if (std::getenv("SLUICE_XNNPACK_RESIZE") || std::getenv("SLUICE_XNNPACK_RESIZE_ADD")) {
    GTEST_SKIP() << "switch set outside";
  }
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  struct Case {
    int h, w, oh, ow, c;
    bool resized_first, resized_out;
    ir::Activation act;
  };
  using A = ir::Activation;
  for (const Case& k : {Case{64, 64, 128, 128, 8, true, false, A::kNone},
                        Case{7, 9, 14, 17, 8, false, false, A::kRelu6},
                        Case{5, 6, 9, 11, 5, true, false, A::kRelu},
                        Case{7, 9, 14, 17, 8, true, true, A::kNone}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " -> " << k.oh << "x" << k.ow
                                      << " c" << k.c << " first " << k.resized_first << " out "
                                      << k.resized_out);
    GraphBuilder b("resize_add");
    const int x = b.Input({1, k.h, k.w, k.c});
    const int skip = b.Input({1, k.oh, k.ow, k.c});
    const int r = b.Tensor({1, k.oh, k.ow, k.c});
    b.Op(OpType::kResizeBilinear, {x, b.ConstInt({2}, {k.oh, k.ow})}, {r},
         ir::ResizeBilinearOptions{false, true});
    const int y = b.Tensor({1, k.oh, k.ow, k.c});
    ir::BinaryOptions o;
    o.activation = k.act;
    b.Op(OpType::kAdd, k.resized_first ? std::vector<int>{r, skip} : std::vector<int>{skip, r},
         {y}, o);
    b.Output(y);
    if (k.resized_out) b.Output(r);
    const ir::Graph g = b.Build();
    const std::vector<std::vector<float>> in = {
        testing::RandomFloats(k.h * k.w * k.c, -2, 2, 151),
        testing::RandomFloats(k.oh * k.ow * k.c, -2, 2, 152)};
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) {
      const std::string t = "threads " + std::to_string(threads);
      const std::vector<float> ours = RunOn(*xnn, g, in, threads);
      ExpectNear(ours, want, 1e-5f);
      ExpectSameBits(ours, RunOnSwitchedOff("SLUICE_XNNPACK_RESIZE_ADD", *xnn, g, in, threads), t);
      ExpectSameBits(ours, RunOnSwitchedOff("SLUICE_XNNPACK_RESIZE", *xnn, g, in, threads), t);
    }
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0) EXPECT_EQ(steps, k.resized_out ? 2 : 1);
  }
}

// A resize step on a pool runs groups of rows that share their source rows
// (1-3 rows at x2, each group's horizontal lerps once), and the resize +
// ADD step a group at a time: face_detection_full_range's 24x24 -> 48x48
// x48 and 12x12 -> 24x24 x64, odd scales, align_corners, downscaling, one
// output row; alone and with the ADD. The same bits as one row at a time
// (SLUICE_XNNPACK_RESIZE_GROUPS=0) and as XNNPACK's nodes, on 1-3 threads.
TEST(XnnpackBackendTest, ResizeRowGroupsKeepTheBits) {
  if (std::getenv("SLUICE_XNNPACK_RESIZE") || std::getenv("SLUICE_XNNPACK_RESIZE_GROUPS")) {
    GTEST_SKIP() << "switch set outside";
  }
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  struct Case {
    int h, w, oh, ow, c;
    bool align, half;
  };
  for (const Case& k : {Case{24, 24, 48, 48, 48, false, true}, Case{12, 12, 24, 24, 64, false, true},
                        Case{5, 7, 11, 9, 5, true, false}, Case{9, 6, 4, 13, 16, false, false},
                        Case{7, 5, 15, 11, 32, false, false}, Case{3, 4, 1, 6, 24, false, true}}) {
    for (bool add : {false, true}) {
      SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " -> " << k.oh << "x" << k.ow
                                        << " c" << k.c << " add " << add);
      GraphBuilder b("resize_groups");
      const int x = b.Input({1, k.h, k.w, k.c});
      const int skip = add ? b.Input({1, k.oh, k.ow, k.c}) : -1;
      const int r = b.Tensor({1, k.oh, k.ow, k.c});
      b.Op(OpType::kResizeBilinear, {x, b.ConstInt({2}, {k.oh, k.ow})}, {r},
           ir::ResizeBilinearOptions{k.align, k.half});
      if (add) {
        const int y = b.Tensor({1, k.oh, k.ow, k.c});
        ir::BinaryOptions o;
        o.activation = ir::Activation::kRelu;
        b.Op(OpType::kAdd, {skip, r}, {y}, o);
        b.Output(y);
      } else {
        b.Output(r);
      }
      const ir::Graph g = b.Build();
      std::vector<std::vector<float>> in = {testing::RandomFloats(k.h * k.w * k.c, -2, 2, 161)};
      if (add) in.push_back(testing::RandomFloats(k.oh * k.ow * k.c, -2, 2, 162));
      const std::vector<float> want = RunOn(*ref, g, in);
      for (int threads : {1, 2, 3}) {
        const std::string t = "threads " + std::to_string(threads);
        const std::vector<float> ours = RunOn(*xnn, g, in, threads);
        ExpectNear(ours, want, 1e-5f);
        ExpectSameBits(ours, RunOnSwitchedOff("SLUICE_XNNPACK_RESIZE_GROUPS", *xnn, g, in, threads),
                       t);
        ExpectSameBits(ours, RunOnSwitchedOff("SLUICE_XNNPACK_RESIZE", *xnn, g, in, threads), t);
      }
    }
  }
}

// ADD -> global AVERAGE_POOL_2D in one pass (add_mean.h): more than 7
// pixels (8, a multiple of 7, odd counts, 64x64), C = 16, 5, 24, 40; the
// activations of both ops. `filter_h` < h: a pooling that is not global;
// `sum_out`: the sum is a graph output too. Neither may fuse.
struct AddMeanCase {
  int h, w, c;
  ir::Activation add_act, pool_act;
};
ir::Graph AddMeanGraph(const AddMeanCase& k, bool sum_out = false, int filter_h = 0) {
  GraphBuilder b("add_mean");
  const ir::Shape shape{1, k.h, k.w, k.c};
  const int x = b.Input(shape), r = b.Input(shape);
  const int s = b.Tensor(shape);
  ir::BinaryOptions a;
  a.activation = k.add_act;
  b.Op(OpType::kAdd, {x, r}, {s}, a);
  ir::Pool2DOptions o;
  o.padding = ir::Padding::kValid;
  o.filter_h = filter_h > 0 ? filter_h : k.h;
  o.filter_w = k.w;
  o.stride_h = o.filter_h;
  o.stride_w = k.w;
  o.activation = k.pool_act;
  const int m = b.Tensor({1, k.h / o.filter_h, 1, k.c});
  b.Op(OpType::kAveragePool2D, {s}, {m}, o);
  b.Output(m);
  if (sum_out) b.Output(s);
  return b.Build();
}

TEST(XnnpackBackendTest, AddThenGlobalMeanMatchesReference) {
  using A = ir::Activation;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const AddMeanCase& k : {AddMeanCase{2, 4, 16, A::kNone, A::kNone},
                               AddMeanCase{2, 7, 5, A::kRelu, A::kNone},
                               AddMeanCase{3, 5, 24, A::kNone, A::kRelu6},
                               AddMeanCase{64, 64, 16, A::kNone, A::kNone},
                               AddMeanCase{9, 11, 40, A::kReluN1To1, A::kRelu}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c);
    const ir::Graph g = AddMeanGraph(k);
    const std::vector<std::vector<float>> in = GatedInputs(g);
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) ExpectNear(RunOn(*xnn, g, in, threads), want, 1e-5f);
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0) EXPECT_EQ(steps, 1);
  }
  // Not fused: 7 pixels or fewer (XNNPACK's other kernel), a pooling over
  // part of the image, the sum read elsewhere.
  const AddMeanCase k{8, 4, 16, A::kNone, A::kNone};
  for (const ir::Graph& g : {AddMeanGraph({1, 7, 16, A::kNone, A::kNone}), AddMeanGraph(k, true),
                             AddMeanGraph(k, false, /*filter_h=*/4)}) {
    const std::vector<std::vector<float>> in = GatedInputs(g);
    ExpectNear(RunOn(*xnn, g, in, 2), RunOn(*ref, g, in), 1e-5f);
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0) EXPECT_EQ(steps, 2);
  }
}

// The two-thread paths for ADDs (SLUICE_XNNPACK_ADDMEAN_SPLIT,
// SLUICE_XNNPACK_PLAIN_ADD): ADD -> mean with the pixels split across
// threads (few channel groups, more than 2 x 448 pixels), ADD -> MEAN over
// H and W fused like the pooling (keep_dims or not), and a large same-shape
// ADD split by rows (>= 64 Ki elements). Near the reference on 1-3 threads,
// and the same bits as with the switches off (XNNPACK's nodes, or the
// one-pass kernel).
ir::Graph AddSpatialMeanGraph(const AddMeanCase& k, bool keep_dims) {
  GraphBuilder b("add_spatial_mean");
  const ir::Shape shape{1, k.h, k.w, k.c};
  const int x = b.Input(shape), r = b.Input(shape);
  const int s = b.Tensor(shape);
  ir::BinaryOptions a;
  a.activation = k.add_act;
  b.Op(OpType::kAdd, {x, r}, {s}, a);
  const int axes = b.ConstInt({2}, {1, 2});
  const int m = b.Tensor(keep_dims ? ir::Shape{1, 1, 1, k.c} : ir::Shape{1, k.c});
  b.Op(OpType::kMean, {s, axes}, {m}, ir::ReducerOptions{keep_dims});
  b.Output(m);
  return b.Build();
}
ir::Graph PlainAddGraph(const ir::Shape& shape, ir::Activation act) {
  GraphBuilder b("plain_add");
  const int x = b.Input(shape), r = b.Input(shape);
  const int s = b.Tensor(shape);
  ir::BinaryOptions a;
  a.activation = act;
  b.Op(OpType::kAdd, {x, r}, {s}, a);
  b.Output(s);
  return b.Build();
}

// Parallel calls one Invoke() makes on `threads` threads (WorkPool only).
int PoolCallsPerInvoke(const Backend& backend, const ir::Graph& g, int threads) {
  auto m = backend.Compile(g, BackendOptions{threads});
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return -1;
  const uint64_t before = WorkPoolCallCount();
  EXPECT_TRUE((*m)->Invoke().ok());
  return static_cast<int>(WorkPoolCallCount() - before);
}

TEST(XnnpackBackendTest, TwoThreadAddPathsAreBitExactWithTheirSwitchesOff) {
  using A = ir::Activation;
  if (std::getenv("SLUICE_XNNPACK_ADDMEAN_SPLIT") || std::getenv("SLUICE_XNNPACK_PLAIN_ADD")) {
    GTEST_SKIP() << "switch set outside";
  }
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  struct Case {
    ir::Graph graph;
    const char* sw;
  };
  std::vector<Case> cases = {
      {AddMeanGraph({64, 64, 16, A::kNone, A::kNone}), "SLUICE_XNNPACK_ADDMEAN_SPLIT"},
      {AddMeanGraph({70, 41, 5, A::kRelu, A::kRelu6}), "SLUICE_XNNPACK_ADDMEAN_SPLIT"},
      {AddMeanGraph({33, 30, 40, A::kNone, A::kNone}), "SLUICE_XNNPACK_ADDMEAN_SPLIT"},
      {AddSpatialMeanGraph({72, 128, 16, A::kNone, A::kNone}, true),
       "SLUICE_XNNPACK_ADDMEAN_SPLIT"},
      {AddSpatialMeanGraph({9, 11, 24, A::kRelu6, A::kNone}, false),
       "SLUICE_XNNPACK_ADDMEAN_SPLIT"},
      {PlainAddGraph({1, 128, 128, 8}, A::kNone), "SLUICE_XNNPACK_PLAIN_ADD"},
      {PlainAddGraph({1, 70, 41, 23}, A::kRelu6), "SLUICE_XNNPACK_PLAIN_ADD"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    const ir::Graph& g = cases[i].graph;
    const std::vector<std::vector<float>> in = GatedInputs(g);
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) {
      const std::vector<float> on = RunOn(*xnn, g, in, threads);
      ExpectNear(on, want, 1e-5f);
      ExpectSameBits(on, RunOnSwitchedOff(cases[i].sw, *xnn, g, in, threads),
                     std::to_string(threads) + " threads");
    }
  }
  // Which path ran: the MEAN fused (one step), the split ADD + mean as two
  // parallel calls (partial sums, then the chain) instead of one.
  for (bool keep : {true, false}) {
    const int steps =
        ProfiledSteps(*xnn, AddSpatialMeanGraph({9, 11, 24, A::kRelu6, A::kNone}, keep));
    if (steps >= 0) EXPECT_EQ(steps, 1);
  }
  if (PointwiseConvAvailable() && XnnpackUsesWorkPool() && !std::getenv("SLUICE_POOL") &&
      !std::getenv("SLUICE_XNNPACK_OWN_GEMM") && !std::getenv("SLUICE_XNNPACK_FUSE_ADD")) {
    const ir::Graph g = AddMeanGraph({64, 64, 16, A::kNone, A::kNone});
    EXPECT_EQ(PoolCallsPerInvoke(*xnn, g, 2), 2);
    ScopedEnv off("SLUICE_XNNPACK_ADDMEAN_SPLIT", "0");
    EXPECT_EQ(PoolCallsPerInvoke(*xnn, g, 2), 1);
  }
}

// The fused kernels above keep XNNPACK's float operations and order: the
// same bits as the unfused ops (XNNPACK's MUL, ADD, RESIZE_BILINEAR and
// AVERAGE_POOL_2D nodes, our depthwise and 1x1 kernels), compiled with
// SLUICE_XNNPACK_FUSE_ADD=0 (read when a model is compiled).
TEST(XnnpackBackendTest, FusedKernelsAreBitExactWithTheSwitchOff) {
  using A = ir::Activation;
  if (std::getenv("SLUICE_XNNPACK_FUSE_ADD")) GTEST_SKIP() << "switch set outside";
  auto xnn = CreateXnnpackBackend();
  std::vector<ir::Graph> graphs = {
      DwAddGraph({17, 13, 16, 3, 1, ir::Padding::kSame, A::kRelu, A::kNone, true}),
      DwAddGraph({15, 17, 40, 3, 2, ir::Padding::kSame, A::kRelu, A::kRelu6, false}),
      GatedGraph({17, 13, 16, A::kNone, A::kNone}),
      GatedGraph({9, 7, 5, A::kRelu, A::kRelu6}),
      GatedGraph({70, 41, 16, A::kNone, A::kNone, 16, true}),
      GatedGraph({9, 8, 24, A::kRelu6, A::kNone, 40, true}),
      ResizeConvGraph({32, 32, 64, 64, 16, 16, false, true}),
      ResizeConvGraph({5, 7, 11, 9, 40, 8, true, false}),
      ResizeConvGraph({9, 6, 4, 13, 16, 16, false, false, true}),
      ResizeConvGraph({33, 17, 66, 34, 24, 16, false, true, true}),
      AddMeanGraph({2, 4, 16, A::kNone, A::kNone}),
      AddMeanGraph({9, 11, 40, A::kReluN1To1, A::kRelu}),
      AddMeanGraph({64, 64, 16, A::kNone, A::kNone}),
  };
  for (size_t i = 0; i < graphs.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "graph " << i);
    const std::vector<std::vector<float>> in = GatedInputs(graphs[i]);
    for (int threads : {1, 2}) {
      ExpectSameBits(RunOn(*xnn, graphs[i], in, threads),
                     RunOnSwitchedOff("SLUICE_XNNPACK_FUSE_ADD", *xnn, graphs[i], in, threads),
                     std::to_string(threads) + " threads");
    }
  }
}

// MediaPipe's TransformTensorBilinear on our kernel (transform_bilinear.h)
// against the reference kernel: C = 1, 16, 32, 40; 16x16 and odd output
// sizes; maps from 1x1 up; random rotations and scales whose samples fall
// partly outside the map, the identity (samples exactly on the last row and
// column) and a whole-pixel shift past the edge; the matrix a graph input
// or a constant. Same float operations in the same order: same bits.
struct TransformCase {
  int h, w, c, oh, ow;
  int matrix;  // 0: identity, 1: shift by 3 pixels, else a random seed
  bool constant_matrix = false;
};
std::vector<float> TransformMatrix(const TransformCase& k) {
  if (k.matrix == 0 || k.matrix == 1) {
    const float t = k.matrix == 1 ? 3.0f : 0.0f;
    return {1, 0, 0, t, 0, 1, 0, t, 0, 0, 1, 0, 0, 0, 0, 1};
  }
  // Rotation, scale and centre: about a quarter of the samples outside.
  const std::vector<float> r = testing::RandomFloats(4, 0, 1, k.matrix);
  const float theta = r[0] * 6.2831853f;
  const float scale = (0.3f + 1.2f * r[1]) * std::max(k.h, k.w) / std::max(k.oh, k.ow);
  const float cx = (-0.25f + 1.5f * r[2]) * k.w, cy = (-0.25f + 1.5f * r[3]) * k.h;
  const float a = scale * std::cos(theta), b = -scale * std::sin(theta);
  const float c = scale * std::sin(theta), d = scale * std::cos(theta);
  return {a, b, 0, cx - (a * k.ow + b * k.oh) / 2, c, d, 0, cy - (c * k.ow + d * k.oh) / 2,
          0, 0, 1, 0, 0, 0, 0, 1};
}
// x -> TRANSFORM_TENSOR_BILINEAR(x, m) -> y; with `conv_around` x comes from
// a 1x1 conv and y goes into an ADD (the kernel between XNNPACK segments and
// our other kernels).
ir::Graph TransformGraph(const TransformCase& k, bool conv_around = false) {
  GraphBuilder b("transform_bilinear");
  int x = b.Input({1, k.h, k.w, k.c});
  const int m = k.constant_matrix ? b.Const({1, 4, 4}, TransformMatrix(k)) : b.Input({1, 4, 4});
  if (conv_around) {
    const int t = b.Tensor({1, k.h, k.w, k.c});
    b.Op(OpType::kConv2D,
         {x, b.Const({k.c, 1, 1, k.c}, testing::RandomFloats(k.c * k.c, -1, 1, 121)), -1}, {t},
         ir::Conv2DOptions{});
    x = t;
  }
  int y = b.Tensor({1, k.oh, k.ow, k.c});
  b.Op(OpType::kTransformTensorBilinear, {x, m}, {y},
       ir::TransformTensorBilinearOptions{k.oh, k.ow});
  if (conv_around) {
    const int s = b.Tensor({1, k.oh, k.ow, k.c});
    b.Op(OpType::kAdd, {y, y}, {s}, ir::BinaryOptions{});
    y = s;
  }
  b.Output(y);
  return b.Build();
}
std::vector<std::vector<float>> TransformInputs(const TransformCase& k) {
  std::vector<std::vector<float>> in = {testing::RandomFloats(k.h * k.w * k.c, -1, 1, 131)};
  if (!k.constant_matrix) in.push_back(TransformMatrix(k));
  return in;
}

const std::vector<TransformCase>& TransformCases() {
  static const std::vector<TransformCase> cases = {
      {16, 16, 32, 16, 16, 7},  {16, 16, 32, 16, 16, 8},       {24, 20, 32, 16, 16, 9},
      {16, 16, 32, 16, 16, 0},  {16, 16, 32, 16, 16, 1},       {9, 13, 1, 5, 7, 10},
      {9, 13, 16, 5, 7, 11},    {13, 9, 40, 7, 5, 12},         {9, 13, 40, 9, 13, 0},
      {7, 5, 16, 7, 5, 1},      {1, 1, 16, 3, 2, 13},          {1, 1, 32, 1, 1, 0},
      {12, 17, 40, 3, 17, 14},  {16, 16, 32, 16, 16, 15, true}, {9, 13, 1, 9, 13, 0, true},
  };
  return cases;
}

TEST(XnnpackBackendTest, TransformTensorBilinearMatchesReferenceBitForBit) {
  if (std::getenv("SLUICE_XNNPACK_TTB")) GTEST_SKIP() << "switch set outside";
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  int outside = 0, samples = 0;
  for (const TransformCase& k : TransformCases()) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " -> " << k.oh << "x"
                                      << k.ow << " matrix " << k.matrix);
    const ir::Graph g = TransformGraph(k);
    const std::vector<std::vector<float>> in = TransformInputs(k);
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) {
      std::vector<std::string> placement;
      const std::vector<float> got = RunOn(*xnn, g, in, threads, &placement);
      ExpectSameBits(got, want, "threads " + std::to_string(threads));
      if (PointwiseConvAvailable() && !std::getenv("SLUICE_XNNPACK_OWN_GEMM")) {
        EXPECT_EQ(placement, std::vector<std::string>{"xnnpack"});
      }
    }
    for (int p = 0; p < k.oh * k.ow; ++p) {
      bool zero = true;
      for (int ch = 0; ch < k.c; ++ch) zero &= want[p * k.c + ch] == 0.0f;
      outside += zero;
      ++samples;
    }
  }
  // The cases do sample outside the map, and mostly inside.
  EXPECT_GT(outside, samples / 20);
  EXPECT_LT(outside, samples / 2);
}

// Between other kernels, and SLUICE_XNNPACK_TTB=0 (the reference island):
// same bits, on 1 and 2 threads.
TEST(XnnpackBackendTest, TransformTensorBilinearIsBitExactWithTheSwitchOff) {
  if (std::getenv("SLUICE_XNNPACK_TTB")) GTEST_SKIP() << "switch set outside";
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const TransformCase& k :
       {TransformCase{16, 16, 32, 16, 16, 7}, TransformCase{9, 13, 40, 5, 7, 11},
        TransformCase{16, 16, 32, 16, 16, 1, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c);
    const ir::Graph g = TransformGraph(k, /*conv_around=*/true);
    const std::vector<std::vector<float>> in = TransformInputs(k);
    for (int threads : {1, 2}) {
      std::vector<std::string> on_placement, off_placement;
      const std::vector<float> on = RunOn(*xnn, g, in, threads, &on_placement);
      ExpectSameBits(on, RunOnSwitchedOff("SLUICE_XNNPACK_TTB", *xnn, g, in, threads, &off_placement),
                     std::to_string(threads) + " threads");
      ExpectNear(on, RunOn(*ref, g, in), 1e-5f);
      ASSERT_EQ(off_placement.size(), 3u);
      EXPECT_EQ(off_placement[1], "reference");
      if (PointwiseConvAvailable() && !std::getenv("SLUICE_XNNPACK_OWN_GEMM")) {
        EXPECT_EQ(on_placement[1], "xnnpack");
      }
    }
  }
}

// A trunk (1x1 on 24x24x64, too big a step for the branch tail) and three
// heads on its 2x2 max pool: MAX_POOL (XNNPACK) -> 1x1 (own) -> DEPTHWISE
// -> 1x1 -> a graph output; the last head forks after its depthwise into
// two 1x1s, and a RESHAPE of one head reads another's pooled map (an
// XNNPACK step with inputs from two heads).
ir::Graph BranchTailGraph() {
  GraphBuilder b("branch_tail");
  constexpr int kC = 64;
  const int x = b.Input({1, 24, 24, kC});
  const int t = b.Tensor({1, 24, 24, kC});
  uint32_t seed = 300;
  auto conv1x1 = [&](int in, int h, ir::Activation act) {
    const int y = b.Tensor({1, h, h, kC});
    ir::Conv2DOptions o;
    o.activation = act;
    b.Op(OpType::kConv2D,
         {in, b.Const({kC, 1, 1, kC}, testing::RandomFloats(kC * kC, -0.2f, 0.2f, seed)),
          b.Const({kC}, testing::RandomFloats(kC, -1, 1, seed + 1))},
         {y}, o);
    seed += 2;
    return y;
  };
  b.Op(OpType::kConv2D,
       {x, b.Const({kC, 1, 1, kC}, testing::RandomFloats(kC * kC, -0.2f, 0.2f, 299)), -1}, {t},
       ir::Conv2DOptions{});
  std::vector<int> pooled;
  for (int head = 0; head < 3; ++head) {
    const int m = b.Tensor({1, 12, 12, kC});
    ir::Pool2DOptions po;
    po.filter_h = po.filter_w = po.stride_h = po.stride_w = 2;
    b.Op(OpType::kMaxPool2D, {t}, {m}, po);
    pooled.push_back(m);
    const int c1 = conv1x1(m, 12, ir::Activation::kRelu);
    const int d = b.Tensor({1, 12, 12, kC});
    ir::DepthwiseConv2DOptions dopt;
    dopt.padding = ir::Padding::kSame;
    b.Op(OpType::kDepthwiseConv2D,
         {c1, b.Const({1, 3, 3, kC}, testing::RandomFloats(9 * kC, -1, 1, seed)),
          b.Const({kC}, testing::RandomFloats(kC, -1, 1, seed + 1))},
         {d}, dopt);
    seed += 2;
    b.Output(conv1x1(d, 12, ir::Activation::kNone));
    if (head == 2) b.Output(conv1x1(d, 12, ir::Activation::kRelu6));
  }
  const int sum = b.Tensor({1, 12, 12, kC});
  b.Op(OpType::kAdd, {pooled[0], pooled[1]}, {sum}, ir::BinaryOptions{});
  b.Output(sum);
  return b.Build();
}

// Every output of `graph`, one after another (`inputs`: one per graph input).
std::vector<float> RunAllOutputs(const Backend& backend, const ir::Graph& graph,
                                 const std::vector<std::vector<float>>& inputs, int threads) {
  auto compiled = backend.Compile(graph, BackendOptions{threads});
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return {};
  CompiledModel& m = **compiled;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::memcpy(m.Inputs()[i].data, inputs[i].data(), inputs[i].size() * sizeof(float));
  }
  std::vector<float> all;
  for (int run = 0; run < 3; ++run) {  // the schedule is reset per Invoke
    all.clear();
    const absl::Status s = m.Invoke();
    EXPECT_TRUE(s.ok()) << s;
    for (const IoTensor& out : m.Outputs()) {
      all.insert(all.end(), out.f32(), out.f32() + out.num_elements());
    }
  }
  return all;
}
std::vector<float> RunAllOutputs(const Backend& backend, const ir::Graph& graph,
                                 const std::vector<float>& input, int threads) {
  return RunAllOutputs(backend, graph, std::vector<std::vector<float>>{input}, threads);
}

TEST(XnnpackBackendTest, BranchTailFoundWhereTheGraphFallsApart) {
  const ir::Graph g = BranchTailGraph();
  const BranchSplit split = FindBranchSuffix(
      g, [](int) { return true; }, [&](int t) { return g.tensors[t].is_constant; });
  ASSERT_EQ(split.first_op, 1);  // the first MAX_POOL, after the trunk
  EXPECT_EQ(split.component[0], -1);
  // Heads 0 and 1 meet in the ADD: two branches.
  std::set<int> branches(split.component.begin() + 1, split.component.end());
  EXPECT_EQ(branches.size(), 2u);
  // One head alone is no split; neither is a graph of big steps.
  GraphBuilder b("one_head");
  const int x = b.Input({1, 8, 8, 4});
  const int y = b.Tensor({1, 8, 8, 4});
  b.Op(OpType::kRelu, {x}, {y});
  b.Output(y);
  const ir::Graph one = b.Build();
  EXPECT_EQ(FindBranchSuffix(one, [](int) { return true; }, [](int) { return false; }).first_op,
            -1);
}

TEST(XnnpackBackendTest, StepDependenciesFollowTheBytes) {
  std::vector<StepAccess> s(5);
  s[0].writes = {{100, 200}};
  s[1].reads = {{150, 160}};             // reads 0's output
  s[1].writes = {{300, 400}};
  s[2].reads = {{100, 110}};             // reads 0's output too: not after 1
  s[2].writes = {{500, 600}};
  s[3].writes = {{395, 405}};            // overwrites a byte 1 wrote
  s[4].writes = {{100, 155}};            // overwrites what 1 and 2 read
  const std::vector<std::vector<int>> d = StepDependencies(s);
  EXPECT_EQ(d[0], std::vector<int>{});
  EXPECT_EQ(d[1], std::vector<int>{0});
  EXPECT_EQ(d[2], std::vector<int>{0});
  EXPECT_EQ(d[3], std::vector<int>{1});
  EXPECT_EQ(d[4], (std::vector<int>{0, 1, 2}));
  // A step that does not say what it touches orders with everything.
  s.insert(s.begin() + 2, StepAccess{});
  s[2].barrier = true;
  const std::vector<std::vector<int>> b = StepDependencies(s);
  EXPECT_EQ(b[2], (std::vector<int>{0, 1}));
  EXPECT_EQ(b[3], (std::vector<int>{0, 2}));
}

// Each step runs once and after every step it waits for, on any pool (and
// when a slow run sends the next ones to the caller alone).
TEST(XnnpackBackendTest, BranchScheduleKeepsTheOrderItWasGiven) {
  constexpr int kSteps = 300;
  std::vector<std::vector<int>> deps(kSteps);
  uint32_t r = 12345;
  for (int j = 1; j < kSteps; ++j) {
    for (int k = 0; k < 3; ++k) {
      r = r * 1664525u + 1013904223u;
      if (r % 3 != 0) deps[j].push_back(static_cast<int>((r >> 8) % j));
    }
    std::sort(deps[j].begin(), deps[j].end());
    deps[j].erase(std::unique(deps[j].begin(), deps[j].end()), deps[j].end());
  }
  struct Log {
    std::atomic<int> clock{0};
    std::vector<std::atomic<int>> start, end, runs;
    explicit Log(int n) : start(n), end(n), runs(n) {}
  };
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    pthreadpool_t pool = threads > 1 ? CreateXnnpackThreadPool(threads) : nullptr;
    std::vector<int64_t> work(kSteps);
    for (int j = 0; j < kSteps; ++j) work[j] = 1 + j % 5;
    BranchSchedule schedule(deps, work, /*fall_back=*/threads != 3);
    for (int round = 0; round < 20; ++round) {
      Log log(kSteps);
      auto run = [](void* context, size_t step) {
        auto* l = static_cast<Log*>(context);
        l->start[step] = l->clock.fetch_add(1);
        for (volatile int spin = 0; spin < static_cast<int>(step % 7) * 50; ++spin) {
        }
        l->end[step] = l->clock.fetch_add(1);
        l->runs[step].fetch_add(1);
        return step != 7 || l->runs[0] < 0;  // step 7 fails
      };
      EXPECT_FALSE(schedule.Run(pool, run, &log));
      for (int j = 0; j < kSteps; ++j) {
        ASSERT_EQ(log.runs[j].load(), 1) << "step " << j;
        for (int i : deps[j]) {
          ASSERT_LT(log.end[i].load(), log.start[j].load()) << "step " << j << " after " << i;
        }
      }
    }
    if (pool) pthreadpool_destroy(pool);
  }
}

// The tail side by side gives the bits of the serial order, on 1-3 threads
// (one thread: no pool, no schedule), invoked repeatedly; one parallel call
// for the whole tail.
TEST(XnnpackBackendTest, BranchTailIsBitExactWithTheSwitchOff) {
  if (std::getenv("SLUICE_XNNPACK_BRANCHES")) GTEST_SKIP() << "switch set outside";
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const ir::Graph g = BranchTailGraph();
  const std::vector<float> in = testing::RandomFloats(24 * 24 * 64, -1, 1, 77);
  const std::vector<float> want = RunAllOutputs(*ref, g, in, 1);
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    const std::vector<float> on = RunAllOutputs(*xnn, g, in, threads);
    ExpectNear(on, want, 1e-4f);
    std::vector<float> off;
    {
      ScopedEnv sw("SLUICE_XNNPACK_BRANCHES", "0");
      off = RunAllOutputs(*xnn, g, in, threads);
    }
    ExpectSameBits(on, off, std::to_string(threads) + " threads");
  }
  if (PointwiseConvAvailable() && XnnpackUsesWorkPool() && !std::getenv("SLUICE_POOL") &&
      !std::getenv("SLUICE_XNNPACK_OWN_GEMM")) {
    // The trunk's 1x1, then the tail: two parallel calls.
    EXPECT_EQ(PoolCallsPerInvoke(*xnn, g, 2), 2);
    ScopedEnv sw("SLUICE_XNNPACK_BRANCHES", "0");
    EXPECT_GT(PoolCallsPerInvoke(*xnn, g, 2), 4);
  }
}

// A step with less work than the default limit (hand_recrop's 4x4 and 2x2
// steps) runs on the caller alone: no parallel call, the same bits as on the
// pool; a larger one still goes to the pool.
ir::Graph TinyConvGraph(int h, int w) {
  GraphBuilder b("tiny_conv");
  const int x = b.Input({1, h, w, 16});
  const int c = b.Tensor({1, h, w, 16});
  b.Op(OpType::kConv2D,
       {x, b.Const({16, 1, 1, 16}, testing::RandomFloats(256, -1, 1, 91)),
        b.Const({16}, testing::RandomFloats(16, -1, 1, 92))},
       {c}, ir::Conv2DOptions{});
  const int p = b.Tensor({1, h, w, 16});
  b.Op(OpType::kPrelu, {c, b.Const({16}, testing::RandomFloats(16, -1, 1, 93))}, {p});
  b.Output(p);
  return b.Build();
}

TEST(XnnpackBackendTest, TinyStepsRunOnTheCallerAlone) {
  if (!kAllStepsOnThePool || std::getenv("SLUICE_POOL") || std::getenv("SLUICE_XNNPACK_OWN_GEMM")) {
    GTEST_SKIP() << "switch set outside";
  }
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (int h : {2, 4, 32}) {
    SCOPED_TRACE(::testing::Message() << h << "x" << h);
    const ir::Graph g = TinyConvGraph(h, h);
    const std::vector<std::vector<float>> in = {testing::RandomFloats(h * h * 16, -1, 1, 94)};
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {2, 3}) {
      std::vector<float> serial;
      int calls_serial;
      {
        ScopedEnv limit("SLUICE_XNNPACK_SERIAL_WORK", nullptr);  // the default
        serial = RunOn(*xnn, g, in, threads);
        calls_serial = XnnpackUsesWorkPool() ? PoolCallsPerInvoke(*xnn, g, threads) : -1;
      }
      ExpectNear(serial, want, 1e-5f);
      ExpectSameBits(serial, RunOn(*xnn, g, in, threads), std::to_string(threads) + " threads");
      if (XnnpackUsesWorkPool()) {
        const int calls_pool = PoolCallsPerInvoke(*xnn, g, threads);
        EXPECT_GT(calls_pool, 0);
        if (h <= 4) EXPECT_EQ(calls_serial, 0);
        if (h > 4) EXPECT_EQ(calls_serial, calls_pool);
      }
    }
  }
}

// A global mean alone: AVERAGE_POOL_2D over the whole image (with an
// activation or not) or MEAN over H and W.
ir::Graph GlobalMeanGraph(int h, int w, int c, bool mean_op, ir::Activation act) {
  GraphBuilder b("global_mean");
  const int x = b.Input({1, h, w, c});
  if (mean_op) {
    const int m = b.Tensor({1, 1, 1, c});
    b.Op(OpType::kMean, {x, b.ConstInt({2}, {1, 2})}, {m}, ir::ReducerOptions{true});
    b.Output(m);
    return b.Build();
  }
  ir::Pool2DOptions o;
  o.padding = ir::Padding::kValid;
  o.filter_h = o.stride_h = h;
  o.filter_w = o.stride_w = w;
  o.activation = act;
  const int m = b.Tensor({1, 1, 1, c});
  b.Op(OpType::kAveragePool2D, {x}, {m}, o);
  b.Output(m);
  return b.Build();
}

// With threads, a global mean of at least 128 blocks of 7 pixels runs on
// add_mean.h with its pixels split (SLUICE_XNNPACK_SPLIT_MEAN): near the
// reference, the same bits as XNNPACK's pooling (the switch off) at 1-3
// threads, two parallel calls (Partial, Finish) where XNNPACK makes one;
// smaller ones stay XNNPACK's.
TEST(XnnpackBackendTest, SplitGlobalMeanIsBitExactWithTheSwitchOff) {
  using A = ir::Activation;
  if (std::getenv("SLUICE_XNNPACK_SPLIT_MEAN") || std::getenv("SLUICE_XNNPACK_ADDMEAN_SPLIT") ||
      std::getenv("SLUICE_XNNPACK_OWN_GEMM") || std::getenv("SLUICE_POOL")) {
    GTEST_SKIP() << "switch set outside";
  }
  struct Case {
    int h, w, c;
    bool mean_op;
    A act;
    bool split;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& k : {Case{64, 64, 16, false, A::kNone, true}, Case{36, 64, 16, true, A::kNone, true},
                        Case{33, 41, 20, false, A::kRelu6, true}, Case{17, 9, 16, false, A::kNone, false}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << (k.mean_op ? " MEAN" : ""));
    const ir::Graph g = GlobalMeanGraph(k.h, k.w, k.c, k.mean_op, k.act);
    const std::vector<std::vector<float>> in = {testing::RandomFloats(k.h * k.w * k.c, -2, 2, 431)};
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) {
      const std::vector<float> got = RunOn(*xnn, g, in, threads);
      ExpectNear(got, want, 1e-5f);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_SPLIT_MEAN", *xnn, g, in, threads),
                     "threads " + std::to_string(threads));
    }
    if (PointwiseConvAvailable() && XnnpackUsesWorkPool()) {
      EXPECT_EQ(PoolCallsPerInvoke(*xnn, g, 2), k.split ? 2 : 1);
      ScopedEnv off("SLUICE_XNNPACK_SPLIT_MEAN", "0");
      EXPECT_EQ(PoolCallsPerInvoke(*xnn, g, 2), 1);
    }
  }
}

TEST(XnnpackBackendTest, RejectsBadThreadCount) {
  auto xnn = CreateXnnpackBackend();
  auto r = xnn->Compile(ConvConcatAddGraph(false), BackendOptions{0});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(XnnpackBackendTest, SupportsOpExplainsWhatItCannotRun) {
  const ir::Graph g = ConvConcatAddGraph(false);
  auto xnn = CreateXnnpackBackend();
  EXPECT_TRUE(xnn->SupportsOp(g, 0).ok());
  const absl::Status s = xnn->SupportsOp(g, 2);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("CONCATENATION"), std::string::npos) << s;

  GraphBuilder b;
  const int in = b.Input({1, 4, 4, 2});
  const int out = b.Tensor({1, 4, 4, 2});
  ir::BinaryOptions tanh;
  tanh.activation = ir::Activation::kTanh;
  b.Op(OpType::kAdd, {in, in}, {out}, tanh);
  b.Output(out);
  const absl::Status t = xnn->SupportsOp(b.Build(), 0);
  EXPECT_NE(t.message().find("TANH"), std::string::npos) << t;
  EXPECT_FALSE(xnn->SupportsOp(g, 99).ok());
}

TEST(XnnpackBackendTest, GraphOfOnlyIslandsStillRuns) {
  GraphBuilder b;
  const int a = b.Input({1, 3, 2});
  const int c = b.Input({1, 1, 2});
  const int out = b.Tensor({1, 4, 2});
  ir::ConcatenationOptions co;
  co.axis = 1;
  b.Op(OpType::kConcatenation, {a, c}, {out}, co);
  b.Output(out);
  auto xnn = CreateXnnpackBackend();
  const std::vector<float> got = RunOn(*xnn, b.Build(), {{1, 2, 3, 4, 5, 6}, {7, 8}});
  EXPECT_EQ(got, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
}

// Broadcasting binary ops of rank 5 and 6: whatever XNNPACK's limits, the
// answer must be right (an op XNNPACK refuses at definition becomes an island).
TEST(XnnpackBackendTest, HighRankBroadcastAddIsRight) {
  for (const ir::Shape& shape : {ir::Shape{1, 2, 2, 3, 2}, ir::Shape{2, 1, 2, 2, 3, 2}}) {
    GraphBuilder b;
    const int x = b.Input(shape);
    ir::Shape bshape(shape.size(), 1);
    bshape.back() = 2;
    const int c = b.Const(bshape, {10.f, 20.f});
    const int out = b.Tensor(shape);
    b.Op(OpType::kAdd, {x, c}, {out}, ir::BinaryOptions{});
    b.Output(out);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(ir::NumElements(shape), -1, 1, 9);
    std::vector<std::string> placement;
    const std::vector<float> got = RunOn(*CreateXnnpackBackend(), g, {in}, 1, &placement);
    ASSERT_EQ(got.size(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      ASSERT_FLOAT_EQ(got[i], in[i] + (i % 2 ? 20.f : 10.f)) << i;
    }
    std::printf("ADD rank %zu runs on %s\n", shape.size(), placement[0].c_str());
  }
}

// The differential harness: every op case of the inventory, xnnpack against
// reference. Both compute in fp32 but sum in different orders (XNNPACK uses
// FMA and blocked accumulation), hence 1e-4 absolute + relative.
TEST(XnnpackBackendTest, PassesTheDifferentialOpHarness) {
  auto xnn = CreateXnnpackBackend();
  const testing::Tolerance tol{1e-4f, 1e-4f};
  int on_xnnpack = 0;
  for (const testing::OpCase& c : testing::StandardOpCases()) {
    auto r = testing::CompareWithReference(c, *xnn, tol);
    if (!r.ok()) {
      // A case the reference itself rejects is the harness's problem, not ours.
      auto rc = reference::CreateReferenceBackend()->Compile(c.graph, BackendOptions{1});
      if (!rc.ok()) {
        std::printf("harness case '%s' skipped, reference rejects it: %s\n", c.name.c_str(),
                    rc.status().ToString().c_str());
        continue;
      }
      ADD_FAILURE() << c.name << ": " << r.status();
      continue;
    }
    EXPECT_TRUE(r->passed) << c.name << ": " << r->detail;
    if (xnn->SupportsOp(c.graph, 0).ok()) ++on_xnnpack;
  }
  // Most cases must really run on XNNPACK, not on the islands.
  EXPECT_GT(on_xnnpack, static_cast<int>(testing::StandardOpCases().size()) / 2);
}


// Streamed convolution pairs (stream_conv.h). The matcher only takes them on
// large tensors (where they measured faster); SLUICE_XNNPACK_STREAM=all lifts
// that limit so that small graphs exercise the kernels (util/scoped_env.h).

// Both patterns: `expand` = CONV 1x1 (cin -> c) -> DEPTHWISE; else
// DEPTHWISE -> CONV 1x1 (c -> cout) [-> ADD residual input] [-> PRELU].
// `pad`: an explicit PAD (1 before, 1 or 2 after) and a VALID depthwise, as
// TFLite writes stride-2 layers; else SAME. `mid_out`: the tensor between the
// two convolutions is a graph output too; `mid_twice`: a second DEPTHWISE
// (pattern 1) / CONV 1x1 (pattern 2) reads it too (both: must not fuse).
struct StreamCase {
  bool expand;
  int h, w, cin, c, cout;
  int kernel, stride;
  bool pad = false, residual = false, prelu = false;
  ir::Activation act1 = ir::Activation::kRelu6, act2 = ir::Activation::kNone;
};
ir::Graph StreamGraph(const StreamCase& k, bool mid_out = false, bool mid_twice = false) {
  GraphBuilder b("stream");
  const int first_c = k.expand ? k.cin : k.c;
  int x = b.Input({1, k.h, k.w, first_c});
  auto pointwise = [&](int in, int h, int w, int cin, int cout, ir::Activation act,
                       uint32_t seed) {
    const int y = b.Tensor({1, h, w, cout});
    ir::Conv2DOptions o;
    o.padding = ir::Padding::kSame;
    o.activation = act;
    b.Op(OpType::kConv2D,
         {in, b.Const({cout, 1, 1, cin}, testing::RandomFloats(cout * cin, -1, 1, seed)),
          b.Const({cout}, testing::RandomFloats(cout, -1, 1, seed + 1))},
         {y}, o);
    return y;
  };
  int oh = 0, ow = 0;
  auto depthwise = [&](int in, ir::Activation act, uint32_t seed) {
    int h = k.h, w = k.w;
    ir::DepthwiseConv2DOptions o;
    o.stride_h = o.stride_w = k.stride;
    o.activation = act;
    if (k.pad) {
      const int after = k.kernel / 2 + (k.h % 2);
      const int xp = b.Tensor({1, h + 1 + after, w + 1 + after, k.c});
      b.Op(OpType::kPad, {in, b.ConstInt({4, 2}, {0, 0, 1, after, 1, after, 0, 0})}, {xp});
      in = xp;
      h += 1 + after, w += 1 + after;
      o.padding = ir::Padding::kValid;
      oh = (h - k.kernel) / k.stride + 1, ow = (w - k.kernel) / k.stride + 1;
    } else {
      o.padding = ir::Padding::kSame;
      oh = (h + k.stride - 1) / k.stride, ow = (w + k.stride - 1) / k.stride;
    }
    const int y = b.Tensor({1, oh, ow, k.c});
    b.Op(OpType::kDepthwiseConv2D,
         {in,
          b.Const({1, k.kernel, k.kernel, k.c},
                  testing::RandomFloats(k.kernel * k.kernel * k.c, -1, 1, seed)),
          b.Const({k.c}, testing::RandomFloats(k.c, -1, 1, seed + 1))},
         {y}, o);
    return y;
  };
  int mid, y, extra = -1;
  if (k.expand) {
    mid = pointwise(x, k.h, k.w, k.cin, k.c, k.act1, 90);
    y = depthwise(mid, k.act2, 92);
    if (mid_twice) extra = depthwise(mid, k.act2, 94);
  } else {
    mid = depthwise(x, k.act1, 90);
    y = pointwise(mid, oh, ow, k.c, k.cout, k.act2, 92);
    if (k.residual) {
      const int r = b.Input({1, oh, ow, k.cout});
      const int sum = b.Tensor({1, oh, ow, k.cout});
      ir::BinaryOptions a;
      a.activation = ir::Activation::kRelu;
      b.Op(OpType::kAdd, {y, r}, {sum}, a);
      y = sum;
    }
    if (k.prelu) {
      const int p = b.Tensor({1, oh, ow, k.cout});
      b.Op(OpType::kPrelu, {y, b.Const({k.cout}, testing::RandomFloats(k.cout, -1, 1, 96))}, {p});
      y = p;
    }
    if (mid_twice) extra = pointwise(mid, oh, ow, k.c, 8, ir::Activation::kNone, 94);
  }
  b.Output(y);
  if (mid_out) b.Output(mid);
  if (extra >= 0) b.Output(extra);
  return b.Build();
}

// Against the reference kernels: odd sizes, strides 1 and 2, 3x3 and 5x5,
// SAME and PAD + VALID, channel counts off the 16-lane groups, a residual ADD
// and a PRELU after the 1x1 (pattern 2), 1/2/3 threads; one step per pair.
TEST(XnnpackBackendTest, StreamedPairsMatchReference) {
  ScopedEnv all("SLUICE_XNNPACK_STREAM", "all");
  using A = ir::Activation;
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<StreamCase> cases = {
      {true, 13, 11, 5, 20, 0, 3, 1},
      {true, 13, 11, 5, 20, 0, 3, 2},
      {true, 12, 9, 16, 40, 0, 5, 1},
      {true, 15, 14, 8, 24, 0, 5, 2, false, false, false, A::kRelu, A::kRelu6},
      {true, 14, 13, 7, 36, 0, 3, 2, /*pad=*/true},
      {true, 11, 12, 7, 17, 0, 5, 2, /*pad=*/true},
      {true, 1, 1, 3, 16, 0, 3, 1},
      {true, 2, 5, 3, 16, 0, 3, 2},
      {false, 13, 11, 0, 20, 24, 3, 1},
      {false, 13, 11, 0, 20, 33, 3, 2, false, /*residual=*/true},
      {false, 12, 9, 0, 40, 16, 5, 1, false, true, /*prelu=*/true},
      {false, 15, 14, 0, 24, 40, 5, 2, false, false, true, A::kRelu6, A::kRelu},
      {false, 14, 13, 0, 36, 20, 3, 2, /*pad=*/true, true},
      {false, 11, 12, 0, 17, 7, 5, 2, /*pad=*/true},
      {false, 1, 1, 0, 16, 9, 3, 1, false, true},
  };
  for (const StreamCase& k : cases) {
    SCOPED_TRACE(::testing::Message()
                 << (k.expand ? "expand " : "project ") << k.h << "x" << k.w << " c " << k.c
                 << " k" << k.kernel << " s" << k.stride << " pad " << k.pad << " residual "
                 << k.residual << " prelu " << k.prelu);
    const ir::Graph g = StreamGraph(k);
    std::vector<std::vector<float>> in = {
        testing::RandomFloats(k.h * k.w * (k.expand ? k.cin : k.c), -2, 2, 97)};
    if (k.residual) {
      const ir::Shape& rs = g.tensors[g.inputs[1]].shape;
      in.push_back(testing::RandomFloats(rs[1] * rs[2] * rs[3], -2, 2, 98));
    }
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads");
      ExpectNear(RunOn(*xnn, g, in, threads), want, 1e-5f);
    }
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0) EXPECT_EQ(steps, 1);  // the pair (and its ADD/PRELU) is one step
  }
}

// Where a pair must not be streamed: the tensor between is a graph output,
// or another op reads it too; and with SLUICE_XNNPACK_STREAM=0. Still right.
TEST(XnnpackBackendTest, StreamedPairsOnlyWhereThePatternHolds) {
  ScopedEnv all("SLUICE_XNNPACK_STREAM", "all");
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (bool expand : {true, false}) {
    const StreamCase k{expand, 13, 11, 5, 20, 24, 3, 2};
    const std::vector<std::vector<float>> in = {
        testing::RandomFloats(13 * 11 * (expand ? 5 : 20), -2, 2, 99)};
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(::testing::Message() << (expand ? "expand" : "project") << " variant "
                                        << variant);
      const ir::Graph g = StreamGraph(k, /*mid_out=*/variant == 0, /*mid_twice=*/variant == 1);
      std::unique_ptr<ScopedEnv> off;
      if (variant == 2) off = std::make_unique<ScopedEnv>("SLUICE_XNNPACK_STREAM", "0");
      const std::vector<float> want = RunOn(*ref, g, in);
      ExpectNear(RunOn(*xnn, g, in, 1), want, 1e-5f);
      ExpectNear(RunOn(*xnn, g, in, 2), want, 1e-5f);
      const int steps = ProfiledSteps(*xnn, g);
      if (steps >= 0) EXPECT_EQ(steps, variant == 1 ? 3 : 2);
    }
  }
  // By default (no SLUICE_XNNPACK_STREAM) small tensors stay per op.
  ScopedEnv unset("SLUICE_XNNPACK_STREAM", "");
  const ir::Graph g = StreamGraph(StreamCase{true, 13, 11, 5, 20, 0, 3, 2});
  const int steps = ProfiledSteps(*xnn, g);
  if (steps >= 0) EXPECT_EQ(steps, 2);
}

// By default an expand pair whose depthwise has stride 2 streams from a 1.75
// MiB tensor between (pose_landmark_lite's 128x128x32 PAD + VALID layer), or
// from 512 KiB with at most 16 channels (the selfie models' 128x128x16 and
// 72x128x16; SLUICE_XNNPACK_STREAM_S2_NARROW=0: not); stride 1 keeps the 2.5
// MiB bound, as do smaller tensors and SLUICE_XNNPACK_STREAM_S2=0. The same
// bits either way.
TEST(XnnpackBackendTest, StrideTwoExpandPairsStreamBelowTheL2Bound) {
  if (std::getenv("SLUICE_XNNPACK_STREAM_S2") || std::getenv("SLUICE_XNNPACK_STREAM_S2_NARROW")) {
    GTEST_SKIP() << "switch set outside";
  }
  ScopedEnv unset("SLUICE_XNNPACK_STREAM", "");
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  struct Case {
    StreamCase k;
    int steps;  // by default; 2 (1x1, depthwise) with the switch off
    bool narrow = false;  // streamed for its 16 channels (2 steps with _NARROW=0)
  };
  for (const Case& c : {Case{{true, 128, 128, 8, 32, 0, 3, 2, /*pad=*/true}, 1},
                        Case{{true, 128, 128, 8, 32, 0, 3, 1}, 2},
                        Case{{true, 64, 64, 8, 96, 0, 3, 2, /*pad=*/true}, 2},
                        Case{{true, 128, 128, 16, 16, 0, 3, 2}, 1, true},
                        Case{{true, 72, 128, 16, 16, 0, 3, 2, /*pad=*/true}, 1, true},
                        Case{{true, 64, 64, 16, 16, 0, 3, 2}, 2},
                        Case{{true, 96, 96, 8, 24, 0, 3, 2}, 2}}) {
    const StreamCase& k = c.k;
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << "x" << k.c << " s" << k.stride);
    const ir::Graph g = StreamGraph(k);
    const std::vector<std::vector<float>> in = {
        testing::RandomFloats(k.h * k.w * k.cin, -2, 2, 141)};
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2}) {
      const std::vector<float> ours = RunOn(*xnn, g, in, threads);
      ExpectNear(ours, want, 1e-4f);
      ExpectSameBits(ours, RunOnSwitchedOff("SLUICE_XNNPACK_STREAM_S2", *xnn, g, in, threads),
                     "threads " + std::to_string(threads));
      ExpectSameBits(ours,
                     RunOnSwitchedOff("SLUICE_XNNPACK_STREAM_S2_NARROW", *xnn, g, in, threads),
                     "narrow off, threads " + std::to_string(threads));
    }
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0) EXPECT_EQ(steps, c.steps);
    if (c.narrow) {
      ScopedEnv off("SLUICE_XNNPACK_STREAM_S2_NARROW", "0");
      const int narrow_off = ProfiledSteps(*xnn, g);
      if (narrow_off >= 0) EXPECT_EQ(narrow_off, 2);
    }
    ScopedEnv off("SLUICE_XNNPACK_STREAM_S2", "0");
    const int steps_off = ProfiledSteps(*xnn, g);
    if (steps_off >= 0) EXPECT_EQ(steps_off, 2);
  }
}


// With a thread pool, DEPTHWISE -> 1x1 pairs below 48x48 stream too (one
// parallel call instead of two: face_detection's 8x8 and 16x16 blocks); one
// thread and SLUICE_XNNPACK_STREAM_SMALL=0 keep the two kernels. The same bits
// either way, on 2 and 3 threads (one or two bands per thread, bands of 1-4
// rows, a residual and a PRELU).
TEST(XnnpackBackendTest, SmallProjectPairsStreamOnAPoolWithTheSameBits) {
  if (std::getenv("SLUICE_XNNPACK_STREAM_SMALL") || std::getenv("SLUICE_XNNPACK_STREAM") ||
      std::getenv("SLUICE_XNNPACK_SMALL_BANDS")) {
    GTEST_SKIP() << "switch set outside";
  }
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<StreamCase> cases = {
      {false, 8, 8, 0, 96, 96, 5, 1, false, /*residual=*/true},
      {false, 16, 16, 0, 32, 32, 3, 1, false, true, /*prelu=*/true},
      {false, 16, 16, 0, 64, 128, 3, 2, /*pad=*/true},
      {false, 7, 5, 0, 24, 40, 3, 1},
      {false, 3, 2, 0, 16, 9, 5, 1, false, true},
      {false, 6, 6, 0, 384, 96, 3, 1, false, true},
  };
  for (const StreamCase& k : cases) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " c " << k.c << " k" << k.kernel
                                      << " s" << k.stride << " residual " << k.residual);
    const ir::Graph g = StreamGraph(k);
    std::vector<std::vector<float>> in = {testing::RandomFloats(k.h * k.w * k.c, -2, 2, 151)};
    if (k.residual) {
      const ir::Shape& rs = g.tensors[g.inputs[1]].shape;
      in.push_back(testing::RandomFloats(rs[1] * rs[2] * rs[3], -2, 2, 152));
    }
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) {
      const std::vector<float> on = RunOn(*xnn, g, in, threads);
      ExpectNear(on, want, 1e-4f);
      ExpectSameBits(on, RunOnSwitchedOff("SLUICE_XNNPACK_STREAM_SMALL", *xnn, g, in, threads),
                     std::to_string(threads) + " threads");
      ExpectSameBits(on, RunOnSwitchedOff("SLUICE_XNNPACK_SMALL_BANDS", *xnn, g, in, threads),
                     std::to_string(threads) + " threads, two bands per thread");
    }
    // One thread: the two kernels as before.
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0) EXPECT_EQ(steps, 2);
    if (PointwiseConvAvailable() && XnnpackUsesWorkPool() && !std::getenv("SLUICE_POOL") &&
        !std::getenv("SLUICE_XNNPACK_OWN_GEMM") && !std::getenv("SLUICE_XNNPACK_FUSE_ADD") &&
        !std::getenv("SLUICE_XNNPACK_DWPW")) {
      EXPECT_EQ(PoolCallsPerInvoke(*xnn, g, 2), 1);
      {  // a channel bound below the pair's widest side: two calls
        ScopedEnv bound("SLUICE_XNNPACK_STREAM_SMALL",
                        std::to_string(std::max(k.c, k.cout) - 1).c_str());
        EXPECT_EQ(PoolCallsPerInvoke(*xnn, g, 2), 2);
      }
      ScopedEnv off("SLUICE_XNNPACK_STREAM_SMALL", "0");
      EXPECT_EQ(PoolCallsPerInvoke(*xnn, g, 2), 2);
    }
  }
}


// HARD_SWISH as the epilogue of a plain 1x1 and of a DEPTHWISE (hard_swish.h):
// the selfie models' 1x1 -> HARD_SWISH -> DEPTHWISE -> HARD_SWISH blocks, with
// one channel block and several (N = 40: a last block of 8, the strided
// activation), the narrow tiles (N = 20), 3x3 / 5x5, stride 1 / 2, inputs
// reaching both clamps. Near the reference, the same bits as the switch off
// at 1-3 threads (the 1x1 split into row ranges, or SLUICE_XNNPACK_HSWISH_ROWS=0
// chunk x block tasks; the depthwise under 16 rows in a row range a thread, or
// SLUICE_XNNPACK_DW_HALVES=0 a row an item), and two steps instead of four.
TEST(XnnpackBackendTest, HardSwishEpiloguesAreBitExactWithTheSwitchOff) {
  struct Case {
    int h, w, k, n, kernel, stride;
  };
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const Case& c : {Case{9, 16, 32, 128, 5, 1}, Case{18, 32, 16, 96, 3, 2},
                        Case{7, 5, 24, 72, 3, 1}, Case{6, 6, 8, 40, 5, 2},
                        Case{13, 11, 16, 20, 3, 1}, Case{1, 3, 4, 17, 3, 1}}) {
    SCOPED_TRACE(::testing::Message() << c.h << "x" << c.w << "x" << c.k << " -> " << c.n
                                      << " dw " << c.kernel << " s" << c.stride);
    GraphBuilder b("hswish");
    const int x = b.Input({1, c.h, c.w, c.k});
    const int y = b.Tensor({1, c.h, c.w, c.n}), z = b.Tensor({1, c.h, c.w, c.n});
    b.Op(OpType::kConv2D,
         {x, b.Const({c.n, 1, 1, c.k}, testing::RandomFloats(c.n * c.k, -1, 1, 291)),
          b.Const({c.n}, testing::RandomFloats(c.n, -1, 1, 292))},
         {y}, ir::Conv2DOptions{});
    b.Op(OpType::kHardSwish, {y}, {z});
    const int oh = (c.h + c.stride - 1) / c.stride, ow = (c.w + c.stride - 1) / c.stride;
    const int d = b.Tensor({1, oh, ow, c.n}), out = b.Tensor({1, oh, ow, c.n});
    ir::DepthwiseConv2DOptions dw;
    dw.padding = ir::Padding::kSame;
    dw.stride_h = dw.stride_w = c.stride;
    b.Op(OpType::kDepthwiseConv2D,
         {z,
          b.Const({1, c.kernel, c.kernel, c.n},
                  testing::RandomFloats(c.kernel * c.kernel * c.n, -1, 1, 293)),
          b.Const({c.n}, testing::RandomFloats(c.n, -1, 1, 294))},
         {d}, dw);
    b.Op(OpType::kHardSwish, {d}, {out});
    b.Output(out);
    const ir::Graph g = b.Build();
    const std::vector<std::vector<float>> in = {
        testing::RandomFloats(c.h * c.w * c.k, -3, 3, 295)};
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, in, threads);
      ExpectNear(got, want, 1e-4f);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_HSWISH", *xnn, g, in, threads),
                     std::to_string(threads) + " threads");
      if (threads == 1) continue;  // the pool's other split: chunk x block tasks
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_HSWISH_ROWS", *xnn, g, in, threads),
                     std::to_string(threads) + " threads, grid");
      // (Under 16 rows the depthwise runs one row range a thread.)
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_DW_HALVES", *xnn, g, in, threads),
                     std::to_string(threads) + " threads, a row an item");
    }
    const int steps = ProfiledSteps(*xnn, g);
    if (steps < 0 || std::getenv("SLUICE_XNNPACK_HSWISH") ||
        std::getenv("SLUICE_XNNPACK_DW_WIDE") || std::getenv("SLUICE_XNNPACK_STREAM")) {
      continue;  // (switches set outside change the plan)
    }
    EXPECT_EQ(steps, 2);
    ScopedEnv off("SLUICE_XNNPACK_HSWISH", "0");
    EXPECT_EQ(ProfiledSteps(*xnn, g), 4);
  }
}


// An ADD -> global mean whose addend a staged 1x1 writes (OwnChain::mean_add,
// the selfie decoders: RESIZE -> 1x1, + skip, -> squeeze-excite mean, the 1x1's
// output read again after it): with threads the mean's block sums come from
// the 1x1's tasks. RESIZE and gate-MUL sources, 16 / 24 / 40 channels (one to
// three 16-channel groups, two 32-channel blocks), MEAN and AVERAGE_POOL_2D,
// activations, odd sizes, either ADD operand order. Near the reference, the
// same bits as the switch off at 1-3 threads, one parallel call fewer.
ir::Graph StagedMeanGraph(int h, int w, int oh, int ow, int c, int n, bool gate, bool pool_op,
                          ir::Activation add_act, bool y_first) {
  GraphBuilder b("staged_mean");
  int src;
  if (gate) {  // MUL(x, per-channel gate) -> 1x1
    const int x = b.Input({1, oh, ow, c}), g = b.Input({1, 1, 1, c});
    src = b.Tensor({1, oh, ow, c});
    b.Op(OpType::kMul, {x, g}, {src}, ir::BinaryOptions{});
  } else {
    const int x = b.Input({1, h, w, c});
    src = b.Tensor({1, oh, ow, c});
    b.Op(OpType::kResizeBilinear, {x, b.ConstInt({2}, {oh, ow})}, {src},
         ir::ResizeBilinearOptions{false, true});
  }
  const int y = b.Tensor({1, oh, ow, n});
  b.Op(OpType::kConv2D,
       {src, b.Const({n, 1, 1, c}, testing::RandomFloats(n * c, -1, 1, 301)),
        b.Const({n}, testing::RandomFloats(n, -1, 1, 302))},
       {y}, ir::Conv2DOptions{});
  const int skip = b.Input({1, oh, ow, n});
  const int s = b.Tensor({1, oh, ow, n});
  ir::BinaryOptions a;
  a.activation = add_act;
  b.Op(OpType::kAdd, y_first ? std::vector<int>{y, skip} : std::vector<int>{skip, y}, {s}, a);
  const int m = b.Tensor({1, 1, 1, n});
  if (pool_op) {
    ir::Pool2DOptions o;
    o.padding = ir::Padding::kValid;
    o.filter_h = o.stride_h = oh;
    o.filter_w = o.stride_w = ow;
    o.activation = ir::Activation::kRelu6;
    b.Op(OpType::kAveragePool2D, {s}, {m}, o);
  } else {
    b.Op(OpType::kMean, {s, b.ConstInt({2}, {1, 2})}, {m}, ir::ReducerOptions{true});
  }
  const int out = b.Tensor({1, oh, ow, n});
  b.Op(OpType::kMul, {y, m}, {out}, ir::BinaryOptions{});  // y read again
  b.Output(out);
  return b.Build();
}

TEST(XnnpackBackendTest, StagedMeanKeepsTheBits) {
  using A = ir::Activation;
  if (std::getenv("SLUICE_XNNPACK_STAGED_MEAN")) GTEST_SKIP() << "switch set outside";
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<ir::Graph> graphs = {
      StagedMeanGraph(36, 64, 72, 128, 16, 16, false, false, A::kNone, true),
      StagedMeanGraph(9, 16, 18, 32, 128, 24, false, true, A::kRelu, false),
      StagedMeanGraph(19, 15, 37, 29, 24, 16, false, false, A::kRelu6, true),
      StagedMeanGraph(0, 0, 33, 41, 24, 40, true, true, A::kNone, false),
      StagedMeanGraph(0, 0, 64, 64, 16, 16, true, false, A::kNone, true),
  };
  for (size_t i = 0; i < graphs.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "graph " << i);
    const ir::Graph& g = graphs[i];
    const std::vector<std::vector<float>> in = GatedInputs(g);
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> on = RunOn(*xnn, g, in, threads);
      ExpectNear(on, want, 1e-4f);
      ExpectSameBits(on, RunOnSwitchedOff("SLUICE_XNNPACK_STAGED_MEAN", *xnn, g, in, threads),
                     std::to_string(threads) + " threads");
    }
    if (PointwiseConvAvailable() && XnnpackUsesWorkPool() && !std::getenv("SLUICE_POOL") &&
        !std::getenv("SLUICE_XNNPACK_OWN_GEMM") && !std::getenv("SLUICE_XNNPACK_FUSE_ADD") &&
        !std::getenv("SLUICE_XNNPACK_ADDMEAN_SPLIT") && !std::getenv("SLUICE_XNNPACK_GATE_MUL")) {
      const int on = PoolCallsPerInvoke(*xnn, g, 2);
      ScopedEnv off("SLUICE_XNNPACK_STAGED_MEAN", "0");
      EXPECT_LT(on, PoolCallsPerInvoke(*xnn, g, 2));
    }
  }
}


// The staged mean's chain taken as the blocks arrive (AddMean::Chain /
// FinishFrom, MeanChain): against the one-pass kernel (AddMean::Run, Group's
// chain), with the blocks chained up to a split point and stored (Partial)
// after it, over several splits (0, 1, the middle, all but one, all) and
// uneven Chain calls; 16 / 24 / 40 / 5 / 128 / 80 channels (1-8 groups, four
// chained at once in FinishFrom, masked lanes),
// pixel counts with and without a padded last block, both clamps reached.
TEST(XnnpackBackendTest, AddMeanChainMatchesTheOnePassKernel) {
  AddMeanShape probe;
  probe.pixels = 64, probe.channels = 16;
  if (!AddMean::Supports(probe)) GTEST_SKIP() << "no AVX-512F";
  for (const auto& [pixels, channels] : std::vector<std::pair<int, int>>{
           {16384, 16}, {1024, 24}, {64, 40}, {50, 5}, {8, 16}, {1317 * 7, 24}, {256, 128},
           {144, 80}}) {
    SCOPED_TRACE(::testing::Message() << pixels << " px x " << channels);
    AddMeanShape s;
    s.pixels = pixels, s.channels = channels;
    const AddMean k(s, -1.5f, 1.5f, -0.5f, 0.25f);
    const size_t n = static_cast<size_t>(pixels) * channels;
    const std::vector<float> a = testing::RandomFloats(n, -1, 1, 321);
    const std::vector<float> b = testing::RandomFloats(n, -1, 1, 322);
    std::vector<float> want(channels);
    k.Run(a.data(), b.data(), want.data(), 0, k.groups());
    const int blocks = k.blocks();
    // The running sums after blocks [0, split), chained from the pixels.
    auto acc_at_split = [&](int split) {
      std::vector<float> acc(k.groups() * 16, 3.0f);
      for (int g = 0; g < k.groups(); ++g) {
        k.Chain(a.data(), b.data(), acc.data() + g * 16, g, 0, split);
      }
      return acc;
    };
    for (const int split : {0, 1, blocks / 2, blocks - 1, blocks}) {
      std::vector<float> scratch(k.ScratchFloats(), 7.0f), acc(k.groups() * 16, 3.0f);
      for (int g = 0; g < k.groups(); ++g) {
        // Uneven pieces: one block, then 5, then the rest (as staged rows come).
        for (int q = 0; q < split;) {
          const int e = std::min(split, q == 0 ? 1 : q + 5 + q % 3);
          k.Chain(a.data(), b.data(), acc.data() + g * 16, g, q, e);
          q = e;
        }
        k.Partial(a.data(), b.data(), scratch.data(), g, split, blocks);
      }
      std::vector<float> got(channels, 9.0f);
      k.FinishFrom(scratch.data(), acc.data(), split, got.data());
      ExpectSameBits(got, want, "chained up to block " + std::to_string(split));
      // (MEAN_FOLLOW) The stored sums chained on in uneven pieces up to
      // `stop`, FinishFrom the rest.
      for (const int stop : {split, split + 1, (split + blocks) / 2, blocks}) {
        if (stop > blocks) continue;
        std::vector<float> acc2 = acc_at_split(split);
        for (int q = split; q < stop;) {
          const int e = std::min(stop, q + 1 + q % 4);
          k.ChainStored(scratch.data(), acc2.data(), q, e);
          q = e;
        }
        std::vector<float> got2(channels, 9.0f);
        k.FinishFrom(scratch.data(), acc2.data(), stop, got2.data());
        ExpectSameBits(got2, want,
                       "chained up to block " + std::to_string(split) + ", stored to " +
                           std::to_string(stop));
      }
    }
  }
}

// The staged mean's chain in the 1x1's tasks (SLUICE_XNNPACK_MEAN_CHAIN, and
// following the stored chunks, SLUICE_XNNPACK_MEAN_FOLLOW; 72x128 in 16
// chunks, SLUICE_XNNPACK_STAGED_MEAN_TASKS): the same bits as the chain run
// after the call (the switches off) at 1-3 threads,
// and on one thread with the mean staged (SLUICE_XNNPACK_STAGED_MEAN_1T=1)
// the same bits as the two steps.
TEST(XnnpackBackendTest, StagedMeanChainKeepsTheBits) {
  using A = ir::Activation;
  if (std::getenv("SLUICE_XNNPACK_STAGED_MEAN") || std::getenv("SLUICE_XNNPACK_MEAN_CHAIN") ||
      std::getenv("SLUICE_XNNPACK_MEAN_FOLLOW") || std::getenv("SLUICE_XNNPACK_STAGED_MEAN_TASKS")) {
    GTEST_SKIP() << "switch set outside";
  }
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<ir::Graph> graphs = {
      StagedMeanGraph(64, 64, 128, 128, 16, 16, false, false, A::kNone, true),
      StagedMeanGraph(36, 64, 72, 128, 16, 16, false, false, A::kNone, false),
      StagedMeanGraph(16, 16, 32, 32, 128, 24, false, true, A::kNone, false),
      StagedMeanGraph(19, 15, 37, 29, 24, 16, false, false, A::kRelu6, true),
      StagedMeanGraph(0, 0, 33, 41, 24, 40, true, true, A::kNone, false),
      StagedMeanGraph(0, 0, 3, 5, 16, 16, true, false, A::kRelu, true),
  };
  for (size_t i = 0; i < graphs.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "graph " << i);
    const ir::Graph& g = graphs[i];
    const std::vector<std::vector<float>> in = GatedInputs(g);
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> off =
          RunOnSwitchedOff("SLUICE_XNNPACK_MEAN_CHAIN", *xnn, g, in, threads);
      ExpectNear(off, want, 1e-4f);
      ExpectSameBits(RunOnSwitchedOff("SLUICE_XNNPACK_MEAN_FOLLOW", *xnn, g, in, threads), off,
                     std::to_string(threads) + " threads, MEAN_FOLLOW=0");
      ExpectSameBits(RunOnSwitchedOff("SLUICE_XNNPACK_STAGED_MEAN_TASKS", *xnn, g, in, threads),
                     off, std::to_string(threads) + " threads, STAGED_MEAN_TASKS=0");
      // Several invocations of one model: which tasks chain depends on when
      // the workers join.
      auto m = xnn->Compile(g, BackendOptions{threads});
      ASSERT_TRUE(m.ok()) << m.status();
      for (size_t j = 0; j < in.size(); ++j) {
        std::memcpy((*m)->Inputs()[j].data, in[j].data(), in[j].size() * sizeof(float));
      }
      for (int run = 0; run < 20; ++run) {
        ASSERT_TRUE((*m)->Invoke().ok());
        const IoTensor& o = (*m)->Outputs()[0];
        ExpectSameBits(std::vector<float>(o.f32(), o.f32() + o.num_elements()), off,
                       std::to_string(threads) + " threads, run " + std::to_string(run));
      }
    }
    ScopedEnv one("SLUICE_XNNPACK_STAGED_MEAN_1T", "1");
    const std::vector<float> staged = RunOn(*xnn, g, in, 1);
    ExpectSameBits(staged, RunOnSwitchedOff("SLUICE_XNNPACK_STAGED_MEAN", *xnn, g, in, 1),
                   "one thread, staged");
    const int steps = ProfiledSteps(*xnn, g);
    if (steps >= 0 && PointwiseConvAvailable() && !std::getenv("SLUICE_XNNPACK_OWN_GEMM") &&
        !std::getenv("SLUICE_XNNPACK_FUSE_ADD") && !std::getenv("SLUICE_XNNPACK_GATE_MUL")) {
      ScopedEnv off("SLUICE_XNNPACK_STAGED_MEAN_1T", "0");
      EXPECT_LT(steps, ProfiledSteps(*xnn, g));  // one thread: the mean staged
    }
  }
}

// The direct stem (StemConv::direct(): Stage only records the input) runs as
// one parallel call, Compute's, with Stage on the caller: the same bits as the
// two calls (SLUICE_XNNPACK_STEM_ONE_CALL=0) at 2-3 threads, one call fewer.
// 16 and 8 channels (the selfie and hand_recrop stems), HARD_SWISH after.
TEST(XnnpackBackendTest, DirectStemRunsAsOneParallelCall) {
  if (std::getenv("SLUICE_XNNPACK_STEM_ONE_CALL")) GTEST_SKIP() << "switch set outside";
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  for (const int oc : {16, 8}) {
    SCOPED_TRACE(::testing::Message() << "oc " << oc);
    GraphBuilder b("stem_one_call");
    const int x = b.Input({1, 144, 256, 3});
    const ir::Shape oshape{1, 72, 128, oc};
    const int y = b.Tensor(oshape), z = b.Tensor(oshape);
    ir::Conv2DOptions o;
    o.padding = ir::Padding::kSame;
    o.stride_h = o.stride_w = 2;
    b.Op(OpType::kConv2D,
         {x, b.Const({oc, 3, 3, 3}, testing::RandomFloats(oc * 27, -1, 1, 311)),
          b.Const({oc}, testing::RandomFloats(oc, -1, 1, 312))},
         {y}, o);
    b.Op(OpType::kHardSwish, {y}, {z});
    b.Output(z);
    const ir::Graph g = b.Build();
    const std::vector<float> in = testing::RandomFloats(144 * 256 * 3, -2, 2, 313);
    const std::vector<float> want = RunOn(*ref, g, {in});
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, {in}, threads);
      ExpectNear(got, want, 1e-5f);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_STEM_ONE_CALL", *xnn, g, {in}, threads),
                     "threads " + std::to_string(threads));
    }
    if (PointwiseConvAvailable() && XnnpackUsesWorkPool() && !std::getenv("SLUICE_POOL") &&
        !std::getenv("SLUICE_XNNPACK_OWN_GEMM") && !std::getenv("SLUICE_XNNPACK_STEM_DIRECT") &&
        !std::getenv("SLUICE_XNNPACK_STEM_LANES") && !std::getenv("SLUICE_XNNPACK_STEM")) {
      const int on = PoolCallsPerInvoke(*xnn, g, 2);
      ScopedEnv off("SLUICE_XNNPACK_STEM_ONE_CALL", "0");
      EXPECT_EQ(on + 1, PoolCallsPerInvoke(*xnn, g, 2));
    }
  }
}

// On a pool, streamed DEPTHWISE -> 1x1 pairs on at most 16 pixels whose
// 1x1 has several 32-channel blocks split the 1x1 by block
// (SLUICE_XNNPACK_PAIR_BY_BLOCK; pose_landmark's 4x4 and 2x2 blocks): the
// same bits as the row bands (the switch off), on 2 and 3 threads (one
// band more than blocks, blocks not dividing evenly), with a residual,
// stride 2 behind a PAD, a last partial block (N = 72, 40); and near the
// reference. 64 pixels or one block: row bands as before.
TEST(XnnpackBackendTest, SmallPairsSplitTheirPointwiseByBlockWithTheSameBits) {
  if (std::getenv("SLUICE_XNNPACK_STREAM_SMALL") || std::getenv("SLUICE_XNNPACK_STREAM")) {
    GTEST_SKIP() << "switch set outside";
  }
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  const std::vector<StreamCase> cases = {
      {false, 2, 2, 0, 192, 192, 3, 1, false, /*residual=*/true},
      {false, 4, 4, 0, 192, 192, 3, 1, false, true},
      {false, 8, 8, 0, 192, 192, 3, 2, /*pad=*/true},
      {false, 3, 5, 0, 48, 72, 3, 1},
      {false, 1, 1, 0, 96, 40, 5, 1, false, true},
      {false, 2, 2, 0, 64, 32, 3, 1},
  };
  for (const StreamCase& k : cases) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " c " << k.c << " -> " << k.cout
                                      << " s" << k.stride);
    const ir::Graph g = StreamGraph(k);
    std::vector<std::vector<float>> in = {testing::RandomFloats(k.h * k.w * k.c, -2, 2, 161)};
    if (k.residual) {
      const ir::Shape& rs = g.tensors[g.inputs[1]].shape;
      in.push_back(testing::RandomFloats(rs[1] * rs[2] * rs[3], -2, 2, 162));
    }
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads : {1, 2, 3}) {
      const std::vector<float> on = RunOn(*xnn, g, in, threads);
      ExpectNear(on, want, 1e-4f);
      ExpectSameBits(on, RunOnSwitchedOff("SLUICE_XNNPACK_PAIR_BY_BLOCK", *xnn, g, in, threads),
                     std::to_string(threads) + " threads");
    }
  }
}

// hand_recrop's block: x (8 ch) -> DEPTHWISE 3x3 SAME -> CONV 1x1 8 -> 16 ->
// ADD(PAD(r 8 -> 16 channels)) (dw8_pw16.h). `act` for all three ops.
ir::Graph Dw8Pw16Graph(int h, int w, ir::Activation act, bool bias, bool pool = false) {
  GraphBuilder b("dw8_pw16");
  const int x = b.Input({1, h, w, 8});
  const int r = b.Input({1, h, w, 8});
  const int d = b.Tensor({1, h, w, 8});
  ir::DepthwiseConv2DOptions dopt;
  dopt.padding = ir::Padding::kSame;
  dopt.activation = act;
  b.Op(OpType::kDepthwiseConv2D,
       {x, b.Const({1, 3, 3, 8}, testing::RandomFloats(72, -1, 1, 201)),
        bias ? b.Const({8}, testing::RandomFloats(8, -1, 1, 202)) : -1},
       {d}, dopt);
  const int c = b.Tensor({1, h, w, 16});
  ir::Conv2DOptions co;
  co.activation = act;
  b.Op(OpType::kConv2D,
       {d, b.Const({16, 1, 1, 8}, testing::RandomFloats(128, -1, 1, 203)),
        bias ? b.Const({16}, testing::RandomFloats(16, -1, 1, 204)) : -1},
       {c}, co);
  const int rp = b.Tensor({1, h, w, 16});
  b.Op(OpType::kPad, {r, b.ConstInt({4, 2}, {0, 0, 0, 0, 0, 0, 0, 8})}, {rp});
  const int out = b.Tensor({1, h, w, 16});
  ir::BinaryOptions ao;
  ao.activation = act;
  b.Op(OpType::kAdd, {c, rp}, {out}, ao);
  if (!pool) {
    b.Output(out);
    return b.Build();
  }
  // As in hand_recrop: the block's output feeds the next block (here an ADD
  // of it with itself, first in op order) and a 2x2 stride-2 MAX_POOL.
  const int next = b.Tensor({1, h, w, 16});
  b.Op(OpType::kAdd, {out, out}, {next}, ir::BinaryOptions{});
  const int pooled = b.Tensor({1, h / 2, w / 2, 16});
  ir::Pool2DOptions po;
  po.padding = ir::Padding::kValid;
  po.filter_h = po.filter_w = po.stride_h = po.stride_w = 2;
  po.activation = act;
  b.Op(OpType::kMaxPool2D, {out}, {pooled}, po);
  b.Output(next);
  b.Output(pooled);
  return b.Build();
}

// Both outputs of a graph, one after the other.
std::vector<float> RunOnBoth(const Backend& backend, const ir::Graph& g,
                             const std::vector<std::vector<float>>& in, int threads) {
  auto m = backend.Compile(g, BackendOptions{threads});
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  for (size_t i = 0; i < in.size(); ++i) {
    std::memcpy((*m)->Inputs()[i].data, in[i].data(), in[i].size() * sizeof(float));
  }
  EXPECT_TRUE((*m)->Invoke().ok());
  std::vector<float> out;
  for (const IoTensor& t : (*m)->Outputs()) {
    const float* p = static_cast<const float*>(t.data);
    out.insert(out.end(), p, p + t.num_elements());
  }
  return out;
}

// The MAX_POOL after a streamed DEPTHWISE -> 1x1 (+ ADD) pair, taken by the
// pair's bands (Dw8Pw16 and, with it switched off, DepthwisePointwise): the
// same bits as the pool's own step, odd heights and odd band boundaries too.
TEST(XnnpackBackendTest, PoolAfterBandsIsBitExactWithTheSwitchOff) {
  const ScopedEnv stream("SLUICE_XNNPACK_STREAM", "all");
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  struct Case {
    int h, w;
    ir::Activation act;
  };
  for (const char* dw8 : {"1", "0"}) {
    const ScopedEnv kernel("SLUICE_XNNPACK_DW8_PW16", dw8);
    for (const Case& k : {Case{64, 64, ir::Activation::kNone}, Case{13, 21, ir::Activation::kRelu6},
                          Case{7, 15, ir::Activation::kRelu}, Case{2, 3, ir::Activation::kNone},
                          Case{33, 32, ir::Activation::kNone}}) {
      SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " DW8_PW16=" << dw8);
      const ir::Graph g = Dw8Pw16Graph(k.h, k.w, k.act, true, /*pool=*/true);
      std::vector<std::vector<float>> in = {testing::RandomFloats(k.h * k.w * 8, -2, 2, 207 + k.w),
                                            testing::RandomFloats(k.h * k.w * 8, -2, 2, 208 + k.h)};
      for (size_t i = 0; i < in[0].size(); i += 3) in[0][i] = -std::fabs(in[0][i]);
      const std::vector<float> want = RunOnBoth(*ref, g, in, 1);
      for (int threads = 1; threads <= 3; ++threads) {
        const std::vector<float> got = RunOnBoth(*xnn, g, in, threads);
        std::vector<float> off;
        {
          const ScopedEnv no("SLUICE_XNNPACK_BAND_POOL", "0");
          off = RunOnBoth(*xnn, g, in, threads);
        }
        ExpectSameBits(got, off, "threads " + std::to_string(threads));
        ExpectNear(got, want, 1e-4f);
      }
    }
    // One parallel call fewer on two threads: the pool is no step of its own.
    const ir::Graph g = Dw8Pw16Graph(64, 64, ir::Activation::kNone, true, true);
    const int on = PoolCallsPerInvoke(*xnn, g, 2);
    const ScopedEnv no("SLUICE_XNNPACK_BAND_POOL", "0");
    EXPECT_EQ(on, PoolCallsPerInvoke(*xnn, g, 2) - 1) << "DW8_PW16=" << dw8;
  }
}

TEST(XnnpackBackendTest, Dw8Pw16IsBitExactWithTheSwitchOff) {
  // STREAM=all: the pair streams (and so reaches the kernel) at any size.
  const ScopedEnv stream("SLUICE_XNNPACK_STREAM", "all");
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  struct Case {
    int h, w;
    ir::Activation act;
    bool bias;
  };
  for (const Case& k : {Case{64, 64, ir::Activation::kNone, true},
                        Case{64, 64, ir::Activation::kRelu, false},
                        Case{13, 21, ir::Activation::kRelu6, true},
                        Case{5, 8, ir::Activation::kNone, true},
                        Case{2, 3, ir::Activation::kNone, true},
                        Case{1, 1, ir::Activation::kNone, true},
                        Case{7, 15, ir::Activation::kRelu, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " act " << static_cast<int>(k.act));
    const ir::Graph g = Dw8Pw16Graph(k.h, k.w, k.act, k.bias);
    const std::vector<std::vector<float>> in = {
        testing::RandomFloats(k.h * k.w * 8, -2, 2, 205 + k.w),
        testing::RandomFloats(k.h * k.w * 8, -2, 2, 206 + k.h)};
    const std::vector<float> want = RunOn(*ref, g, in);
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = RunOn(*xnn, g, in, threads);
      ExpectSameBits(got, RunOnSwitchedOff("SLUICE_XNNPACK_DW8_PW16", *xnn, g, in, threads),
                     "threads " + std::to_string(threads));
      ExpectNear(got, want, 1e-4f);
    }
  }
}

// The squeeze-excite blocks' seam: ADD(MUL(x, gate), b) -> CONV 1x1 (+ ADD
// of a residual r) -> y, then CONV 1x1 (y, c -> e) -> HARD_SWISH; y is read
// again after (the next block's residual: a second graph output here).
ir::Graph StagedThenGraph(int h, int w, int cin, int c, int e, bool residual) {
  GraphBuilder b("staged_then");
  const ir::Shape xs{1, h, w, cin}, ys{1, h, w, c}, es{1, h, w, e};
  const int x = b.Input(xs), gate = b.Input({1, 1, 1, cin}), rb = b.Input(xs);
  const int prod = b.Tensor(xs), s = b.Tensor(xs);
  b.Op(OpType::kMul, {x, gate}, {prod}, ir::BinaryOptions{});
  b.Op(OpType::kAdd, {prod, rb}, {s}, ir::BinaryOptions{});
  int y = b.Tensor(ys);
  b.Op(OpType::kConv2D,
       {s, b.Const({c, 1, 1, cin}, testing::RandomFloats(c * cin, -1, 1, 441)),
        b.Const({c}, testing::RandomFloats(c, -1, 1, 442))},
       {y}, ir::Conv2DOptions{});
  if (residual) {
    const int r = b.Input(ys), sum = b.Tensor(ys);
    b.Op(OpType::kAdd, {y, r}, {sum}, ir::BinaryOptions{});
    y = sum;
  }
  const int z = b.Tensor(es), hs = b.Tensor(es);
  b.Op(OpType::kConv2D,
       {y, b.Const({e, 1, 1, c}, testing::RandomFloats(e * c, -1, 1, 443)),
        b.Const({e}, testing::RandomFloats(e, -1, 1, 444))},
       {z}, ir::Conv2DOptions{});
  b.Op(OpType::kHardSwish, {z}, {hs});
  b.Output(hs);
  b.Output(y);
  return b.Build();
}

// With threads the expand runs on the staged 1x1's rows in its tasks
// (SLUICE_XNNPACK_STAGED_THEN): both outputs near the reference and the same
// bits as two steps at 2-3 threads (and one thread, where it stays two
// steps); one step fewer.
TEST(XnnpackBackendTest, StagedThenExpandIsBitExactWithTheSwitchOff) {
  if (std::getenv("SLUICE_XNNPACK_STAGED_THEN")) GTEST_SKIP() << "switch set outside";
  auto xnn = CreateXnnpackBackend();
  auto ref = reference::CreateReferenceBackend();
  struct Case {
    int h, w, cin, c, e;
    bool residual;
  };
  for (const Case& k : {Case{16, 16, 128, 32, 128, true}, Case{9, 16, 96, 32, 96, true},
                        Case{16, 16, 96, 32, 128, false}, Case{5, 7, 40, 24, 72, true}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " " << k.cin << " -> " << k.c
                                      << " -> " << k.e);
    const ir::Graph g = StagedThenGraph(k.h, k.w, k.cin, k.c, k.e, k.residual);
    const std::vector<std::vector<float>> in = GatedInputs(g);
    const std::vector<float> want = RunAllOutputs(*ref, g, in, 1);
    for (int threads : {1, 2, 3}) {
      const std::vector<float> got = RunAllOutputs(*xnn, g, in, threads);
      ExpectNear(got, want, 1e-4f);
      const ScopedEnv sw("SLUICE_XNNPACK_STAGED_THEN", "0");
      ExpectSameBits(got, RunAllOutputs(*xnn, g, in, threads), std::to_string(threads) + " threads");
    }
    if (PointwiseConvAvailable() && XnnpackUsesWorkPool() && !std::getenv("SLUICE_POOL") &&
        !std::getenv("SLUICE_XNNPACK_OWN_GEMM") && !std::getenv("SLUICE_XNNPACK_GATE_MUL")) {
      const int fused = PoolCallsPerInvoke(*xnn, g, 2);
      ScopedEnv sw("SLUICE_XNNPACK_STAGED_THEN", "0");
      EXPECT_EQ(fused + 1, PoolCallsPerInvoke(*xnn, g, 2));
    }
  }
}


}  // namespace
}  // namespace sluice::inference::xnn
