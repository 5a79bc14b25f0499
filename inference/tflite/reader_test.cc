// The reader on real files, tiny models with known answers, and damaged or
// unsupported files (clear errors, never a crash).
#include "inference/tflite/reader.h"

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/model.h"
#include "inference/testing/test_inputs.h"
#include "inference/tflite/test_model_builder.h"

namespace sluice::inference {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::SharedDir;
using tflite::testing::BuildModel;
using tflite::testing::FloatBytes;
using tflite::testing::TestOp;
using tflite::testing::TestTensor;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Tiny(const std::string& name) { return SharedDir() + "/testdata/tiny_models/" + name; }

std::unique_ptr<Runner> MakeRunner(const Model& m) {
  auto r = m.CreateRunner("reference");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(*r) : nullptr;
}

TEST(TinyModelsTest, SquareFloatAndInt) {
  for (const char* name : {"1x3_square_float32.tflite", "1x3_square_int32.tflite"}) {
    auto m = Model::Load(Tiny(name));
    ASSERT_TRUE(m.ok()) << m.status();
    auto r = MakeRunner(*m);
    ASSERT_NE(r, nullptr);
    const IoTensor& in = r->Inputs()[0];
    ASSERT_EQ(in.shape, (ir::Shape{1, 3}));
    const bool is_int = in.dtype == ir::DType::kInt32;
    for (int i = 0; i < 3; ++i) {
      if (is_int)
        in.i32()[i] = i - 5;
      else
        in.f32()[i] = i * 1.5f - 1;
    }
    ASSERT_TRUE(r->Invoke().ok());
    const IoTensor& out = r->Outputs()[0];
    for (int i = 0; i < 3; ++i) {
      if (is_int)
        EXPECT_EQ(out.i32()[i], (i - 5) * (i - 5)) << name;
      else
        EXPECT_FLOAT_EQ(out.f32()[i], (i * 1.5f - 1) * (i * 1.5f - 1)) << name;
    }
  }
}

TEST(TinyModelsTest, AddTwiceGivesThreeTimesTheInput) {
  // test_model.tflite: add = input + input; output = add + input.
  auto m = Model::Load(Tiny("test_model.tflite"));
  ASSERT_TRUE(m.ok()) << m.status();
  auto r = MakeRunner(*m);
  ASSERT_NE(r, nullptr);
  const IoTensor& in = r->Inputs()[0];
  for (int64_t i = 0; i < in.num_elements(); ++i) in.f32()[i] = 0.25f * i;
  ASSERT_TRUE(r->Invoke().ok());
  for (int64_t i = 0; i < in.num_elements(); ++i)
    EXPECT_FLOAT_EQ(r->Outputs()[0].f32()[i], 0.75f * i);
}

TEST(TinyModelsTest, SoftmaxOverChannelsSumsToOne) {
  auto m = Model::Load(Tiny("1x256x256x3_softmax.tflite"));
  ASSERT_TRUE(m.ok()) << m.status();
  auto r = MakeRunner(*m);
  ASSERT_NE(r, nullptr);
  const IoTensor& in = r->Inputs()[0];
  for (int64_t i = 0; i < in.num_elements(); ++i) in.f32()[i] = static_cast<float>(i % 7);
  ASSERT_TRUE(r->Invoke().ok());
  const float* out = r->Outputs()[0].f32();
  for (int64_t p = 0; p < in.num_elements() / 3; p += 997) {
    EXPECT_NEAR(out[3 * p] + out[3 * p + 1] + out[3 * p + 2], 1.0f, 1e-6f);
    const float a = in.f32()[3 * p], b = in.f32()[3 * p + 1];
    EXPECT_NEAR(out[3 * p + 1] / out[3 * p], std::exp(b - a), 1e-3f);
  }
}

TEST(TinyModelsTest, ModelWithoutOpsPassesInputsThroughInTheOutputOrder) {
  auto m = Model::Load(Tiny("3in3out_model_swaps_input_2_and_0.tflite"));
  ASSERT_TRUE(m.ok()) << m.status();
  auto r = MakeRunner(*m);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->Inputs().size(), 3u);
  for (int i = 0; i < 3; ++i) r->Inputs()[i].f32()[0] = 10.0f + i;
  ASSERT_TRUE(r->Invoke().ok());
  EXPECT_EQ(r->Outputs()[0].f32()[0], 12.0f);
  EXPECT_EQ(r->Outputs()[1].f32()[0], 11.0f);
  EXPECT_EQ(r->Outputs()[2].f32()[0], 10.0f);
}

