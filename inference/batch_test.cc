// Batch > 1 (issue 7): the Rebatch pass (passes.h) and Model::WithBatch.
// Oracle: a batch-2 run on two different inputs must give, item by item, what
// two batch-1 runs give. Reference kernels: the same bits (each item is
// computed by the same loops in the same order). xnnpack: within the
// tolerances of xnnpack_models_test against the batch-1 reference outputs.
// Models that cannot be re-batched, and bad batch values, give errors naming
// the op / the value.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/model.h"
#include "inference/passes.h"
#include "inference/reference/reference_kernels.h"
#include "inference/testing/graph_builder.h"
#include "inference/testing/shipped_models.h"
#include "inference/testing/test_inputs.h"
#include "tools/commands.h"

namespace sluice::inference {
namespace {

using ir::OpType;
using testing::GraphBuilder;

// Item `b` of a batch-`n` input or output, as a batch-1 IoTensor.
IoTensor Item(const IoTensor& t, int b, int n) {
  IoTensor v = t;
  v.shape[0] = 1;
  v.bytes = t.bytes / n;
  v.data = static_cast<uint8_t*>(t.data) + v.bytes * b;
  return v;
}

std::vector<float> Floats(const IoTensor& t) {
  return std::vector<float>(t.f32(), t.f32() + t.num_elements());
}

// Runs `g` on the reference backend with the given float inputs (one vector
// per graph input); returns the outputs.
std::vector<std::vector<float>> RunReference(const ir::Graph& g,
                                             const std::vector<std::vector<float>>& inputs) {
  auto compiled = reference::CreateReferenceBackend()->Compile(g, {});
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return {};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const IoTensor& in = (*compiled)->Inputs()[i];
    EXPECT_EQ(in.num_elements(), static_cast<int64_t>(inputs[i].size()));
    std::memcpy(in.data, inputs[i].data(), in.bytes);
  }
  EXPECT_TRUE((*compiled)->Invoke().ok());
  std::vector<std::vector<float>> out;
  for (const IoTensor& o : (*compiled)->Outputs()) out.push_back(Floats(o));
  return out;
}

std::vector<float> Ramp(int64_t n, float seed) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(seed + 0.37f * static_cast<float>(i));
  return v;
}

// Re-batches `g` to 2 and checks, on the reference kernels, that each item of
// the batch-2 run equals a batch-1 run on that item's input.
void ExpectBatch2MatchesTwoRuns(const ir::Graph& g) {
  ir::Graph g2 = g;
  ASSERT_TRUE(Rebatch(g2, 2).ok()) << Rebatch(g2, 2);
  for (int i = 0; i < static_cast<int>(g2.ops.size()); ++i) {
    ASSERT_TRUE(reference::CheckOp(g2, i).ok()) << reference::CheckOp(g2, i);
  }
  const int64_t n = g.tensors[g.inputs[0]].num_elements();
  const std::vector<float> a = Ramp(n, 0.1f), b = Ramp(n, 2.3f);
  std::vector<float> ab = a;
  ab.insert(ab.end(), b.begin(), b.end());
  const auto out_a = RunReference(g, {a}), out_b = RunReference(g, {b});
  const auto out_ab = RunReference(g2, {ab});
  ASSERT_EQ(out_ab.size(), out_a.size());
  for (size_t o = 0; o < out_a.size(); ++o) {
    std::vector<float> want = out_a[o];
    want.insert(want.end(), out_b[o].begin(), out_b[o].end());
    EXPECT_EQ(out_ab[o], want) << "output " << o;
  }
}

