// The cuda backend against the reference kernels: the differential op harness
// plus this family's own cases (broadcasts, int32, slices, chains), CUDA-graph
// replay with changing inputs, no allocation after Compile, host islands,
// errors naming the op, and the GPU-resident path (DeviceInput/DeviceOutput,
// InvokeOnStream). Built twice: on the fake runtime (label gpu_fake; the
// fake_cuda checks are extra there) and on a device (label gpu).
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/cuda/cuda_backend.h"
#include "inference/cuda/cuda_ops.h"
#include "inference/reference/reference_kernels.h"
#include "inference/testing/graph_builder.h"
#include "inference/testing/op_harness.h"

#if SLUICE_FAKE_CUDA
#include "gpu/testing/fake_cuda_runtime.h"
#endif

namespace sluice::inference::cuda {
namespace {

using ir::Activation;
using ir::DType;
using ir::OpType;
using testing::GraphBuilder;
using testing::OpCase;
using testing::Tolerance;

const Backend& Cuda() {
  static const std::unique_ptr<Backend> backend = CreateCudaBackend();
  return *backend;
}

// Deterministic input bytes: floats in [lo, hi), int32 in [-20, 20), fp16 of
// small values.
void Fill(const IoTensor& t, uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  if (t.dtype == DType::kFloat32) {
    std::uniform_real_distribution<float> d(lo, hi);
    for (int64_t i = 0; i < t.num_elements(); ++i) t.f32()[i] = d(rng);
  } else if (t.dtype == DType::kInt32) {
    std::uniform_int_distribution<int32_t> d(-20, 19);
    for (int64_t i = 0; i < t.num_elements(); ++i) t.i32()[i] = d(rng);
  } else if (t.dtype == DType::kFloat16) {
    // Exponents 13..16 (0.25 .. 4), random sign and mantissa.
    auto* h = static_cast<uint16_t*>(t.data);
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      h[i] = static_cast<uint16_t>((rng() & 0x8000) | ((13 + rng() % 4) << 10) | (rng() & 0x3ff));
    }
  } else {
    std::memset(t.data, 0, t.bytes);
  }
}

// Compiles `g` on cuda and reference, feeds both the same inputs, runs, and
// compares every output (floats within `tol`, everything else bit for bit).
struct RunResult {
  bool ok = false;
  std::string detail;
  std::unique_ptr<CompiledModel> cuda;
};

RunResult RunBoth(const ir::Graph& g, uint32_t seed, Tolerance tol = {}) {
  RunResult r;
  auto got = Cuda().Compile(g, {});
  auto want = reference::CreateReferenceBackend()->Compile(g, {});
  if (!got.ok() || !want.ok()) {
    r.detail = absl::StrCat("compile: ", got.status().ToString(), " / ", want.status().ToString());
    return r;
  }
  for (size_t i = 0; i < (*got)->Inputs().size(); ++i) {
    Fill((*got)->Inputs()[i], seed + i);
    Fill((*want)->Inputs()[i], seed + i);
  }
  const absl::Status sg = (*got)->Invoke(), sw = (*want)->Invoke();
  if (!sg.ok() || !sw.ok()) {
    r.detail = absl::StrCat("invoke: ", sg.ToString(), " / ", sw.ToString());
    return r;
  }
  r.ok = true;
  for (size_t o = 0; o < (*want)->Outputs().size() && r.ok; ++o) {
    const IoTensor &w = (*want)->Outputs()[o], &c = (*got)->Outputs()[o];
    if (w.shape != c.shape || w.bytes != c.bytes) {
      r.ok = false;
      r.detail = "output shapes differ";
    } else if (w.dtype == DType::kFloat32) {
      for (int64_t i = 0; i < w.num_elements(); ++i) {
        const float a = w.f32()[i], b = c.f32()[i];
        if (!(std::fabs(a - b) <= tol.abs + tol.rel * std::fabs(a))) {
          r.ok = false;
          r.detail = absl::StrCat("output ", o, " element ", i, ": got ", b, ", want ", a);
          break;
        }
      }
    } else if (std::memcmp(w.data, c.data, w.bytes) != 0) {
      r.ok = false;
      r.detail = absl::StrCat("output ", o, " bytes differ");
    }
  }
  r.cuda = std::move(*got);
  return r;
}

bool AllOnCuda(const CompiledModel& m) {
  for (const std::string& p : m.OpPlacement())
    if (p == "reference") return false;
  return true;
}

bool IsPartBOp(OpType t) { return IsConvFamilyOp(t) || IsCustomFamilyOp(t); }

// --- The differential op harness ---------------------------------------------

TEST(CudaBackendTest, StandardOpCasesMatchReference) {
  int passed = 0, skipped = 0;
  for (const OpCase& c : testing::StandardOpCases()) {
    bool supported = true, part_b = false;
    for (int i = 0; i < static_cast<int>(c.graph.ops.size()); ++i) {
      part_b = part_b || IsPartBOp(c.graph.ops[i].type);
      const absl::Status s = CheckCudaOp(c.graph, i);
      supported = supported && s.ok();
      // Every op of this family must be implemented.
      if (!IsPartBOp(c.graph.ops[i].type)) EXPECT_TRUE(s.ok()) << c.name << ": " << s;
    }
    auto r = testing::CompareWithReference(c, Cuda(), Tolerance{1e-4f, 1e-4f});
    ASSERT_TRUE(r.ok()) << c.name << ": " << r.status();
    EXPECT_TRUE(r->passed) << c.name << ": " << r->detail;
    if (supported) {
      ++passed;
    } else {
      ASSERT_TRUE(part_b) << c.name;
      std::printf("skipped (conv/custom family not built; ran as a host island): %s\n",
                  c.name.c_str());
      ++skipped;
    }
  }
  std::printf("standard op cases on cuda kernels: %d passed, %d skipped\n", passed, skipped);
  EXPECT_GT(passed, 20);
}

OpCase Binary(OpType type, const ir::Shape& a, const ir::Shape& b, const ir::Shape& out,
              Activation act, DType dtype = DType::kFloat32) {
  GraphBuilder gb("binary");
  const int x = gb.Input(a, dtype), z = gb.Input(b, dtype), y = gb.Tensor(out, dtype);
  gb.Op(type, {x, z}, {y}, ir::BinaryOptions{act});
  gb.Output(y);
  return {absl::StrCat(std::string(ir::OpTypeName(type)), " ", ir::ShapeString(a), " x ",
                       ir::ShapeString(b), " ", std::string(ir::ActivationName(act)), " ",
                       std::string(ir::DTypeName(dtype))),
          gb.Build()};
}

OpCase Unary(OpType type, const ir::Shape& s, DType dtype = DType::kFloat32) {
  GraphBuilder gb("unary");
  const int x = gb.Input(s, dtype), y = gb.Tensor(s, dtype);
  gb.Op(type, {x}, {y});
  gb.Output(y);
  return {absl::StrCat(std::string(ir::OpTypeName(type)), " ", ir::ShapeString(s)), gb.Build()};
}

OpCase Slice(const ir::Shape& in, std::vector<int32_t> begin, std::vector<int32_t> end,
             std::vector<int32_t> strides, ir::StridedSliceOptions o, const ir::Shape& out,
             DType dtype = DType::kFloat32) {
  GraphBuilder gb("slice");
  const int r = static_cast<int>(in.size());
  const int x = gb.Input(in, dtype);
  const int b = gb.ConstInt({r}, begin), e = gb.ConstInt({r}, end), s = gb.ConstInt({r}, strides);
  const int y = gb.Tensor(out, dtype);
  gb.Op(OpType::kStridedSlice, {x, b, e, s}, {y}, o);
  gb.Output(y);
  return {absl::StrCat("STRIDED_SLICE ", ir::ShapeString(in), " -> ", ir::ShapeString(out)),
          gb.Build()};
}

// This family's cases beyond the standard ones (float and int32).
std::vector<OpCase> FamilyCases() {
  std::vector<OpCase> v;
  for (OpType t : {OpType::kAdd, OpType::kSub, OpType::kMul, OpType::kDiv}) {
    v.push_back(Binary(t, {2, 3, 1, 5}, {1, 4, 5}, {2, 3, 4, 5}, Activation::kNone));
    v.push_back(Binary(t, {1, 4, 4, 3}, {3}, {1, 4, 4, 3}, Activation::kReluN1To1));
    v.push_back(Binary(t, {2, 1, 3}, {2, 4, 1}, {2, 4, 3}, Activation::kNone, DType::kInt32));
    v.push_back(Binary(t, {5, 6}, {5, 6}, {5, 6}, Activation::kNone, DType::kInt32));
  }
  v.push_back(Binary(OpType::kAdd, {1, 3, 3, 4}, {1, 3, 3, 4}, {1, 3, 3, 4}, Activation::kTanh));
  v.push_back(Binary(OpType::kMul, {1}, {2, 3}, {2, 3}, Activation::kRelu6));
  for (OpType t : {OpType::kLogistic, OpType::kRelu, OpType::kRelu6, OpType::kTanh,
                   OpType::kHardSwish, OpType::kSquare}) {
    OpCase c = Unary(t, {2, 3, 7});
    v.push_back(std::move(c));
  }
  v.push_back(Unary(OpType::kSquare, {4, 5}, DType::kInt32));
  {
    GraphBuilder gb("prelu");
    const int x = gb.Input({1, 3, 4, 5}), a = gb.Input({1, 3, 4, 5}), y = gb.Tensor({1, 3, 4, 5});
    gb.Op(OpType::kPrelu, {x, a}, {y});
    gb.Output(y);
    v.push_back({"PRELU full alpha", gb.Build()});
  }
  for (float beta : {1.0f, 0.5f}) {
    GraphBuilder gb("softmax");
    const int x = gb.Input({3, 2, 17}), y = gb.Tensor({3, 2, 17});
    gb.Op(OpType::kSoftmax, {x}, {y}, ir::SoftmaxOptions{beta});
    gb.Output(y);
    v.push_back({absl::StrCat("SOFTMAX beta=", beta), gb.Build()});
  }
  {
    // A RESHAPE the planner cannot alias (constant input) is a device copy.
    GraphBuilder gb("reshape");
    const int x = gb.Input({3, 2});
    const int c = gb.Const({2, 3}, testing::RandomFloats(6, -1, 1, 3));
    const int r = gb.Tensor({3, 2}), y = gb.Tensor({3, 2});
    gb.Op(OpType::kReshape, {c}, {r});
    gb.Op(OpType::kAdd, {x, r}, {y}, ir::BinaryOptions{});
    gb.Output(y);
    v.push_back({"RESHAPE of a constant + ADD", gb.Build()});
  }
  for (DType dt : {DType::kFloat32, DType::kInt32}) {
    GraphBuilder gb("pad");
    const int x = gb.Input({2, 3}, dt), p = gb.ConstInt({2, 2}, {1, 2, 0, 3});
    const int y = gb.Tensor({5, 6}, dt);
    gb.Op(OpType::kPad, {x, p}, {y});
    gb.Output(y);
    v.push_back({absl::StrCat("PAD rank 2 ", std::string(ir::DTypeName(dt))), gb.Build()});
  }
  for (DType dt : {DType::kFloat32, DType::kInt32}) {
    GraphBuilder gb("concat");
    const int a = gb.Input({1, 2, 3, 2}, dt), b = gb.Input({1, 2, 3, 5}, dt);
    const int c = gb.Input({1, 2, 3, 1}, dt), y = gb.Tensor({1, 2, 3, 8}, dt);
    const Activation act = dt == DType::kFloat32 ? Activation::kRelu : Activation::kNone;
    gb.Op(OpType::kConcatenation, {a, b, c}, {y}, ir::ConcatenationOptions{3, act});
    gb.Output(y);
    v.push_back({absl::StrCat("CONCATENATION axis=3 x3 ", std::string(ir::DTypeName(dt))),
                 gb.Build()});
  }
  {
    GraphBuilder gb("concat0");
    const int a = gb.Input({2, 3}), b = gb.Input({1, 3}), y = gb.Tensor({3, 3});
    gb.Op(OpType::kConcatenation, {a, b}, {y}, ir::ConcatenationOptions{-2, Activation::kNone});
    gb.Output(y);
    v.push_back({"CONCATENATION axis=-2", gb.Build()});
  }
  for (const auto& [axes, keep, out] :
       std::vector<std::tuple<std::vector<int32_t>, bool, ir::Shape>>{
           {{3}, false, {2, 3, 4}}, {{-1, 1}, true, {2, 1, 4, 1}}, {{0, 1, 2, 3}, false, {}}}) {
    GraphBuilder gb("mean");
    const int x = gb.Input({2, 3, 4, 5});
    const int a = gb.ConstInt({static_cast<int>(axes.size())}, axes);
    const int y = gb.Tensor(out);
    gb.Op(OpType::kMean, {x, a}, {y}, ir::ReducerOptions{keep});
    gb.Output(y);
    v.push_back({absl::StrCat("MEAN ", axes.size(), " axes keep=", keep), gb.Build()});
  }
  for (bool half : {false, true}) {
    for (bool align : {false, true}) {
      if (half && align) continue;
      GraphBuilder gb("resize");
      const int x = gb.Input({2, 9, 6, 2}), s = gb.ConstInt({2}, {4, 11});
      const int y = gb.Tensor({2, 4, 11, 2});
      gb.Op(OpType::kResizeBilinear, {x, s}, {y}, ir::ResizeBilinearOptions{align, half});
      gb.Output(y);
      v.push_back({absl::StrCat("RESIZE_BILINEAR down/up batch 2 align=", align, " half=", half),
                   gb.Build()});
    }
  }
  {
    ir::StridedSliceOptions o;
    v.push_back(Slice({1, 8, 6, 4}, {0, 1, 0, 1}, {1, 7, 6, 4}, {1, 2, 1, 2}, o, {1, 3, 6, 2}));
    o.begin_mask = 0b0010;
    o.end_mask = 0b0100;
    v.push_back(Slice({2, 8, 6, 4}, {0, 5, -4, 0}, {2, 100, 0, 3}, {1, 1, 1, 1}, o, {2, 8, 4, 3}));
    ir::StridedSliceOptions neg;
    v.push_back(Slice({7, 5}, {-1, 4}, {-8, -6}, {-2, -1}, neg, {4, 5}));
    ir::StridedSliceOptions shrink;
    shrink.shrink_axis_mask = 0b101;
    v.push_back(Slice({3, 4, 5}, {1, 0, -1}, {2, 4, 0}, {1, 1, 1}, shrink, {4}, DType::kInt32));
  }
  for (int bs : {2, 3}) {
    GraphBuilder gb("d2s");
    const int x = gb.Input({2, 2, 3, 2 * bs * bs}), y = gb.Tensor({2, 2 * bs, 3 * bs, 2});
    gb.Op(OpType::kDepthToSpace, {x}, {y}, ir::DepthToSpaceOptions{bs});
    gb.Output(y);
    v.push_back({absl::StrCat("DEPTH_TO_SPACE b", bs, " batch 2"), gb.Build()});
  }
  return v;
}

TEST(CudaBackendTest, FamilyCasesMatchReferenceOnTheDevice) {
  int n = 0;
  for (const OpCase& c : FamilyCases()) {
    for (int i = 0; i < static_cast<int>(c.graph.ops.size()); ++i) {
      EXPECT_TRUE(CheckCudaOp(c.graph, i).ok()) << c.name << ": " << CheckCudaOp(c.graph, i);
    }
    RunResult r = RunBoth(c.graph, 11, Tolerance{1e-4f, 1e-4f});
    EXPECT_TRUE(r.ok) << c.name << ": " << r.detail;
    if (r.cuda) EXPECT_TRUE(AllOnCuda(*r.cuda)) << c.name;
    ++n;
  }
  std::printf("family cases on cuda kernels: %d\n", n);
}

// --- CUDA graph, allocations -------------------------------------------------

// x, z -> MUL -> ADD const -> LOGISTIC -> CONCAT with PAD(x) -> MEAN, SOFTMAX.
ir::Graph Chain() {
  GraphBuilder gb("chain");
  const int x = gb.Input({1, 4, 4, 3}), z = gb.Input({1, 1, 1, 3});
  const int c = gb.Const({3}, testing::RandomFloats(3, -1, 1, 5));
  const int m = gb.Tensor({1, 4, 4, 3}), a = gb.Tensor({1, 4, 4, 3}), l = gb.Tensor({1, 4, 4, 3});
  gb.Op(OpType::kMul, {x, z}, {m}, ir::BinaryOptions{});
  gb.Op(OpType::kAdd, {m, c}, {a}, ir::BinaryOptions{Activation::kRelu6});
  gb.Op(OpType::kLogistic, {a}, {l});
  const int pads = gb.ConstInt({4, 2}, {0, 0, 0, 0, 0, 0, 1, 0});
  const int p = gb.Tensor({1, 4, 4, 4});
  gb.Op(OpType::kPad, {x, pads}, {p});
  const int cat = gb.Tensor({1, 4, 4, 7});
  gb.Op(OpType::kConcatenation, {l, p}, {cat}, ir::ConcatenationOptions{3, Activation::kNone});
  const int axes = gb.ConstInt({2}, {1, 2});
  const int mean = gb.Tensor({1, 7});
  gb.Op(OpType::kMean, {cat, axes}, {mean}, ir::ReducerOptions{false});
  const int sm = gb.Tensor({1, 7});
  gb.Op(OpType::kSoftmax, {mean}, {sm}, ir::SoftmaxOptions{1.0f});
  gb.Output(sm);
  gb.Output(cat);
  return gb.Build();
}

TEST(CudaBackendTest, CudaGraphReplaysWithChangingInputsAndAllocatesNothing) {
  const ir::Graph g = Chain();
  auto got = Cuda().Compile(g, {});
  ASSERT_TRUE(got.ok()) << got.status();
  auto want = reference::CreateReferenceBackend()->Compile(g, {});
  ASSERT_TRUE(want.ok()) << want.status();
  auto* cm = dynamic_cast<CudaCompiledModel*>(got->get());
  ASSERT_NE(cm, nullptr);
  EXPECT_TRUE(cm->UsesCudaGraph());
  EXPECT_TRUE(AllOnCuda(**got));
#if SLUICE_FAKE_CUDA
  const fake_cuda::Stats before = fake_cuda::GetStats();
#endif
  constexpr int kRuns = 5;
  for (int run = 0; run < kRuns; ++run) {
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      Fill((*got)->Inputs()[i], 100 * run + i, -2, 2);
      Fill((*want)->Inputs()[i], 100 * run + i, -2, 2);
    }
    ASSERT_TRUE((*got)->Invoke().ok());
    ASSERT_TRUE((*want)->Invoke().ok());
    for (size_t o = 0; o < g.outputs.size(); ++o) {
      const IoTensor &w = (*want)->Outputs()[o], &c = (*got)->Outputs()[o];
      for (int64_t i = 0; i < w.num_elements(); ++i) {
        ASSERT_NEAR(c.f32()[i], w.f32()[i], 1e-4 + 1e-4 * std::fabs(w.f32()[i]))
            << "run " << run << " output " << o << " element " << i;
      }
    }
  }
#if SLUICE_FAKE_CUDA
  const fake_cuda::Stats after = fake_cuda::GetStats();
  EXPECT_EQ(after.graph_launches, before.graph_launches + kRuns);
  EXPECT_EQ(after.device_allocations, before.device_allocations) << "cudaMalloc after Compile";
  EXPECT_EQ(after.pinned_allocations, before.pinned_allocations) << "cudaMallocHost after Compile";
  EXPECT_EQ(after.violations, before.violations);
#endif
}