TEST(TinyModelsTest, AddWithConstantsFloatAndInt) {
  // Outputs: t6 = in1 + add/y, in3, t7 = in2 + add_1/y (int32), in0.
  auto g = tflite::ReadModelFile(Tiny("feedback_tensor_test_model.tflite"));
  ASSERT_TRUE(g.ok()) << g.status();
  const float cf = g->tensors[4].f32()[0];
  const int32_t ci = g->tensors[5].i32()[0];
  auto m = Model::Load(Tiny("feedback_tensor_test_model.tflite"));
  ASSERT_TRUE(m.ok()) << m.status();
  auto r = MakeRunner(*m);
  ASSERT_NE(r, nullptr);
  r->Inputs()[0].f32()[0] = 1.5f;
  r->Inputs()[1].f32()[0] = 2.5f;
  r->Inputs()[2].i32()[0] = 7;
  r->Inputs()[3].f32()[0] = -1;
  r->Inputs()[3].f32()[1] = -2;
  ASSERT_TRUE(r->Invoke().ok());
  EXPECT_FLOAT_EQ(r->Outputs()[0].f32()[0], 2.5f + cf);
  EXPECT_FLOAT_EQ(r->Outputs()[1].f32()[1], -2);
  EXPECT_EQ(r->Outputs()[2].i32()[0], 7 + ci);
  EXPECT_FLOAT_EQ(r->Outputs()[3].f32()[0], 1.5f);
}

TEST(ReaderTest, RealModelHasItsDeclaredIo) {
  auto g = tflite::ReadModelFile(SharedDir() + "/models/face_detection_short_range.tflite");
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->tensors[g->inputs[0]].shape, (ir::Shape{1, 128, 128, 3}));
  EXPECT_EQ(g->outputs.size(), 2u);
  int dequantize = 0;
  for (const ir::Op& op : g->ops) dequantize += op.type == ir::OpType::kDequantize;
  EXPECT_EQ(dequantize, 74);  // MODELS_INVENTORY.md
}

TEST(ReaderTest, OptionsOfARealModelMatchTheInventory) {
  // MODELS_INVENTORY.md, palm_detection_lite: option sets and their counts.
  auto g = tflite::ReadModelFile(SharedDir() + "/models/palm_detection_lite.tflite");
  ASSERT_TRUE(g.ok()) << g.status();
  int conv5s2same = 0, dw5s2same = 0, dw5s1same = 0, maxpool_same = 0, resize_half = 0, concat1 = 0;
  for (const ir::Op& op : g->ops) {
    if (op.type == ir::OpType::kConv2D) {
      const auto& o = op.opts<ir::Conv2DOptions>();
      conv5s2same += g->tensors[op.inputs[1]].shape[1] == 5 && o.stride_h == 2 && o.stride_w == 2 &&
                     o.padding == ir::Padding::kSame && o.dilation_h == 1;
    } else if (op.type == ir::OpType::kDepthwiseConv2D) {
      const auto& o = op.opts<ir::DepthwiseConv2DOptions>();
      const bool k5same = g->tensors[op.inputs[1]].shape[1] == 5 && o.padding == ir::Padding::kSame;
      dw5s2same += k5same && o.stride_w == 2;
      dw5s1same += k5same && o.stride_w == 1 && o.depth_multiplier == 1;
    } else if (op.type == ir::OpType::kMaxPool2D) {
      const auto& o = op.opts<ir::Pool2DOptions>();
      maxpool_same += o.padding == ir::Padding::kSame && o.filter_w == 2 && o.stride_h == 2;
    } else if (op.type == ir::OpType::kResizeBilinear) {
      const auto& o = op.opts<ir::ResizeBilinearOptions>();
      resize_half += o.half_pixel_centers && !o.align_corners;
    } else if (op.type == ir::OpType::kConcatenation) {
      concat1 += op.opts<ir::ConcatenationOptions>().axis == 1;
    }
  }
  EXPECT_EQ(conv5s2same, 1);
  EXPECT_EQ(dw5s2same, 4);
  EXPECT_EQ(dw5s1same, 19);
  EXPECT_EQ(maxpool_same, 4);
  EXPECT_EQ(resize_half, 2);
  EXPECT_EQ(concat1, 2);
}

