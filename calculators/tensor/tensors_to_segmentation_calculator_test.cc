#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/tensor.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using testing::RunGraph;

Packet TensorAt(std::vector<int> dims, const std::vector<float>& values, int64_t ts) {
  auto* v = new std::vector<Tensor>();
  v->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape(std::move(dims)));
  auto view = (*v)[0].GetCpuWriteView();
  std::copy(values.begin(), values.end(), view.buffer<float>());
  return Adopt(v).At(Timestamp(ts));
}

std::string Graph(const std::string& options, bool with_size) {
  return std::string(R"(
    input_stream: "tensors"
    input_stream: "size"
    output_stream: "mask"
    node {
      calculator: "TensorsToSegmentationCalculator"
      input_stream: "TENSORS:tensors"
      )") +
         (with_size ? "input_stream: \"OUTPUT_SIZE:size\"" : "") + R"(
      output_stream: "MASK:mask"
      options: { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] { )" +
         options + R"( } }
    })";
}

float At(const ImageFrame& f, int x, int y) { return reinterpret_cast<const float*>(f.Row(y))[x]; }

const ImageFrame& Mask(const Packet& p) {
  static std::shared_ptr<const ImageFrame> keep;
  keep = *p.Get<Image>().CpuView();
  return *keep;
}

TEST(TensorsToSegmentationCalculatorTest, NonePassesValuesAtTensorSize) {
  auto run =
      RunGraph(Graph("activation: NONE", false),
               {{"tensors", TensorAt({1, 2, 3, 1}, {0, .1f, .2f, .3f, .4f, .5f}, 7)}}, {"mask"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_EQ(run.outputs[0][0].Timestamp(), Timestamp(7));
  const ImageFrame& m = Mask(run.outputs[0][0]);
  ASSERT_EQ(m.Format(), ImageFormat::VEC32F1);
  ASSERT_EQ(m.Width(), 3);
  ASSERT_EQ(m.Height(), 2);
  EXPECT_FLOAT_EQ(At(m, 2, 0), .2f);
  EXPECT_FLOAT_EQ(At(m, 0, 1), .3f);
}

TEST(TensorsToSegmentationCalculatorTest, SigmoidAndSoftmax) {
  auto sig = RunGraph(Graph("activation: SIGMOID", false),
                      {{"tensors", TensorAt({1, 1, 1}, {2.0f}, 1)}}, {"mask"});
  ASSERT_TRUE(sig.status.ok()) << sig.status;
  EXPECT_NEAR(At(Mask(sig.outputs[0][0]), 0, 0), 1 / (1 + std::exp(-2.0)), 1e-6);
  for (int layer : {0, 1}) {
    auto soft =
        RunGraph(Graph("activation: SOFTMAX output_layer_index: " + std::to_string(layer), false),
                 {{"tensors", TensorAt({1, 1, 2}, {1.0f, 3.0f}, 1)}}, {"mask"});
    ASSERT_TRUE(soft.status.ok()) << soft.status;
    const double e0 = std::exp(1.0), e1 = std::exp(3.0);
    EXPECT_NEAR(At(Mask(soft.outputs[0][0]), 0, 0), (layer ? e1 : e0) / (e0 + e1), 1e-6);
  }
}

TEST(TensorsToSegmentationCalculatorTest, ResizesBilinearToOutputSize) {
  // 2x1 tensor [0, 1] upscaled to 4x2: pixel centres map to -0.25, 0.25,
  // 0.75, 1.25 in tensor space, clamped at the borders.
  auto run = RunGraph(Graph("", true),
                      {{"tensors", TensorAt({1, 1, 2, 1}, {0.0f, 1.0f}, 3)},
                       {"size", MakePacket<std::pair<int, int>>(4, 2).At(Timestamp(3))}},
                      {"mask"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const ImageFrame& m = Mask(run.outputs[0][0]);
  ASSERT_EQ(m.Width(), 4);
  ASSERT_EQ(m.Height(), 2);
  const float expected[] = {0.0f, 0.25f, 0.75f, 1.0f};
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 4; ++x) EXPECT_NEAR(At(m, x, y), expected[x], 1e-5) << x << "," << y;
  }
}

TEST(TensorsToSegmentationCalculatorTest, RejectsBadTensors) {
  auto three =
      RunGraph(Graph("", false), {{"tensors", TensorAt({1, 1, 1, 3}, {1, 2, 3}, 1)}}, {"mask"});
  EXPECT_FALSE(three.status.ok());
  EXPECT_NE(three.status.message().find("channels"), std::string::npos) << three.status;
  auto softmax_one = RunGraph(Graph("activation: SOFTMAX", false),
                              {{"tensors", TensorAt({1, 1, 1}, {1}, 1)}}, {"mask"});
  EXPECT_FALSE(softmax_one.status.ok());
  auto flat = RunGraph(Graph("", false), {{"tensors", TensorAt({4}, {1, 2, 3, 4}, 1)}}, {"mask"});
  EXPECT_FALSE(flat.status.ok());
}

}  // namespace
}  // namespace sluice