TEST(CudaBackendTest, ModelsAreFreedCompletely) {
#if SLUICE_FAKE_CUDA
  const fake_cuda::Stats before = fake_cuda::GetStats();
  {
    const ir::Graph g = Chain();
    auto m = Cuda().Compile(g, {});
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_TRUE((*m)->Invoke().ok());
    EXPECT_GT(fake_cuda::GetStats().live_graphs, before.live_graphs);
  }
  const fake_cuda::Stats after = fake_cuda::GetStats();
  EXPECT_EQ(after.live_graphs, before.live_graphs);
  EXPECT_EQ(after.live_device_allocations, before.live_device_allocations);
  EXPECT_EQ(after.live_pinned_allocations, before.live_pinned_allocations);
  EXPECT_EQ(after.live_streams, before.live_streams);
#else
  GTEST_SKIP() << "fake runtime only";
#endif
}

// --- Islands -------------------------------------------------------------------

// An fp16 DEQUANTIZE (folded at load time in real models, rejected by the cuda
// kernels) and a rank-9 CONCATENATION (above the kernels' rank 8) run on the
// host between device ops.
ir::Graph IslandGraph() {
  GraphBuilder gb("islands");
  const ir::Shape s9{1, 1, 1, 1, 1, 1, 2, 3, 4};
  const int h = gb.Input({2, 3, 4}, DType::kFloat16);
  const int x = gb.Input({2, 3, 4});
  const int d = gb.Tensor({2, 3, 4});
  gb.Op(OpType::kDequantize, {h}, {d});
  const int a = gb.Tensor({2, 3, 4});
  gb.Op(OpType::kAdd, {x, d}, {a}, ir::BinaryOptions{});
  const int r = gb.Tensor({2, 3, 4});
  gb.Op(OpType::kRelu, {a}, {r});
  const int v = gb.Tensor(s9);
  gb.Op(OpType::kReshape, {r}, {v});
  const int w = gb.Input(s9);
  const int cat = gb.Tensor({1, 1, 1, 1, 1, 1, 2, 3, 8});
  gb.Op(OpType::kConcatenation, {v, w}, {cat}, ir::ConcatenationOptions{8, Activation::kNone});
  const int y = gb.Tensor({1, 1, 1, 1, 1, 1, 2, 3, 8});
  gb.Op(OpType::kTanh, {cat}, {y});
  gb.Output(y);
  gb.Output(a);
  return gb.Build();
}