// input [1,4,4,2] -> STRIDED_SLICE rows 1..3 -> [1,2,4,2] -> MEAN over H,W
// -> [1,2] -> FULLY_CONNECTED (keep_num_dims=false) -> [1,3]; and the slice
// -> RESHAPE [1,16] -> FULLY_CONNECTED keep_num_dims=true -> [1,3].
ir::Graph SliceMeanFcGraph() {
  GraphBuilder b("slice_mean_fc");
  const int x = b.Input({1, 4, 4, 2});
  const int s = b.Tensor({1, 2, 4, 2});
  ir::StridedSliceOptions so;
  so.end_mask = 0b1000;
  b.Op(OpType::kStridedSlice,
       {x, b.ConstInt({4}, {0, 1, 0, 0}), b.ConstInt({4}, {1, 3, 4, 0}),
        b.ConstInt({4}, {1, 1, 1, 1})},
       {s}, so);
  const int m = b.Tensor({1, 2});
  b.Op(OpType::kMean, {s, b.ConstInt({2}, {1, 2})}, {m}, ir::ReducerOptions{false});
  const int f = b.Tensor({1, 3});
  b.Op(OpType::kFullyConnected, {m, b.Const({3, 2}, Ramp(6, 1.0f)), b.Const({3}, {0.1f, 0, -1})},
       {f}, ir::FullyConnectedOptions{ir::Activation::kRelu, false});
  const int r = b.Tensor({1, 16});
  b.Op(OpType::kReshape, {s}, {r});
  const int k = b.Tensor({1, 3});
  b.Op(OpType::kFullyConnected, {r, b.Const({3, 16}, Ramp(48, 0.5f))}, {k},
       ir::FullyConnectedOptions{ir::Activation::kNone, true});
  b.Output(f);
  b.Output(k);
  return b.Build();
}

TEST(RebatchTest, SliceMeanReshapeFullyConnectedMatchTwoRuns) {
  const ir::Graph g = SliceMeanFcGraph();
  ir::Graph g2 = g;
  ASSERT_TRUE(Rebatch(g2, 3).ok());
  EXPECT_EQ(g2.tensors[g2.inputs[0]].shape, (ir::Shape{3, 4, 4, 2}));
  EXPECT_EQ(g2.tensors[g2.outputs[0]].shape, (ir::Shape{3, 3}));
  EXPECT_EQ(g2.tensors[g2.outputs[1]].shape, (ir::Shape{3, 3}));
  // Constants are untouched; the slice takes all of dim 0 through its masks.
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].is_constant) EXPECT_EQ(g2.tensors[t].shape, g.tensors[t].shape);
  }
  const auto& so = g2.ops[0].opts<ir::StridedSliceOptions>();
  EXPECT_EQ(so.begin_mask & 1, 1);
  EXPECT_EQ(so.end_mask & 1, 1);
  ExpectBatch2MatchesTwoRuns(g);
}

TEST(RebatchTest, ConvPadConcatResizeMatchTwoRuns) {
  GraphBuilder b("conv_pad_concat");
  const int x = b.Input({1, 5, 5, 3});
  const int p = b.Tensor({1, 7, 7, 3});
  b.Op(OpType::kPad, {x, b.ConstInt({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0})}, {p});
  const int c = b.Tensor({1, 5, 5, 4});
  ir::Conv2DOptions co;
  b.Op(OpType::kConv2D, {p, b.Const({4, 3, 3, 3}, Ramp(108, 0.2f)), b.Const({4}, {1, 2, 3, 4})},
       {c}, co);
  const int cat = b.Tensor({1, 5, 5, 7});
  b.Op(OpType::kConcatenation, {c, x}, {cat}, ir::ConcatenationOptions{3});
  const int r = b.Tensor({1, 9, 9, 7});
  b.Op(OpType::kResizeBilinear, {cat, b.ConstInt({2}, {9, 9})}, {r}, ir::ResizeBilinearOptions{});
  const int y = b.Tensor({1, 9, 9, 7});
  b.Op(OpType::kAdd, {r, b.Const({1, 1, 7}, Ramp(7, 3.0f))}, {y}, ir::BinaryOptions{});
  b.Output(y);
  ExpectBatch2MatchesTwoRuns(b.Build());
}

// An op that would mix the batch: Unimplemented, naming the op; the graph
// is left as it was.
void ExpectRejected(const ir::Graph& g, const std::string& op_name, const std::string& why) {
  ir::Graph g2 = g;
  const absl::Status s = Rebatch(g2, 2);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find(op_name), std::string::npos) << s;
  EXPECT_NE(s.message().find(why), std::string::npos) << s;
  for (size_t t = 0; t < g.tensors.size(); ++t) EXPECT_EQ(g2.tensors[t].shape, g.tensors[t].shape);
}

