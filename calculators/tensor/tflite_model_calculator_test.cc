#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/tensor.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/model.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::testing::HasSubstr;
using ModelPtr = std::shared_ptr<const inference::Model>;

std::string ModelPath(const std::string& file) {
  const char* shared = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(shared ? shared : "../shared", "/models/", file);
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// TfLiteModelCalculator feeding InferenceCalculator (with an OP_RESOLVER, as
// palm_detection_cpu.pbtxt does); returns the packet of inference outputs.
absl::StatusOr<Packet> InferFromBlob(const std::string& blob,
                                                  std::vector<Tensor> input) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    input_side_packet: "blob"
    node {
      calculator: "TfLiteCustomOpResolverCalculator"
      output_side_packet: "OP_RESOLVER:op_resolver"
    }
    node {
      name: "loader"
      calculator: "TfLiteModelCalculator"
      input_side_packet: "MODEL_BLOB:blob"
      output_side_packet: "MODEL:model"
    }
    node {
      calculator: "InferenceCalculator"
      input_stream: "TENSORS:in"
      output_stream: "TENSORS:out"
      input_side_packet: "MODEL:model"
      input_side_packet: "OP_RESOLVER:op_resolver"
      options { [mediapipe.InferenceCalculatorOptions.ext] { delegate { xnnpack { num_threads: 1 } } } }
    })pb", {"out"});
  if (!c.ok()) return c.status();
  if (auto s = graph.StartRun({{"blob", MakePacket<std::string>(blob)}}); !s.ok()) return s;
  // A failed Open may reject the input first; the run's own error says why.
  (void)graph.AddPacketToInputStream(
      "in", MakePacket<std::vector<Tensor>>(std::move(input)).At(Timestamp(0)));
  (void)graph.CloseAllInputStreams();
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  auto packets = (*c)[0]->Packets();
  if (packets.size() != 1) return absl::InternalError("expected one output packet");
  return packets[0];
}

std::vector<Tensor> Gradient(const std::vector<int>& dims) {
  std::vector<Tensor> tensors;
  tensors.emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape(dims));
  auto view = tensors[0].GetCpuWriteView();
  float* data = view.buffer<float>();
  for (int i = 0; i < tensors[0].shape().num_elements(); ++i) data[i] = (i % 97) / 96.0f;
  return tensors;
}

TEST(TfLiteModelCalculatorTest, ModelFromBlobRunsLikeTheFile) {
  const std::string path = ModelPath("palm_detection_lite.tflite");
  const std::string blob = ReadBytes(path);
  ASSERT_FALSE(blob.empty()) << path;
  auto input = Gradient({1, 192, 192, 3});
  auto packet = InferFromBlob(blob, Gradient({1, 192, 192, 3}));
  ASSERT_TRUE(packet.ok()) << packet.status();
  const auto* outputs = &packet->Get<std::vector<Tensor>>();

  // The same model loaded from its file and run directly.
  auto model = inference::Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status();
  auto runner = model->CreateRunner("auto", 1);
  ASSERT_TRUE(runner.ok()) << runner.status();
  auto in_view = input[0].GetCpuReadView();
  std::memcpy((*runner)->Inputs()[0].data, in_view.data(), (*runner)->Inputs()[0].bytes);
  ASSERT_TRUE((*runner)->Invoke().ok());
  ASSERT_EQ(outputs->size(), (*runner)->Outputs().size());
  for (size_t i = 0; i < outputs->size(); ++i) {
    const auto& expected = (*runner)->Outputs()[i];
    auto view = (*outputs)[i].GetCpuReadView();
    ASSERT_EQ((*outputs)[i].bytes(), expected.bytes);
    const float* got = view.buffer<float>();
    const float* want = static_cast<const float*>(expected.data);
    for (size_t k = 0; k < expected.bytes / sizeof(float); ++k) {
      ASSERT_FLOAT_EQ(got[k], want[k]) << "output " << i << " element " << k;
    }
  }
}

TEST(TfLiteModelCalculatorTest, CorruptBlobIsAnErrorNamingTheNode) {
  auto outputs = InferFromBlob("definitely not a flatbuffer", Gradient({1, 192, 192, 3}));
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(), HasSubstr("\"loader\""));
  EXPECT_THAT(outputs.status().message(), HasSubstr("MODEL_BLOB"));
}

TEST(TfLiteModelCalculatorTest, SharedModelOutputCarriesTheSameType) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_side_packet: "blob"
    node {
      calculator: "TfLiteModelCalculator"
      input_side_packet: "MODEL_BLOB:blob"
      output_side_packet: "SHARED_MODEL:model"
    })pb", {});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.Run({{"blob", MakePacket<std::string>(
                                      ReadBytes(ModelPath("hand_landmark_lite.tflite")))}})
                  .ok());
  auto model = graph.GetOutputSidePacket("model");
  ASSERT_TRUE(model.ok()) << model.status();
  auto ptr = model->TryGet<ModelPtr>();
  ASSERT_TRUE(ptr.ok()) << ptr.status();
  ASSERT_NE(**ptr, nullptr);
  EXPECT_EQ((**ptr)->inputs().size(), 1u);
}

TEST(TfLiteModelCalculatorTest, NeedsExactlyOneModelOutput) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_side_packet: "blob"
    node {
      calculator: "TfLiteModelCalculator"
      input_side_packet: "MODEL_BLOB:blob"
      output_side_packet: "MODEL:a"
      output_side_packet: "SHARED_MODEL:b"
    })pb", {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("exactly one of the output side packets"));
}

}  // namespace
}  // namespace sluice