TEST(CudaBackendTest, IslandsRunOnTheReferenceKernels) {
  const ir::Graph g = IslandGraph();
  EXPECT_FALSE(Cuda().SupportsOp(g, 0).ok());
  EXPECT_NE(std::string(Cuda().SupportsOp(g, 0).message()).find("folded at load time"),
            std::string::npos);
  for (uint32_t seed : {1u, 2u}) {
    RunResult r = RunBoth(g, seed, Tolerance{1e-5f, 1e-5f});
    ASSERT_TRUE(r.ok) << r.detail;
    const std::vector<std::string> want = {"reference", "cuda", "cuda", "view", "reference",
                                           "cuda"};
    EXPECT_EQ(r.cuda->OpPlacement(), want);
    auto* cm = dynamic_cast<CudaCompiledModel*>(r.cuda.get());
    ASSERT_NE(cm, nullptr);
    EXPECT_FALSE(cm->UsesCudaGraph());
    EXPECT_EQ(cm->IslandReasons().size(), 2u);
    // Invoking again gives the same outputs, and allocates nothing.
    std::vector<float> first(r.cuda->Outputs()[0].f32(),
                             r.cuda->Outputs()[0].f32() + r.cuda->Outputs()[0].num_elements());
#if SLUICE_FAKE_CUDA
    const fake_cuda::Stats before = fake_cuda::GetStats();
#endif
    ASSERT_TRUE(r.cuda->Invoke().ok());
#if SLUICE_FAKE_CUDA
    EXPECT_EQ(fake_cuda::GetStats().device_allocations, before.device_allocations);
    EXPECT_EQ(fake_cuda::GetStats().pinned_allocations, before.pinned_allocations);
#endif
    EXPECT_EQ(0, std::memcmp(first.data(), r.cuda->Outputs()[0].data, r.cuda->Outputs()[0].bytes));
  }
}

