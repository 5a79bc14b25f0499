#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "calculators/util/test_util.h"
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

std::string Graph(const std::string& outputs, const std::string& options) {
  return R"(
    input_stream: "tensors"
    output_stream: "out"
    node {
      calculator: "TensorsToFloatsCalculator"
      input_stream: "TENSORS:tensors"
      output_stream: ")" +
         outputs + R"(:out"
      options: { [mediapipe.TensorsToFloatsCalculatorOptions.ext] { )" + options + R"( } }
    })";
}

TEST(TensorsToFloatsCalculatorTest, SingleFloatRawAndSigmoid) {
  auto raw = RunGraph(Graph("FLOAT", ""), {{"tensors", TensorAt({1, 1}, {0.75f}, 4)}}, {"out"});
  ASSERT_TRUE(raw.status.ok()) << raw.status;
  EXPECT_FLOAT_EQ(raw.outputs[0][0].Get<float>(), 0.75f);
  EXPECT_EQ(raw.outputs[0][0].Timestamp(), Timestamp(4));
  auto sig = RunGraph(Graph("FLOAT", "activation: SIGMOID"),
                      {{"tensors", TensorAt({1}, {2.0f}, 1)}}, {"out"});
  ASSERT_TRUE(sig.status.ok()) << sig.status;
  EXPECT_FLOAT_EQ(sig.outputs[0][0].Get<float>(), 1.0f / (1.0f + std::exp(-2.0f)));
}

TEST(TensorsToFloatsCalculatorTest, AllValues) {
  auto run = RunGraph(Graph("FLOATS", ""), {{"tensors", TensorAt({1, 3}, {1, 2, 3}, 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.outputs[0][0].Get<std::vector<float>>(), (std::vector<float>{1, 2, 3}));
}

TEST(TensorsToFloatsCalculatorTest, FloatNeedsExactlyOneValue) {
  auto run = RunGraph(Graph("FLOAT", ""), {{"tensors", TensorAt({1, 2}, {1, 2}, 1)}}, {"out"});
  EXPECT_FALSE(run.status.ok());
}

}  // namespace
}  // namespace sluice
