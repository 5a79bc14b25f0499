#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/classification.pb.h"
#include "formats/tensor.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::ClassificationList;
using testing::RunGraph;

Packet TensorAt(std::vector<int> dims, const std::vector<float>& values, int64_t ts) {
  auto* v = new std::vector<Tensor>();
  v->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape(std::move(dims)));
  auto view = (*v)[0].GetCpuWriteView();
  std::copy(values.begin(), values.end(), view.buffer<float>());
  return Adopt(v).At(Timestamp(ts));
}

std::string Graph(const std::string& options) {
  return R"(
    input_stream: "tensors"
    output_stream: "out"
    node {
      calculator: "TensorsToClassificationCalculator"
      input_stream: "TENSORS:tensors"
      output_stream: "CLASSIFICATIONS:out"
      options: { [mediapipe.TensorsToClassificationCalculatorOptions.ext] { )" +
         options + R"( } }
    })";
}

ClassificationList Classify(const std::string& options, std::vector<int> dims,
                            const std::vector<float>& scores) {
  auto run = RunGraph(Graph(options), {{"tensors", TensorAt(std::move(dims), scores, 1)}}, {"out"});
  EXPECT_TRUE(run.status.ok()) << run.status;
  if (run.outputs.empty() || run.outputs[0].size() != 1) return {};
  return run.outputs[0][0].Get<ClassificationList>();
}

TEST(TensorsToClassificationCalculatorTest, BinaryHandednessFromLabelFile) {
  const std::string path = ::testing::TempDir() + "/handedness_labels.txt";
  std::ofstream(path) << "Left\r\nRight\n";
  ClassificationList list = Classify(
      "top_k: 1 binary_classification: true label_map_path: \"" + path + "\"", {1, 1}, {0.25f});
  ASSERT_EQ(list.classification_size(), 1);
  EXPECT_EQ(list.classification(0).index(), 1);
  EXPECT_EQ(list.classification(0).label(), "Right");
  EXPECT_FLOAT_EQ(list.classification(0).score(), 0.75f);
  list = Classify("top_k: 1 binary_classification: true label_map_path: \"" + path + "\"", {1, 1},
                  {0.9f});
  EXPECT_EQ(list.classification(0).label(), "Left");
  EXPECT_FLOAT_EQ(list.classification(0).score(), 0.9f);
}

TEST(TensorsToClassificationCalculatorTest, ThresholdTopKAndInlineLabelMap) {
  const std::string labels =
      "label_map { entries { id: 0 label: \"cat\" } entries { id: 1 label: \"dog\" } "
      "entries { id: 2 label: \"eel\" } } ";
  ClassificationList all = Classify(labels + "min_score_threshold: 0.2", {1, 3}, {0.1f, 0.3f, 0.6f});
  ASSERT_EQ(all.classification_size(), 2);
  EXPECT_EQ(all.classification(0).label(), "dog");  // index order without sorting
  ClassificationList top = Classify(labels + "top_k: 2", {1, 3}, {0.5f, 0.3f, 0.6f});
  ASSERT_EQ(top.classification_size(), 2);
  EXPECT_EQ(top.classification(0).label(), "eel");
  EXPECT_EQ(top.classification(1).label(), "cat");
  ClassificationList sorted = Classify(labels + "sort_by_descending_score: true", {1, 3},
                                       {0.5f, 0.3f, 0.6f});
  ASSERT_EQ(sorted.classification_size(), 3);
  EXPECT_EQ(sorted.classification(2).label(), "dog");
  ClassificationList allowed = Classify(labels + "allow_classes: 1", {1, 3}, {0.5f, 0.3f, 0.6f});
  ASSERT_EQ(allowed.classification_size(), 1);
  EXPECT_EQ(allowed.classification(0).index(), 1);
}

// Debian's libprotobuf is not built with TSan, and its map-field code does not
// mix with TSan-instrumented inline map code (a text-format parse of any map
// field crashes), so the map-based label source is tested in the other builds.
#if !defined(__SANITIZE_THREAD__)
TEST(TensorsToClassificationCalculatorTest, LabelItemsWithDisplayNames) {
  ClassificationList list = Classify(
      "label_items { key: 0 value { name: \"cat\" display_name: \"Cat\" } } "
      "label_items { key: 1 value { name: \"dog\" } } top_k: 1",
      {1, 2}, {0.7f, 0.3f});
  ASSERT_EQ(list.classification_size(), 1);
  EXPECT_EQ(list.classification(0).label(), "cat");
  EXPECT_EQ(list.classification(0).display_name(), "Cat");
}
#endif

TEST(TensorsToClassificationCalculatorTest, MissingLabelFileIsAnError) {
  auto run = RunGraph(Graph("label_map_path: \"/nonexistent/labels.txt\""),
                      {{"tensors", TensorAt({1, 1}, {0.5f}, 1)}}, {"out"});
  ASSERT_FALSE(run.status.ok());
  EXPECT_NE(std::string(run.status.message()).find("labels.txt"), std::string::npos) << run.status;
}

}  // namespace
}  // namespace sluice