TEST(ReaderTest, CustomOpOptionsAreDecoded) {
  // selfie: Convolution2DTransposeBias raw params {SAME, 2, 2};
  // face_landmark_with_attention: flexbuffer maps (MODELS_INVENTORY.md).
  auto selfie = tflite::ReadModelFile(SharedDir() + "/models/selfie_segmentation.tflite");
  ASSERT_TRUE(selfie.ok()) << selfie.status();
  int tconv = 0;
  for (const ir::Op& op : selfie->ops) {
    if (op.type != ir::OpType::kTransposeConvBias) continue;
    ++tconv;
    const auto& o = op.opts<ir::TransposeConvOptions>();
    EXPECT_EQ(o.padding, ir::Padding::kSame);
    EXPECT_EQ(o.stride_h, 2);
    EXPECT_EQ(o.stride_w, 2);
  }
  EXPECT_EQ(tconv, 1);
  auto attn = tflite::ReadModelFile(SharedDir() + "/models/face_landmark_with_attention.tflite");
  ASSERT_TRUE(attn.ok()) << attn.status();
  std::vector<int> left, counts;
  int warps = 0;
  for (const ir::Op& op : attn->ops) {
    if (op.type == ir::OpType::kLandmarksToTransformMatrix) {
      const auto& o = op.opts<ir::LandmarksToTransformMatrixOptions>();
      left.push_back(o.left_rotation_idx);
      counts.push_back(static_cast<int>(o.subset_idxs.size()));
      EXPECT_EQ(o.output_height, 16);
      EXPECT_FLOAT_EQ(o.scale_x, 1.5f);
      if (o.left_rotation_idx == 61)
        EXPECT_THAT(std::vector<int>(o.subset_idxs.begin(), o.subset_idxs.begin() + 4),
                    ElementsAre(61, 146, 91, 181));
    } else if (op.type == ir::OpType::kTransformTensorBilinear) {
      ++warps;
      EXPECT_EQ(op.opts<ir::TransformTensorBilinearOptions>().output_width, 16);
    }
  }
  EXPECT_THAT(left, ::testing::UnorderedElementsAre(61, 33, 362));
  // 71 indices are padded to 72 (the last one repeated, as MediaPipe pairs them).
  EXPECT_THAT(counts, ::testing::UnorderedElementsAre(80, 72, 72));
  EXPECT_EQ(warps, 3);
}

TEST(ReaderTest, EmptyMissingAndForeignFiles) {
  EXPECT_EQ(tflite::ReadModel("", "empty.tflite").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Model::Load("/nonexistent/x.tflite").status().code(), absl::StatusCode::kNotFound);
  std::mt19937 rng(3);
  std::string junk(4096, 0);
  for (char& c : junk) c = static_cast<char>(rng());
  const absl::Status s = tflite::ReadModel(junk, "junk.tflite").status();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("junk.tflite"));
  // Random bytes behind a valid identifier fail verification.
  junk.replace(4, 4, "TFL3");
  const absl::Status v = tflite::ReadModel(junk, "junk.tflite").status();
  EXPECT_EQ(v.code(), absl::StatusCode::kDataLoss) << v;
}

TEST(ReaderTest, TruncatedModelIsDataLoss) {
  const std::string bytes = ReadFile(SharedDir() + "/models/face_detection_short_range.tflite");
  ASSERT_GT(bytes.size(), 1000u);
  for (size_t len : {bytes.size() / 2, bytes.size() - 1, size_t{100}}) {
    const absl::Status s = tflite::ReadModel(bytes.substr(0, len), "short.tflite").status();
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << len << ": " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("short.tflite"));
  }
}

TEST(ReaderTest, EverySingleByteCorruptionOfATinyModelFailsCleanlyOrRuns) {
  // Exhaustive: each byte of a small model XOR-ed; loading must never crash,
  // and whatever loads must also compile and run.
  for (const char* name : {"test_model.tflite", "1x3_square_float32.tflite"}) {
    const std::string bytes = ReadFile(Tiny(name));
    int loaded = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (uint8_t flip : {0x01, 0x80, 0xff}) {
        std::string bad = bytes;
        bad[i] = static_cast<char>(bad[i] ^ flip);
        auto m = Model::LoadFromBuffer(bad, name);
        if (!m.ok()) continue;
        ++loaded;
        auto r = m->CreateRunner("reference");
        if (r.ok()) EXPECT_TRUE((*r)->Invoke().ok());
      }
    }
    EXPECT_GT(loaded, 0) << "some flips (names, weights) are harmless";
  }
}

TEST(ReaderTest, RandomCorruptionOfARealModelNeverCrashes) {
  // Flips in the flatbuffer's tables (file start: root, vtables; end: subgraph,
  // tensors, operators) rather than in the weight bytes.
  const std::string bytes = ReadFile(SharedDir() + "/models/hand_recrop.tflite");
  ASSERT_GT(bytes.size(), 20000u);
  const char* env = std::getenv("SLUICE_FUZZ_SEED");  // other cases locally
  std::mt19937 rng(env ? static_cast<uint32_t>(std::atoi(env)) : 11);
  int failed = 0;
  for (int trial = 0; trial < 120; ++trial) {
    std::string bad = bytes;
    for (int k = 0; k < 3; ++k) {
      const size_t region = rng() % 2 ? rng() % 2048 : bytes.size() - 1 - rng() % 16384;
      bad[region] = static_cast<char>(rng());
    }
    auto m = Model::LoadFromBuffer(bad, "hand_recrop.tflite");
    if (!m.ok()) {
      ++failed;
      EXPECT_THAT(std::string(m.status().message()), HasSubstr("hand_recrop.tflite"));
      continue;
    }
    auto r = m->CreateRunner("reference");
    if (r.ok()) EXPECT_TRUE((*r)->Invoke().ok());
  }
  EXPECT_GT(failed, 0);
}

