#include "calculators/tensor/inference_calculator.h"

#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "formats/tensor.h"
#include "inference/backend.h"
#include "framework/calculator_graph.h"
#include "framework/tool/graph_config_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

std::string ModelPath(const std::string& file) {
  const char* shared = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(shared ? shared : "../shared", "/models/", file);
}

mediapipe::CalculatorGraphConfig Config(
    const std::string& model_path,
    const std::string& delegate = "delegate { xnnpack { num_threads: 1 } }") {
  auto config = ParseGraphConfigText(absl::StrCat(R"pb(
    input_stream: "in"
    node {
      name: "landmarks"
      calculator: "InferenceCalculator"
      input_stream: "TENSORS:in"
      output_stream: "TENSORS:out"
      options {
        [mediapipe.InferenceCalculatorOptions.ext] {
          model_path: ")pb", model_path, R"pb(" )pb", delegate, R"pb(
        }
      }
    })pb"));
  EXPECT_TRUE(config.ok()) << config.status();
  return *config;
}

// A deterministic input with a gradient, so outputs depend on every pixel.
std::vector<Tensor> MakeInput(const std::vector<int>& dims) {
  std::vector<Tensor> tensors;
  tensors.emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape(dims));
  auto view = tensors[0].GetCpuWriteView();
  float* data = view.buffer<float>();
  const int n = tensors[0].shape().num_elements();
  for (int i = 0; i < n; ++i) data[i] = static_cast<float>(i % 251) / 250.0f;
  return tensors;
}

TEST(InferenceCalculatorTest, MatchesTheEngineRunDirectly) {
  const std::string path = ModelPath("hand_landmark_lite.tflite");
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Config(path)).ok());
  // The selector keeps the node's name, as MediaPipe does.
  ASSERT_EQ(graph.Config().node_size(), 1);
  EXPECT_EQ(graph.Config().node(0).calculator(), "InferenceCalculatorCpu");
  EXPECT_EQ(graph.Config().node(0).name(), "landmarks__landmarks");

  std::mutex mu;
  std::vector<Packet> got;
  ASSERT_TRUE(graph.ObserveOutputStream("out", [&](const Packet& p) {
                     std::lock_guard<std::mutex> lock(mu);
                     got.push_back(p);
                     return absl::OkStatus();
                   }).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  for (int t = 0; t < 2; ++t) {
    ASSERT_TRUE(graph.AddPacketToInputStream(
                         "in", Adopt(new std::vector<Tensor>(MakeInput({1, 224, 224, 3})))
                                   .At(Timestamp(t)))
                    .ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  absl::Status status = graph.WaitUntilDone();
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(got.size(), 2u);

  auto model = inference::Model::Load(path);
  ASSERT_TRUE(model.ok());
  // The node's CPU delegate runs the best CPU backend, never "auto" (cuda).
  auto runner =
      model->CreateRunner(inference::FindBackend("xnnpack") != nullptr ? "xnnpack" : "reference", 1);
  ASSERT_TRUE(runner.ok());
  std::vector<Tensor> input = MakeInput({1, 224, 224, 3});
  std::memcpy((*runner)->Inputs()[0].data, input[0].GetCpuReadView().data(), input[0].bytes());
  ASSERT_TRUE((*runner)->Invoke().ok());

  const auto& outputs = got[1].Get<std::vector<Tensor>>();
  ASSERT_EQ(outputs.size(), (*runner)->Outputs().size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& expected = (*runner)->Outputs()[i];
    ASSERT_EQ(outputs[i].bytes(), expected.bytes);
    const float* a = outputs[i].GetCpuReadView().buffer<float>();
    for (int64_t k = 0; k < expected.num_elements(); ++k) {
      ASSERT_EQ(a[k], expected.f32()[k]) << "output " << i << " element " << k;
    }
  }
}

// MediaPipe's GPU delegate: the cuda backend when built and a device is
// present; otherwise the CPU, with a notice (its *_gpu graphs still run).
// Either way the outputs match the engine run on the reference kernels.
TEST(InferenceCalculatorTest, GpuDelegateRunsOnCudaOrFallsBackToTheCpu) {
  const std::string path = ModelPath("hand_recrop.tflite");
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Config(path, "delegate { gpu {} }")).ok());
  std::vector<Packet> got;
  ASSERT_TRUE(graph.ObserveOutputStream("out", [&](const Packet& p) {
                     got.push_back(p);
                     return absl::OkStatus();
                   }).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  auto model = inference::Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<int> dims((*model).inputs()[0].shape.begin(), (*model).inputs()[0].shape.end());
  ASSERT_TRUE(graph.AddPacketToInputStream(
                       "in", Adopt(new std::vector<Tensor>(MakeInput(dims))).At(Timestamp(0)))
                  .ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  absl::Status status = graph.WaitUntilDone();
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(got.size(), 1u);

  auto runner = model->CreateRunner("reference", 1);
  ASSERT_TRUE(runner.ok());
  std::vector<Tensor> input = MakeInput(dims);
  std::memcpy((*runner)->Inputs()[0].data, input[0].GetCpuReadView().data(), input[0].bytes());
  ASSERT_TRUE((*runner)->Invoke().ok());
  const auto& outputs = got[0].Get<std::vector<Tensor>>();
  ASSERT_EQ(outputs.size(), (*runner)->Outputs().size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& expected = (*runner)->Outputs()[i];
    ASSERT_EQ(outputs[i].bytes(), expected.bytes);
    const float* a = outputs[i].GetCpuReadView().buffer<float>();
    for (int64_t k = 0; k < expected.num_elements(); ++k) {
      const float want = expected.f32()[k];
      ASSERT_NEAR(a[k], want, 1e-4f + 1e-4f * std::fabs(want)) << "output " << i << " element " << k;
    }
  }
}

// A tensor whose only current side is a GPU one that cannot be read (a lost
// device): the node fails with that error, instead of reading a null view.
class LostDeviceStorage : public TensorGpuStorage {
 public:
  absl::Status DownloadTo(void*, size_t) override { return absl::InternalError("device lost"); }
  absl::Status UploadFrom(const void*, size_t) override { return absl::OkStatus(); }
};

TEST(InferenceCalculatorTest, UnreadableGpuTensorIsAnErrorNotACrash) {
  const std::string path = ModelPath("hand_recrop.tflite");
  auto model = inference::Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<int> dims((*model).inputs()[0].shape.begin(), (*model).inputs()[0].shape.end());
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Config(path)).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  auto inputs = std::make_unique<std::vector<Tensor>>();
  inputs->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape(dims),
                       std::make_shared<LostDeviceStorage>());
  ASSERT_TRUE(graph.AddPacketToInputStream("in", Adopt(inputs.release()).At(Timestamp(0))).ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  const absl::Status status = graph.WaitUntilDone();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("could not be read"));
  EXPECT_THAT(status.message(), HasSubstr("device lost"));
}