// --- Errors --------------------------------------------------------------------

TEST(CudaBackendTest, CorruptOpFailsCompileNamingTheOp) {
  GraphBuilder gb("corrupt.tflite");
  const int x = gb.Input({1, 4, 3}), z = gb.Input({1, 5, 3}), y = gb.Tensor({1, 4, 3});
  gb.Op(OpType::kAdd, {x, z}, {y}, ir::BinaryOptions{});
  gb.Output(y);
  const ir::Graph g = gb.Build();
  const absl::Status check = Cuda().SupportsOp(g, 0);
  EXPECT_EQ(check.code(), absl::StatusCode::kInvalidArgument) << check;
  auto m = Cuda().Compile(g, {});
  ASSERT_FALSE(m.ok());
  const std::string msg(m.status().message());
  EXPECT_NE(msg.find("operator 0 (ADD)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("corrupt.tflite"), std::string::npos) << msg;
  EXPECT_NE(msg.find("broadcast"), std::string::npos) << msg;

  GraphBuilder gb2("pad.tflite");
  const int x2 = gb2.Input({2, 3}), p = gb2.ConstInt({2, 2}, {1, 1, 0, 0}), y2 = gb2.Tensor({5, 3});
  gb2.Op(OpType::kPad, {x2, p}, {y2});
  gb2.Output(y2);
  auto m2 = Cuda().Compile(gb2.Build(), {});
  ASSERT_FALSE(m2.ok());
  EXPECT_NE(std::string(m2.status().message()).find("operator 0 (PAD)"), std::string::npos)
      << m2.status();
}

TEST(CudaBackendTest, DensifyIsRejectedClearly) {
  GraphBuilder gb("sparse.tflite");
  const int c = gb.Const({4}, {1, 2, 3, 4});
  const int x = gb.Input({4}), d = gb.Tensor({4}), y = gb.Tensor({4});
  gb.Op(OpType::kDensify, {c}, {d});
  gb.Op(OpType::kAdd, {x, d}, {y}, ir::BinaryOptions{});
  gb.Output(y);
  const ir::Graph g = gb.Build();
  EXPECT_EQ(Cuda().SupportsOp(g, 0).code(), absl::StatusCode::kUnimplemented);
  auto m = Cuda().Compile(g, {});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(std::string(m.status().message()).find("DENSIFY"), std::string::npos) << m.status();
}

#if SLUICE_FAKE_CUDA
TEST(CudaBackendTest, UnavailableWithoutADevice) {
  fake_cuda::SetDeviceCount(0);
  EXPECT_FALSE(Cuda().IsAvailable());
  auto m = Cuda().Compile(Chain(), {});
  fake_cuda::SetDeviceCount(1);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnavailable) << m.status();
  EXPECT_TRUE(Cuda().IsAvailable());
}
#endif

// --- The GPU-resident path -----------------------------------------------------

TEST(CudaBackendTest, InvokeOnStreamKeepsTensorsOnTheDevice) {
  const ir::Graph g = Chain();
  auto got = Cuda().Compile(g, {});
  ASSERT_TRUE(got.ok()) << got.status();
  auto want = reference::CreateReferenceBackend()->Compile(g, {});
  ASSERT_TRUE(want.ok());
  auto* cm = dynamic_cast<CudaCompiledModel*>(got->get());
  ASSERT_NE(cm, nullptr);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  // Stage inputs the way a GPU producer would: device copies on the caller's stream.
  std::vector<std::vector<float>> in(g.inputs.size());
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    Fill((*want)->Inputs()[i], 7 + i);
    const IoTensor& w = (*want)->Inputs()[i];
    in[i].assign(w.f32(), w.f32() + w.num_elements());
    ASSERT_NE(cm->DeviceInput(i), nullptr);
    ASSERT_EQ(cudaMemcpyAsync(cm->DeviceInput(i), in[i].data(), w.bytes, cudaMemcpyHostToDevice, s),
              cudaSuccess);
  }
  EXPECT_EQ(cm->DeviceInput(static_cast<int>(g.inputs.size())), nullptr);
#if SLUICE_FAKE_CUDA
  const fake_cuda::Stats before = fake_cuda::GetStats();
#endif
  ASSERT_TRUE(cm->InvokeOnStream(s).ok());
  std::vector<std::vector<float>> out(g.outputs.size());
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    out[o].resize((*want)->Outputs()[o].num_elements());
    ASSERT_EQ(cudaMemcpyAsync(out[o].data(), cm->DeviceOutput(o), out[o].size() * 4,
                              cudaMemcpyDeviceToHost, s),
              cudaSuccess);
  }
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
#if SLUICE_FAKE_CUDA
  const fake_cuda::Stats after = fake_cuda::GetStats();
  EXPECT_EQ(after.graph_launches, before.graph_launches + 1);
  EXPECT_EQ(after.device_allocations, before.device_allocations);
#endif
  ASSERT_TRUE((*want)->Invoke().ok());
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    const IoTensor& w = (*want)->Outputs()[o];
    for (int64_t i = 0; i < w.num_elements(); ++i) {
      ASSERT_NEAR(out[o][i], w.f32()[i], 1e-4 + 1e-4 * std::fabs(w.f32()[i])) << o << " " << i;
    }
    // The host buffers were not involved.
    const IoTensor& h = (*got)->Outputs()[o];
    for (int64_t i = 0; i < h.num_elements(); ++i) ASSERT_EQ(h.f32()[i], 0.0f);
  }
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

}  // namespace
}  // namespace sluice::inference::cuda