TEST(ReaderTest, UnsupportedBuiltinAndCustomOpsAreNamed) {
  const std::vector<TestTensor> ts = {{"in", {1, 4}}, {"out", {1, 4}}};
  TestOp split;
  split.builtin_code = 49;  // SPLIT
  split.deprecated_builtin_code = 49;
  split.inputs = {0};
  split.outputs = {1};
  absl::Status s = tflite::ReadModel(BuildModel(ts, {split}, {0}, {1}), "split.tflite").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("split.tflite: operator 0 uses unsupported builtin operator code 49"));

  TestOp custom;
  custom.builtin_code = 32;
  custom.deprecated_builtin_code = 32;
  custom.custom_code = "MaxUnpooling2D";
  custom.inputs = {0};
  custom.outputs = {1};
  s = tflite::ReadModel(BuildModel(ts, {custom}, {0}, {1}), "custom.tflite").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(s.message()), HasSubstr("custom op 'MaxUnpooling2D'"));
}

TEST(ReaderTest, DeprecatedBuiltinCodeIsHonoured) {
  // Old files fill only the byte-sized code; new ones both (the larger wins).
  const std::vector<TestTensor> ts = {
      {"a", {1, 2}}, {"b", {1, 2}, 0, FloatBytes({3, 4})}, {"y", {1, 2}}};
  TestOp mul;
  mul.deprecated_builtin_code = 18;  // MUL, builtin_code left 0 (= ADD)
  mul.inputs = {0, 1};
  mul.outputs = {2};
  auto m = Model::LoadFromBuffer(BuildModel(ts, {mul}, {0}, {2}), "old.tflite");
  ASSERT_TRUE(m.ok()) << m.status();
  auto r = MakeRunner(*m);
  ASSERT_NE(r, nullptr);
  r->Inputs()[0].f32()[0] = 2;
  r->Inputs()[0].f32()[1] = 5;
  ASSERT_TRUE(r->Invoke().ok());
  EXPECT_THAT(std::vector<float>(r->Outputs()[0].f32(), r->Outputs()[0].f32() + 2),
              ElementsAre(6, 20));
}

TEST(ReaderTest, BadTensorIndexAndShapeMismatchAreRejected) {
  const std::vector<TestTensor> ts = {{"a", {1, 2}}, {"y", {1, 2}}};
  TestOp add;
  add.inputs = {0, 7};
  add.outputs = {1};
  EXPECT_EQ(tflite::ReadModel(BuildModel(ts, {add}, {0}, {1}), "idx.tflite").status().code(),
            absl::StatusCode::kDataLoss);
  // ADD of [1,2] and [1,3]: caught by the prepare phase at load time.
  const std::vector<TestTensor> ts2 = {{"a", {1, 2}}, {"b", {1, 3}}, {"y", {1, 2}}};
  add.inputs = {0, 1};
  add.outputs = {2};
  const absl::Status s =
      Model::LoadFromBuffer(BuildModel(ts2, {add}, {0, 1}, {2}), "shape.tflite").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("operator 0 (ADD) of shape.tflite"));
}

TEST(ReaderTest, ConstantWithWrongByteCountIsRejected) {
  const std::vector<TestTensor> ts = {
      {"a", {1, 2}}, {"b", {1, 2}, 0, FloatBytes({3})}, {"y", {1, 2}}};
  TestOp add;
  add.inputs = {0, 1};
  add.outputs = {2};
  const absl::Status s =
      tflite::ReadModel(BuildModel(ts, {add}, {0}, {2}), "bytes.tflite").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'b' holds 4 bytes"));
}

// Found by inference/fuzz/model_fuzzer: a mutated tiny model whose shapes asked
// for a 3.8 GB arena. Loading must refuse it, not allocate.
TEST(ReaderTest, ShapesNeedingGigabytesAreRejectedAtLoad) {
  std::ifstream in("inference/testdata/fuzz_huge_tensor.bin", std::ios::binary);
  ASSERT_TRUE(in.good());
  std::stringstream bytes;
  bytes << in.rdbuf();
  auto model = Model::LoadFromBuffer(bytes.str(), "fuzz_huge_tensor.bin");
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()),
              ::testing::AnyOf(::testing::HasSubstr("too large"),
                               ::testing::HasSubstr("elements in all")));
  EXPECT_THAT(std::string(model.status().message()),
              ::testing::HasSubstr("fuzz_huge_tensor.bin"));
}

}  // namespace
}  // namespace sluice::inference