TEST(InferenceCalculatorTest, MissingModelNamesThePathAndTheFix) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Config("no/such/model_xyz.tflite")).ok());
  absl::Status status = graph.Run();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("model_xyz.tflite"));
  EXPECT_THAT(status.message(), HasSubstr("fetch_models.sh"));
  EXPECT_THAT(status.message(), HasSubstr("landmarks"));
}

TEST(InferenceCalculatorTest, WrongInputShapeIsAnErrorNamingTheModelTensor) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Config(ModelPath("hand_landmark_lite.tflite"))).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream(
                       "in", Adopt(new std::vector<Tensor>(MakeInput({1, 10, 10, 3})))
                                 .At(Timestamp(0)))
                  .ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  absl::Status status = graph.WaitUntilDone();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("does not match the model's"));
  EXPECT_THAT(status.message(), HasSubstr("landmarks"));
}

TEST(InferenceCalculatorTest, ModelsAreSharedBetweenLoads) {
  auto a = LoadSharedModel(ModelPath("hand_landmark_lite.tflite"));
  auto b = LoadSharedModel(ModelPath("hand_landmark_lite.tflite"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());
}

TEST(InferenceCalculatorTest, ResolvesBareFileNamesInTheModelsFolders) {
  setenv("SLUICE_MODELS_DIR", ModelPath("").c_str(), 1);
  auto path = ResolveModelPath("mediapipe/modules/palm_detection/palm_detection_lite.tflite");
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_THAT(*path, HasSubstr("palm_detection_lite.tflite"));
}

}  // namespace
}  // namespace sluice