TEST(RebatchTest, RejectsReshapeFoldingTheBatch) {
  GraphBuilder b;
  const int x = b.Input({1, 2, 3});
  const int y = b.Tensor({6});
  b.Op(OpType::kReshape, {x}, {y});
  b.Output(y);
  ExpectRejected(b.Build(), "RESHAPE", "no leading batch dimension");
}

TEST(RebatchTest, RejectsFullyConnectedWithRowsPerItem) {
  GraphBuilder b;
  const int x = b.Input({1, 4, 2});
  const int y = b.Tensor({4, 3});
  b.Op(OpType::kFullyConnected, {x, b.Const({3, 2}, Ramp(6, 0))}, {y},
       ir::FullyConnectedOptions{ir::Activation::kNone, false});
  b.Output(y);
  ExpectRejected(b.Build(), "FULLY_CONNECTED", "leading batch dimension");
  // Same with a leading 1 on the output shape, which alone looks batched.
  GraphBuilder c;
  const int x2 = c.Input({1, 1, 4, 2});
  const int y2 = c.Tensor({1, 4, 3});
  c.Op(OpType::kFullyConnected, {x2, c.Const({3, 2}, Ramp(6, 0))}, {y2},
       ir::FullyConnectedOptions{ir::Activation::kNone, false});
  c.Output(y2);
  ExpectRejected(c.Build(), "FULLY_CONNECTED", "keep_num_dims=false");
}

TEST(RebatchTest, RejectsOpsOnTheBatchAxis) {
  {
    GraphBuilder b;
    const int x = b.Input({1, 3, 2});
    const int y = b.Tensor({1, 1, 2});
    b.Op(OpType::kMean, {x, b.ConstInt({2}, {0, 1})}, {y}, ir::ReducerOptions{true});
    b.Output(y);
    ExpectRejected(b.Build(), "MEAN", "axis 0");
  }
  {
    GraphBuilder b;
    const int x = b.Input({1, 3});
    const int y = b.Tensor({2, 3});
    b.Op(OpType::kConcatenation, {x, x}, {y}, ir::ConcatenationOptions{0});
    b.Output(y);
    ExpectRejected(b.Build(), "CONCATENATION", "leading batch dimension");
  }
  {
    GraphBuilder b;
    const int x = b.Input({1, 3});
    const int y = b.Tensor({1, 6});
    b.Op(OpType::kConcatenation, {x, b.Const({1, 3}, {1, 2, 3})}, {y}, ir::ConcatenationOptions{1});
    b.Output(y);
    ExpectRejected(b.Build(), "CONCATENATION", "constant");
  }
  {
    GraphBuilder b;
    const int x = b.Input({1, 3});
    const int y = b.Tensor({3});
    ir::StridedSliceOptions so;
    so.shrink_axis_mask = 1;
    b.Op(OpType::kStridedSlice,
         {x, b.ConstInt({2}, {0, 0}), b.ConstInt({2}, {1, 3}), b.ConstInt({2}, {1, 1})}, {y}, so);
    b.Output(y);
    ExpectRejected(b.Build(), "STRIDED_SLICE", "leading batch dimension");
  }
  {
    GraphBuilder b;
    const int x = b.Input({1, 3});
    const int y = b.Tensor({1, 1, 3});
    b.Op(OpType::kAdd, {x, b.Const({1, 1, 3}, {1, 2, 3})}, {y}, ir::BinaryOptions{});
    b.Output(y);
    ExpectRejected(b.Build(), "ADD", "rank");
  }
}

TEST(RebatchTest, RejectsBadBatchAndUnbatchedInputs) {
  ir::Graph g = SliceMeanFcGraph();
  for (int bad : {0, -1}) {
    const absl::Status s = Rebatch(g, bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("batch must be >= 1, got " + std::to_string(bad)), std::string::npos)
        << s;
  }
  EXPECT_TRUE(Rebatch(g, 1).ok());
  GraphBuilder b;
  const int x = b.Input({2, 3});
  const int y = b.Tensor({2, 3});
  b.Op(OpType::kRelu, {x}, {y});
  b.Output(y);
  ir::Graph g2 = b.Build();
  const absl::Status s = Rebatch(g2, 4);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("graph input 't0' [2,3]"), std::string::npos) << s;
}

