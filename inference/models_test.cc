// Every shipped MediaPipe model loads, compiles and runs on the reference
// backend with a real image, giving finite outputs of the declared shapes; a
// few outputs are checked for meaning (a face is found in a face photo).
#include <chrono>
#include <cmath>
#include <cstdio>

#include "gtest/gtest.h"
#include "inference/model.h"
#include "inference/testing/shipped_models.h"
#include "inference/testing/test_inputs.h"

namespace sluice::inference {
namespace {

using testing::FillImageInput;
using testing::LoadPng;
using testing::SharedDir;

// The shipped models and their input ranges (testing/shipped_models.h).
using ModelCase = testing::ShippedModel;
const auto& kModels = testing::kShippedModels;

class ModelTest : public ::testing::TestWithParam<ModelCase> {};

// Runs the model on sergey.png (one face, portrait) and returns the runner.
std::unique_ptr<Runner> RunOnImage(const ModelCase& mc, const Model& model) {
  auto image = LoadPng(SharedDir() + "/testdata/images/sergey.png");
  EXPECT_TRUE(image.ok()) << image.status();
  if (!image.ok()) return nullptr;
  auto runner = model.CreateRunner("reference", 1);
  EXPECT_TRUE(runner.ok()) << runner.status();
  if (!runner.ok()) return nullptr;
  for (const IoTensor& in : (*runner)->Inputs()) {
    EXPECT_TRUE(FillImageInput(*image, in, mc.lo, mc.hi).ok());
  }
  const auto t0 = std::chrono::steady_clock::now();
  const absl::Status s = (*runner)->Invoke();
  EXPECT_TRUE(s.ok()) << s;
  std::printf(
      "%s: %.1f ms on reference\n", mc.file,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  return std::move(*runner);
}

TEST_P(ModelTest, RunsOnReferenceWithFiniteOutputs) {
  const ModelCase& mc = GetParam();
  auto model = Model::Load(SharedDir() + "/models/" + mc.file);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ(model->inputs().size(), 1u);
  EXPECT_EQ(model->inputs()[0].shape.size(), 4u);
  EXPECT_EQ(model->inputs()[0].shape[3], 3);
  // Load-time passes leave no weight-conversion ops behind.
  for (const ir::Op& op : model->graph().ops) {
    EXPECT_NE(op.type, ir::OpType::kDequantize);
    EXPECT_NE(op.type, ir::OpType::kDensify);
  }
  std::unique_ptr<Runner> runner = RunOnImage(mc, *model);
  ASSERT_NE(runner, nullptr);
  ASSERT_EQ(runner->Outputs().size(), model->outputs().size());
  for (size_t o = 0; o < runner->Outputs().size(); ++o) {
    const IoTensor& out = runner->Outputs()[o];
    EXPECT_EQ(out.shape, model->outputs()[o].shape);
    int64_t bad = 0;
    for (int64_t i = 0; i < out.num_elements(); ++i) bad += !std::isfinite(out.f32()[i]);
    EXPECT_EQ(bad, 0) << "output " << out.name;
  }
}

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Runs `file` on a PNG from reference/inputs (the exact pixels MediaPipe was fed).
std::unique_ptr<Runner> RunOn(const char* file, const char* image, float lo, float hi) {
  auto model = Model::Load(SharedDir() + "/models/" + file);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return nullptr;
  auto img = LoadPng(SharedDir() + "/reference/inputs/" + image);
  EXPECT_TRUE(img.ok()) << img.status();
  if (!img.ok()) return nullptr;
  auto runner = model->CreateRunner("reference");
  EXPECT_TRUE(runner.ok()) << runner.status();
  if (!runner.ok()) return nullptr;
  EXPECT_TRUE(FillImageInput(*img, (*runner)->Inputs()[0], lo, hi).ok());
  EXPECT_TRUE((*runner)->Invoke().ok());
  return std::move(*runner);
}

float MaxScore(const IoTensor& logits) {
  float best = -1e30f;
  for (int64_t i = 0; i < logits.num_elements(); ++i) best = std::max(best, logits.f32()[i]);
  return Sigmoid(best);
}

TEST(ModelSemanticsTest, FaceDetectorFindsTheFaceAndNotTheDinosaur) {
  auto face = RunOn("face_detection_short_range.tflite", "sergey.png", -1, 1);
  auto dino = RunOn("face_detection_short_range.tflite", "dino.png", -1, 1);
  ASSERT_TRUE(face && dino);
  const float with_face = MaxScore(face->Outputs()[1]), without = MaxScore(dino->Outputs()[1]);
  std::printf("face score sergey %.3f dino %.3f\n", with_face, without);
  EXPECT_GT(with_face, 0.8f);
  EXPECT_LT(without, 0.5f);
}

TEST(ModelSemanticsTest, AttentionMeshAgreesWithPlainMesh) {
  // Both face-mesh models predict the same 468 points on the same crop; the
  // attention model runs the MediaPipe custom ops, so this checks them end to end.
  auto plain = RunOn("face_landmark.tflite", "sergey.png", 0, 1);
  auto attn = RunOn("face_landmark_with_attention.tflite", "sergey.png", 0, 1);
  ASSERT_TRUE(plain && attn);
  const IoTensor* a = nullptr;
  const IoTensor* b = nullptr;
  for (const IoTensor& t : plain->Outputs())
    if (t.num_elements() == 1404) a = &t;
  for (const IoTensor& t : attn->Outputs())
    if (t.num_elements() == 1404) b = &t;
  ASSERT_TRUE(a && b);
  double sum = 0;
  for (int i = 0; i < 468; ++i) {
    sum += std::hypot(a->f32()[3 * i] - b->f32()[3 * i], a->f32()[3 * i + 1] - b->f32()[3 * i + 1]);
  }
  std::printf("mean mesh distance %.3f px of 192\n", sum / 468);
  EXPECT_LT(sum / 468, 4.0);

  // The refined lips go through Landmarks2TransformMatrix, TransformTensorBilinear
  // and TransformLandmarks; lip point i is mesh point subset_idxs[i] of the
  // matrix op whose rotation starts at landmark 61 (the mouth corner).
  auto model = Model::Load(SharedDir() + "/models/face_landmark_with_attention.tflite");
  ASSERT_TRUE(model.ok());
  std::vector<int> lips;
  for (const ir::Op& op : model->graph().ops) {
    if (op.type != ir::OpType::kLandmarksToTransformMatrix) continue;
    const auto& o = op.opts<ir::LandmarksToTransformMatrixOptions>();
    if (o.left_rotation_idx == 61) lips = o.subset_idxs;
  }
  ASSERT_EQ(lips.size(), 80u);
  const IoTensor* refined = nullptr;
  for (const IoTensor& t : attn->Outputs())
    if (t.name == "output_lips") refined = &t;
  ASSERT_NE(refined, nullptr);
  double lip_sum = 0;
  for (int i = 0; i < 80; ++i) {
    lip_sum += std::hypot(refined->f32()[2 * i] - a->f32()[3 * lips[i]],
                          refined->f32()[2 * i + 1] - a->f32()[3 * lips[i] + 1]);
  }
  std::printf("mean lips distance %.3f px of 192\n", lip_sum / 80);
  EXPECT_LT(lip_sum / 80, 4.0);
}

TEST(ModelSemanticsTest, SelfieMaskCoversThePersonNotTheDinosaur) {
  auto person = RunOn("selfie_segmentation.tflite", "sergey.png", 0, 1);
  auto dino = RunOn("selfie_segmentation.tflite", "dino.png", 0, 1);
  ASSERT_TRUE(person && dino);
  auto mean = [](const IoTensor& t) {
    double s = 0;
    for (int64_t i = 0; i < t.num_elements(); ++i) s += t.f32()[i];
    return s / t.num_elements();
  };
  const double p = mean(person->Outputs()[0]), d = mean(dino->Outputs()[0]);
  std::printf("selfie mask mean sergey %.3f dino %.3f\n", p, d);
  EXPECT_GT(p, 0.25);
  EXPECT_LT(d, p / 2);
}

INSTANTIATE_TEST_SUITE_P(AllModels, ModelTest, ::testing::ValuesIn(kModels), [](const auto& info) {
  return testing::ShippedModelTestName(info.param.file);
});

}  // namespace
}  // namespace sluice::inference
