#include "inference/testing/op_harness.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "inference/reference/reference_kernels.h"
#include "inference/testing/graph_builder.h"
#include "util/status_macros.h"

namespace sluice::inference::testing {
namespace {

using ir::Activation;
using ir::OpType;
using ir::Padding;

std::string ActName(Activation a) { return std::string(ir::ActivationName(a)); }

OpCase Conv(int h, int w, int ic, int oc, int k, int s, Padding p, Activation act) {
  GraphBuilder b("conv");
  const int x = b.Input({1, h, w, ic});
  const int wt = b.Const({oc, k, k, ic}, RandomFloats(oc * k * k * ic, -0.5f, 0.5f, 7));
  const int bias = b.Const({oc}, RandomFloats(oc, -0.5f, 0.5f, 8));
  const ir::PadOut py = ir::ComputePadding(p, h, k, s, 1), px = ir::ComputePadding(p, w, k, s, 1);
  const int y = b.Tensor({1, py.out, px.out, oc});
  ir::Conv2DOptions o;
  o.padding = p;
  o.stride_h = o.stride_w = s;
  o.activation = act;
  b.Op(OpType::kConv2D, {x, wt, bias}, {y}, o);
  b.Output(y);
  return {absl::StrCat("CONV_2D k", k, " s", s, p == Padding::kSame ? " SAME " : " VALID ",
                       ActName(act), " [1,", h, ",", w, ",", ic, "]->", oc),
          b.Build()};
}

OpCase Depthwise(int h, int w, int c, int k, int s, Padding p, Activation act, int mult = 1) {
  GraphBuilder b("dw");
  const int oc = c * mult;
  const int x = b.Input({1, h, w, c});
  const int wt = b.Const({1, k, k, oc}, RandomFloats(k * k * oc, -0.5f, 0.5f, 9));
  const int bias = b.Const({oc}, RandomFloats(oc, -0.5f, 0.5f, 10));
  const ir::PadOut py = ir::ComputePadding(p, h, k, s, 1), px = ir::ComputePadding(p, w, k, s, 1);
  const int y = b.Tensor({1, py.out, px.out, oc});
  ir::DepthwiseConv2DOptions o;
  o.padding = p;
  o.stride_h = o.stride_w = s;
  o.depth_multiplier = mult;
  o.activation = act;
  b.Op(OpType::kDepthwiseConv2D, {x, wt, bias}, {y}, o);
  b.Output(y);
  return {
      absl::StrCat("DEPTHWISE_CONV_2D k", k, " s", s, p == Padding::kSame ? " SAME " : " VALID ",
                   ActName(act), " m", mult, " [1,", h, ",", w, ",", c, "]"),
      b.Build()};
}

OpCase Pool(OpType type, int h, int w, int c, int k, int s, Padding p) {
  GraphBuilder b("pool");
  const int x = b.Input({1, h, w, c});
  const ir::PadOut py = ir::ComputePadding(p, h, k, s, 1), px = ir::ComputePadding(p, w, k, s, 1);
  const int y = b.Tensor({1, py.out, px.out, c});
  ir::Pool2DOptions o;
  o.padding = p;
  o.stride_h = o.stride_w = s;
  o.filter_h = o.filter_w = k;
  b.Op(type, {x}, {y}, o);
  b.Output(y);
  return {absl::StrCat(std::string(ir::OpTypeName(type)), " f", k, " s", s,
                       p == Padding::kSame ? " SAME" : " VALID", " [1,", h, ",", w, ",", c, "]"),
          b.Build()};
}

OpCase Binary(OpType type, const ir::Shape& a, const ir::Shape& bs, const ir::Shape& out,
              Activation act, bool const_b) {
  GraphBuilder b("binary");
  const int x = b.Input(a);
  const int z = const_b ? b.Const(bs, RandomFloats(ir::NumElements(bs), -1, 1, 11)) : b.Input(bs);
  const int y = b.Tensor(out);
  b.Op(type, {x, z}, {y}, ir::BinaryOptions{act});
  b.Output(y);
  return {absl::StrCat(std::string(ir::OpTypeName(type)), " ", ir::ShapeString(a), " x ",
                       ir::ShapeString(bs), " ", ActName(act)),
          b.Build()};
}

OpCase Unary(OpType type, const ir::Shape& s, float lo = -8, float hi = 8) {
  GraphBuilder b("unary");
  const int x = b.Input(s);
  const int y = b.Tensor(s);
  b.Op(type, {x}, {y});
  b.Output(y);
  OpCase c{absl::StrCat(std::string(ir::OpTypeName(type)), " ", ir::ShapeString(s)), b.Build()};
  c.input_lo = lo;
  c.input_hi = hi;
  return c;
}

}  // namespace

std::vector<float> RandomFloats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::vector<OpCase> StandardOpCases() {
  std::vector<OpCase> cases;
  for (Activation act : {Activation::kNone, Activation::kRelu, Activation::kRelu6}) {
    cases.push_back(Conv(9, 9, 8, 12, 1, 1, Padding::kValid, act));
    cases.push_back(Conv(9, 9, 8, 12, 1, 1, Padding::kSame, act));
    cases.push_back(Conv(11, 11, 3, 8, 3, 2, Padding::kSame, act));
    cases.push_back(Conv(11, 11, 4, 8, 3, 2, Padding::kValid, act));
  }
  cases.push_back(Conv(10, 10, 4, 6, 2, 1, Padding::kValid, Activation::kNone));
  cases.push_back(Conv(10, 10, 4, 6, 2, 2, Padding::kValid, Activation::kNone));
  cases.push_back(Conv(9, 9, 4, 6, 3, 1, Padding::kSame, Activation::kNone));
  cases.push_back(Conv(12, 12, 4, 6, 3, 3, Padding::kValid, Activation::kNone));
  cases.push_back(Conv(13, 13, 3, 6, 5, 2, Padding::kSame, Activation::kNone));
  // 1x1 convolutions over several 32-channel blocks with a ragged tail and a
  // row count that is no multiple of 7 (the xnnpack backend's own GEMM tiles).
  cases.push_back(Conv(5, 7, 19, 45, 1, 1, Padding::kValid, Activation::kRelu6));
  cases.push_back(Conv(6, 6, 33, 64, 1, 1, Padding::kSame, Activation::kNone));
  cases.push_back(Conv(1, 3, 5, 17, 1, 1, Padding::kValid, Activation::kRelu));
  for (Activation act : {Activation::kNone, Activation::kRelu6}) {
    for (int k : {3, 5}) {
      for (int s : {1, 2}) {
        cases.push_back(Depthwise(11, 11, 8, k, s, Padding::kSame, act));
        cases.push_back(Depthwise(11, 11, 8, k, s, Padding::kValid, act));
      }
    }
  }
  cases.push_back(Depthwise(7, 7, 4, 3, 1, Padding::kSame, Activation::kNone, 2));
  cases.push_back(Pool(OpType::kMaxPool2D, 9, 9, 5, 2, 2, Padding::kSame));
  cases.push_back(Pool(OpType::kMaxPool2D, 8, 8, 5, 2, 2, Padding::kValid));
  cases.push_back(Pool(OpType::kAveragePool2D, 16, 16, 3, 16, 16, Padding::kValid));
  cases.push_back(Pool(OpType::kAveragePool2D, 9, 9, 3, 3, 2, Padding::kSame));
  for (Activation act : {Activation::kNone, Activation::kRelu, Activation::kRelu6}) {
    cases.push_back(Binary(OpType::kAdd, {1, 5, 5, 8}, {1, 5, 5, 8}, {1, 5, 5, 8}, act, false));
  }
  cases.push_back(
      Binary(OpType::kMul, {1, 6, 6, 8}, {1, 1, 1, 8}, {1, 6, 6, 8}, Activation::kNone, false));
  cases.push_back(Binary(OpType::kMul, {1, 7, 7}, {1}, {1, 7, 7}, Activation::kNone, true));
  cases.push_back(Binary(OpType::kMul, {1, 4, 3}, {1, 4, 3}, {1, 4, 3}, Activation::kNone, true));
  for (OpType t : {OpType::kLogistic, OpType::kRelu, OpType::kRelu6, OpType::kHardSwish}) {
    cases.push_back(Unary(t, {1, 5, 5, 6}));
  }
  cases.push_back(Unary(OpType::kLogistic, {1, 33}));
  {
    GraphBuilder b("prelu");
    const int x = b.Input({1, 6, 6, 16});
    const int a = b.Const({1, 1, 16}, RandomFloats(16, 0, 0.5f, 12));
    const int y = b.Tensor({1, 6, 6, 16});
    b.Op(OpType::kPrelu, {x, a}, {y});
    b.Output(y);
    cases.push_back({"PRELU alpha [1,1,16]", b.Build()});
  }
  {
    GraphBuilder b("pad");
    const int x = b.Input({1, 5, 5, 6});
    const int p = b.ConstInt({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0});
    const int y = b.Tensor({1, 7, 7, 6});
    b.Op(OpType::kPad, {x, p}, {y});
    b.Output(y);
    cases.push_back({"PAD H+W [1,1]", b.Build()});
    GraphBuilder b2("padc");
    const int x2 = b2.Input({1, 4, 4, 6});
    const int p2 = b2.ConstInt({4, 2}, {0, 0, 0, 0, 0, 0, 0, 10});
    const int y2 = b2.Tensor({1, 4, 4, 16});
    b2.Op(OpType::kPad, {x2, p2}, {y2});
    b2.Output(y2);
    cases.push_back({"PAD C [0,10]", b2.Build()});
  }
  for (bool half : {false, true}) {
    for (bool align : {false, true}) {
      if (half && align) continue;
      GraphBuilder b("resize");
      const int x = b.Input({1, 5, 7, 3});
      const int s = b.ConstInt({2}, {10, 14});
      const int y = b.Tensor({1, 10, 14, 3});
      b.Op(OpType::kResizeBilinear, {x, s}, {y}, ir::ResizeBilinearOptions{align, half});
      b.Output(y);
      cases.push_back(
          {absl::StrCat("RESIZE_BILINEAR x2 align_corners=", align, " half_pixel=", half),
           b.Build()});
    }
  }
  {
    GraphBuilder b("concat");
    const int x = b.Input({1, 6, 4});
    const int z = b.Input({1, 3, 4});
    const int y = b.Tensor({1, 9, 4});
    b.Op(OpType::kConcatenation, {x, z}, {y}, ir::ConcatenationOptions{1, Activation::kNone});
    b.Output(y);
    cases.push_back({"CONCATENATION axis=1", b.Build()});
  }
  for (bool keep : {true, false}) {
    GraphBuilder b("mean");
    const int x = b.Input({1, 6, 5, 7});
    const int a = b.ConstInt({2}, {1, 2});
    const int y = b.Tensor(keep ? ir::Shape{1, 1, 1, 7} : ir::Shape{1, 7});
    b.Op(OpType::kMean, {x, a}, {y}, ir::ReducerOptions{keep});
    b.Output(y);
    cases.push_back({absl::StrCat("MEAN axes=[1,2] keep_dims=", keep), b.Build()});
  }
  {
    GraphBuilder b("fc");
    const int x = b.Input({1, 40});
    const int w = b.Const({10, 40}, RandomFloats(400, -0.5f, 0.5f, 13));
    const int bias = b.Const({10}, RandomFloats(10, -0.5f, 0.5f, 14));
    const int y = b.Tensor({1, 10});
    b.Op(OpType::kFullyConnected, {x, w, bias}, {y}, ir::FullyConnectedOptions{});
    b.Output(y);
    cases.push_back({"FULLY_CONNECTED 40->10", b.Build()});
  }
  {
    GraphBuilder b("d2s");
    const int x = b.Input({1, 3, 4, 8});
    const int y = b.Tensor({1, 6, 8, 2});
    b.Op(OpType::kDepthToSpace, {x}, {y}, ir::DepthToSpaceOptions{2});
    b.Output(y);
    cases.push_back({"DEPTH_TO_SPACE b2", b.Build()});
  }
  for (int h : {4, 5}) {
    // SAME pads max(0, 2 - (in-1) % 2 - 1): 0 for even sizes (out = 2 in), 1 for odd (2 in - 1).
    GraphBuilder b("tconv");
    const int x = b.Input({1, h, 6, 4});
    const int w = b.Const({3, 2, 2, 4}, RandomFloats(48, -0.5f, 0.5f, 15));
    const int bias = b.Const({3}, RandomFloats(3, -0.5f, 0.5f, 16));
    const int y = b.Tensor({1, h % 2 ? 2 * h - 1 : 2 * h, 12, 3});
    b.Op(OpType::kTransposeConvBias, {x, w, bias}, {y},
         ir::TransposeConvOptions{Padding::kSame, 2, 2});
    b.Output(y);
    cases.push_back(
        {absl::StrCat("Convolution2DTransposeBias k2 s2 SAME [1,", h, ",6,4]"), b.Build()});
  }
  return cases;
}

namespace {

absl::StatusOr<std::unique_ptr<CompiledModel>> CompileAndFeed(const OpCase& c,
                                                              const Backend& backend, int threads,
                                                              uint32_t seed) {
  BackendOptions opts;
  opts.num_threads = threads;
  ASSIGN_OR_RETURN(std::unique_ptr<CompiledModel> m, backend.Compile(c.graph, opts));
  uint32_t s = seed;
  for (const IoTensor& in : m->Inputs()) {
    if (in.dtype != ir::DType::kFloat32)
      return absl::UnimplementedError("harness feeds float32 inputs only");
    const std::vector<float> v = RandomFloats(in.num_elements(), c.input_lo, c.input_hi, s++);
    std::copy(v.begin(), v.end(), in.f32());
  }
  return m;
}

}  // namespace

absl::StatusOr<CompareResult> CompareWithReference(const OpCase& c, const Backend& backend,
                                                   const Tolerance& tol, uint32_t seed) {
  std::unique_ptr<Backend> ref = reference::CreateReferenceBackend();
  ASSIGN_OR_RETURN(auto want, CompileAndFeed(c, *ref, 1, seed));
  ASSIGN_OR_RETURN(auto got, CompileAndFeed(c, backend, 1, seed));
  RETURN_IF_ERROR(want->Invoke());
  RETURN_IF_ERROR(got->Invoke());
  CompareResult r;
  r.passed = true;
  if (want->Outputs().size() != got->Outputs().size()) {
    r.passed = false;
    r.detail = "different number of outputs";
    return r;
  }
  for (size_t o = 0; o < want->Outputs().size(); ++o) {
    const IoTensor &w = want->Outputs()[o], &g = got->Outputs()[o];
    if (w.shape != g.shape) {
      r.passed = false;
      r.detail = absl::StrCat("output ", o, " shape ", ir::ShapeString(g.shape),
                              " != ", ir::ShapeString(w.shape));
      return r;
    }
    for (int64_t i = 0; i < w.num_elements(); ++i) {
      const double want_v = w.f32()[i], got_v = g.f32()[i];
      const double err = std::fabs(want_v - got_v);
      if (!(err <= r.max_abs_error) || std::isnan(got_v)) {
        r.max_abs_error = std::isnan(got_v) ? INFINITY : err;
        r.worst_index = i;
      }
      if (!(err <= tol.abs + tol.rel * std::fabs(want_v)) && r.passed) {
        r.passed = false;
        r.detail = absl::StrCat("output ", o, " element ", i, ": got ", got_v, ", want ", want_v);
      }
    }
  }
  return r;
}

absl::StatusOr<double> TimeOpCase(const OpCase& c, const Backend& backend, int threads, int runs) {
  ASSIGN_OR_RETURN(auto m, CompileAndFeed(c, backend, threads, 1));
  std::vector<double> ms;
  for (int i = 0; i < std::max(runs, 1); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(m->Invoke());
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace sluice::inference::testing