// --- The shipped models -------------------------------------------------------

using ModelCase = testing::ShippedModel;

class BatchModelTest : public ::testing::TestWithParam<ModelCase> {};

double Millis(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

TEST_P(BatchModelTest, Batch2EqualsTwoBatch1Runs) {
  const ModelCase& mc = GetParam();
  auto model = Model::Load(testing::SharedDir() + "/models/" + mc.file);
  ASSERT_TRUE(model.ok()) << model.status();
  const char* images[2] = {"sergey.png", "lenna.png"};
  std::vector<testing::RgbImage> pics;
  for (const char* name : images) {
    auto img = testing::LoadPng(testing::SharedDir() + "/testdata/images/" + name);
    ASSERT_TRUE(img.ok()) << img.status();
    pics.push_back(*std::move(img));
  }
  auto batched = model->WithBatch(2);
  ASSERT_TRUE(batched.ok()) << batched.status();
  EXPECT_EQ(batched->batch(), 2);
  for (size_t i = 0; i < model->inputs().size(); ++i) {
    ir::Shape want = model->inputs()[i].shape;
    want[0] = 2;
    EXPECT_EQ(batched->inputs()[i].shape, want);
  }

  // Oracle: two batch-1 reference runs.
  std::vector<std::vector<std::vector<float>>> want(2);  // [item][output]
  auto one = model->CreateRunner("reference", 1);
  ASSERT_TRUE(one.ok()) << one.status();
  for (int b = 0; b < 2; ++b) {
    for (const IoTensor& in : (*one)->Inputs())
      ASSERT_TRUE(testing::FillImageInput(pics[b], in, mc.lo, mc.hi).ok());
    ASSERT_TRUE((*one)->Invoke().ok());
    for (const IoTensor& o : (*one)->Outputs()) want[b].push_back(Floats(o));
  }
  const std::vector<std::string> backends = {"reference", "xnnpack"};
  for (const std::string& backend : backends) {
    if (FindBackend(backend) == nullptr) {
      std::printf("%s: backend %s not built\n", mc.file, backend.c_str());
      continue;
    }
    BackendOptions options;
    options.num_threads = backend == "reference" ? 1 : 2;
    options.batch = 2;
    auto runner = model->CreateRunner(backend, options);
    ASSERT_TRUE(runner.ok()) << runner.status();
    for (const IoTensor& in : (*runner)->Inputs()) {
      ASSERT_EQ(in.shape[0], 2);
      for (int b = 0; b < 2; ++b)
        ASSERT_TRUE(testing::FillImageInput(pics[b], Item(in, b, 2), mc.lo, mc.hi).ok());
    }
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE((*runner)->Invoke().ok());
    const double ms = Millis(t0);
    ASSERT_EQ((*runner)->Outputs().size(), want[0].size());
    for (size_t o = 0; o < want[0].size(); ++o) {
      const IoTensor& out = (*runner)->Outputs()[o];
      ASSERT_EQ(out.shape[0], 2) << out.name;
      double worst = 0;
      for (int b = 0; b < 2; ++b) {
        const std::vector<float> got = Floats(Item(out, b, 2));
        const std::vector<float>& w = want[b][o];
        ASSERT_EQ(got.size(), w.size());
        double max_ref = 0, max_diff = 0;
        for (size_t i = 0; i < w.size(); ++i) {
          ASSERT_TRUE(std::isfinite(got[i])) << out.name << "[" << i << "]";
          max_ref = std::max(max_ref, std::fabs(static_cast<double>(w[i])));
          max_diff = std::max(max_diff, std::fabs(static_cast<double>(got[i]) - w[i]));
        }
        const double rel = max_diff / std::max(1e-6, max_ref);
        worst = std::max(worst, rel);
        if (backend == "reference") {
          EXPECT_EQ(max_diff, 0.0) << mc.file << " item " << b << " output " << out.name;
        } else {
          EXPECT_LE(rel, mc.xnnpack_tolerance) << mc.file << " item " << b << " output " << out.name;
        }
      }
      if (o == 0) {
        std::printf("%s %s batch 2: %.1f ms; output 0 relative error vs batch-1 reference %.2e\n",
                    mc.file, backend.c_str(), ms, worst);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, BatchModelTest,
                         ::testing::ValuesIn(testing::BatchableShippedModels()),
                         [](const ::testing::TestParamInfo<ModelCase>& info) {
                           return testing::ShippedModelTestName(info.param.file);
                         });

// The attention face mesh feeds landmarks through MediaPipe's batch-1 custom
// ops: refused with the op named, at WithBatch and at CreateRunner.
TEST(BatchModelErrorsTest, FaceLandmarkWithAttentionIsRefusedNamingTheOp) {
  auto model = Model::Load(testing::SharedDir() + "/models/face_landmark_with_attention.tflite");
  ASSERT_TRUE(model.ok()) << model.status();
  const absl::Status s = model->WithBatch(2).status();
  std::printf("%s\n", s.ToString().c_str());
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("face_landmark_with_attention.tflite"), std::string::npos) << s;
  EXPECT_NE(s.message().find("custom op is defined for batch 1 only"), std::string::npos) << s;
  BackendOptions options;
  options.batch = 3;
  EXPECT_EQ(model->CreateRunner("reference", options).status().code(),
            absl::StatusCode::kUnimplemented);
  // Batch 1 is the model as loaded.
  EXPECT_TRUE(model->WithBatch(1).ok());
}

TEST(BatchModelErrorsTest, BadBatchValues) {
  auto model = Model::Load(testing::SharedDir() + "/models/hand_recrop.tflite");
  ASSERT_TRUE(model.ok()) << model.status();
  for (int bad : {0, -2}) {
    const absl::Status s = model->WithBatch(bad).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find("batch must be >= 1"), std::string::npos) << s;
    BackendOptions options;
    options.batch = bad;
    EXPECT_EQ(model->CreateRunner("reference", options).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  // A re-batched model keeps its batch with default options, and re-batches
  // from the loaded graph to any other.
  auto b4 = model->WithBatch(4);
  ASSERT_TRUE(b4.ok()) << b4.status();
  auto r4 = b4->CreateRunner("reference", 1);
  ASSERT_TRUE(r4.ok()) << r4.status();
  EXPECT_EQ((*r4)->Inputs()[0].shape[0], 4);
  auto b3 = b4->WithBatch(3);
  ASSERT_TRUE(b3.ok()) << b3.status();
  EXPECT_EQ(b3->inputs()[0].shape[0], 3);
  EXPECT_EQ(b3->WithBatch(1)->inputs()[0].shape, model->inputs()[0].shape);
}

// `sluice bench-model MODEL --batch N`: the last line keeps its format.
std::string RunBenchCli(std::vector<std::string> args) {
  CLI::App app("sluice");
  cli::AddModelCommands(app);
  std::vector<std::string> rev(args.rbegin(), args.rend());
  ::testing::internal::CaptureStdout();
  try {
    app.parse(rev);  // CLI11 takes the arguments reversed
  } catch (...) {
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  return ::testing::internal::GetCapturedStdout();
}

TEST(BatchBenchModelTest, BatchFlag) {
  const std::string model = testing::SharedDir() + "/models/hand_recrop.tflite";
  std::string out = RunBenchCli({"bench-model", model, "--backend", "reference", "--runs", "2",
                                 "--warmup", "0", "--batch", "3"});
  EXPECT_NE(out.find("batch: 3, median_ms per item="), std::string::npos) << out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  const std::string last = out.substr(out.find_last_of('\n') + 1);
  EXPECT_THAT(last, ::testing::MatchesRegex("bench-model hand_recrop\\.tflite reference 1 "
                                            "median_ms=[0-9]+\\.[0-9]+ p90_ms=[0-9]+\\.[0-9]+"));
  EXPECT_ANY_THROW(RunBenchCli({"bench-model", model, "--batch", "0"}));
  EXPECT_THROW(RunBenchCli({"bench-model",
                            testing::SharedDir() + "/models/face_landmark_with_attention.tflite",
                            "--backend", "reference", "--batch", "2"}),
               CLI::RuntimeError);
}

}  // namespace
}  // namespace sluice::inference
