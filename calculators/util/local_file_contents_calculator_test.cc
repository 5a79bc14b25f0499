#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/classification.pb.h"
#include "formats/tensor.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;
using ::sluice::testing::InitGraphWithCollectors;
using ::testing::HasSubstr;

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs one LocalFileContentsCalculator named "reader" over `paths`; returns
// the CONTENTS side packets in order.
absl::StatusOr<std::vector<std::string>> ReadAll(const std::vector<std::string>& paths,
                                                 const std::string& options = "") {
  std::string config;
  CalculatorGraph::SidePackets side;
  std::string ports;
  for (size_t i = 0; i < paths.size(); ++i) {
    absl::StrAppend(&config, "input_side_packet: \"path", i, "\"\n");
    absl::StrAppend(&ports, "input_side_packet: \"FILE_PATH:", i, ":path", i,
                    "\" output_side_packet: \"CONTENTS:", i, ":contents", i, "\" ");
    side["path" + std::to_string(i)] = MakePacket<std::string>(paths[i]);
  }
  absl::StrAppend(&config, "node { name: \"reader\" calculator: \"LocalFileContentsCalculator\" ",
                  ports, options, " }");
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, config, {});
  if (!c.ok()) return c.status();
  if (auto s = graph.Run(side); !s.ok()) return s;
  std::vector<std::string> out;
  for (size_t i = 0; i < paths.size(); ++i) {
    auto p = graph.GetOutputSidePacket("contents" + std::to_string(i));
    if (!p.ok()) return p.status();
    out.push_back(p->Get<std::string>());
  }
  return out;
}

class LocalFileContentsCalculatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sluice_lfc_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    unsetenv("SLUICE_RESOURCE_DIR");
    fs::remove_all(dir_);
  }
  std::string Write(const std::string& name, const std::string& contents) {
    std::ofstream(dir_ / name, std::ios::binary) << contents;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(LocalFileContentsCalculatorTest, ReadsSeveralFilesByteForByte) {
  const std::string binary("\x01\x00\xff\r\n", 5);
  auto contents = ReadAll({Write("a.bin", binary), Write("b.txt", "text\n")},
                          "options { [mediapipe.LocalFileContentsCalculatorOptions.ext] "
                          "{ text_mode: true } }");
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ((*contents)[0], binary);
  EXPECT_EQ((*contents)[1], "text\n");
}

TEST_F(LocalFileContentsCalculatorTest, ResolvesRelativePathsUnderResourceRoots) {
  fs::create_directories(dir_ / "mediapipe/modules/x");
  Write("mediapipe/modules/x/data.txt", "found");
  setenv("SLUICE_RESOURCE_DIR", dir_.c_str(), 1);
  auto contents = ReadAll({"mediapipe/modules/x/data.txt"});
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ((*contents)[0], "found");
}

TEST_F(LocalFileContentsCalculatorTest, FindsMediaPipeModelPathsInTheModelFolders) {
  // The path palm_detection_model_loader.pbtxt uses; the file is one of ours.
  auto contents = ReadAll({"mediapipe/modules/palm_detection/palm_detection_full.tflite"});
  ASSERT_TRUE(contents.ok()) << contents.status();
  const char* shared = std::getenv("SLUICE_SHARED_DIR");
  const fs::path model =
      fs::path(shared ? shared : "../shared") / "models" / "palm_detection_full.tflite";
  EXPECT_EQ((*contents)[0], ReadBytes(model));
}

TEST_F(LocalFileContentsCalculatorTest, ReadsEmbeddedHandednessLabels) {
  auto contents = ReadAll({"mediapipe/modules/hand_landmark/handedness.txt"});
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ((*contents)[0], "Left\nRight\n");
}

TEST_F(LocalFileContentsCalculatorTest, MissingFileErrorNamesNodeAndPath) {
  auto contents = ReadAll({"mediapipe/modules/nowhere/missing.txt"});
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(contents.status().message(), HasSubstr("\"reader\""));
  EXPECT_THAT(contents.status().message(), HasSubstr("mediapipe/modules/nowhere/missing.txt"));
}

TEST_F(LocalFileContentsCalculatorTest, RejectsUnpairedPorts) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_side_packet: "a"
    node {
      calculator: "LocalFileContentsCalculator"
      input_side_packet: "FILE_PATH:a"
    })pb", {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("as many CONTENTS"));
}

// TensorsToClassification finds MediaPipe's label_map_path through the same
// resolver, here the embedded copy. With binary_classification the score is
// class 0's ("Left"), class 1 ("Right") gets 1 - score, as in MediaPipe.
TEST_F(LocalFileContentsCalculatorTest, HandednessLabelMapPathResolvesForClassification) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "tensors"
    node {
      calculator: "TensorsToClassificationCalculator"
      input_stream: "TENSORS:tensors"
      output_stream: "CLASSIFICATIONS:handedness"
      options {
        [mediapipe.TensorsToClassificationCalculatorOptions.ext] {
          top_k: 1
          label_map_path: "mediapipe/modules/hand_landmark/handedness.txt"
          binary_classification: true
        }
      }
    })pb", {"handedness"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun({}).ok());
  for (float score : {0.9f, 0.2f}) {
    std::vector<Tensor> tensors;
    tensors.emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape({1, 1}));
    tensors[0].GetCpuWriteView().buffer<float>()[0] = score;
    static int64_t ts = 0;
    ASSERT_TRUE(graph.AddPacketToInputStream(
        "tensors", MakePacket<std::vector<Tensor>>(std::move(tensors)).At(Timestamp(ts++))).ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  auto lists = (*c)[0]->Values<mediapipe::ClassificationList>();
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[0].classification(0).label(), "Left");
  EXPECT_EQ(lists[1].classification(0).label(), "Right");
}

}  // namespace
}  // namespace sluice
