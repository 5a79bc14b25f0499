// Compatibility corpus: MediaPipe's own graph files (see
// $SLUICE_SHARED_DIR/mediapipe_graphs/README.md) must parse, the module graphs
// of the supported solutions must expand, and expansion must give the node
// names of MEDIAPIPE_FACTS.md appendix B.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "framework/tool/graph_config_io.h"
#include "framework/tool/options_util.h"
#include "framework/tool/subgraph_expansion.h"
#include "calculators/tensor/image_to_tensor_calculator.pb.h"
#include "calculators/tensor/inference_calculator.pb.h"
#include "framework/tool/testdata_protos/switch_container.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;
using mediapipe::CalculatorGraphConfig;
using Node = mediapipe::CalculatorGraphConfig::Node;

std::string Shared(const std::string& rel) {
  const char* dir = std::getenv("SLUICE_SHARED_DIR");
  return std::string(dir != nullptr ? dir : "/work/shared") + "/" + rel;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> FilesUnder(const fs::path& root, const std::string& ext) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ext) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// True if the first field of a text proto is a CalculatorGraphConfig field
// (the corpus also holds test-data protos of other types, e.g. landmarks).
bool LooksLikeGraphConfig(const std::string& text) {
  static const std::regex kFirstField(R"(^\s*([A-Za-z_][A-Za-z0-9_]*)\s*[:{])");
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line[line.find_first_not_of(" \t\r")] == '#') continue;
    std::smatch m;
    if (!std::regex_search(line, m, kFirstField)) return true;
    return CalculatorGraphConfig::descriptor()->FindFieldByName(m[1]) != nullptr;
  }
  return false;  // empty file
}

// Stand-ins for MediaPipe's C++ subgraphs (the real ones belong to the
// calculators): InferenceCalculator picks InferenceCalculatorCpu, keeping the
// node (and so its name); SwitchContainer becomes a demux, a mux and its
// contained nodes.
absl::StatusOr<CalculatorGraphConfig> InferenceStandIn(const Node& node) {
  Node impl = node;
  impl.set_calculator("InferenceCalculatorCpu");
  return MakeSingleNodeGraph(std::move(impl));
}

absl::StatusOr<CalculatorGraphConfig> SwitchContainerStandIn(const Node& node) {
  auto options = GetNodeOptions<mediapipe::SwitchContainerOptions>(node);
  if (!options.ok()) return options.status();
  Node demux;
  demux.set_calculator("SwitchDemuxCalculator");
  *demux.mutable_input_stream() = node.input_stream();
  Node mux;
  mux.set_calculator("SwitchMuxCalculator");
  *mux.mutable_output_stream() = node.output_stream();
  CalculatorGraphConfig g = MakeSingleNodeGraph(node);  // the interface
  g.clear_node();
  *g.add_node() = demux;
  *g.add_node() = mux;
  for (const Node& contained : options->contained_node()) *g.add_node() = contained;
  return g;
}

void RegisterCppSubgraphStandIns(SubgraphRegistry* registry) {
  ASSERT_TRUE(registry->RegisterFactory("InferenceCalculator", InferenceStandIn).ok());
  ASSERT_TRUE(registry->RegisterFactory("SwitchContainer", SwitchContainerStandIn).ok());
}

TEST(GraphCorpusTest, EveryTextGraphParses) {
  const fs::path root = Shared("mediapipe_graphs/mediapipe");
  ASSERT_TRUE(fs::is_directory(root)) << root;
  int total = 0, graphs = 0, data_files = 0, with_skipped_options = 0;
  size_t skipped_options = 0;
  for (const fs::path& path : FilesUnder(root, ".pbtxt")) {
    ++total;
    const std::string text = ReadFile(path);
    std::vector<std::string> warnings;
    auto config = ParseGraphConfigText(text, path.string(), &warnings);
    if (!LooksLikeGraphConfig(text)) {
      ++data_files;
      EXPECT_FALSE(config.ok()) << path << " parsed but was classified as data";
      continue;
    }
    EXPECT_TRUE(config.ok()) << config.status();
    if (!config.ok()) continue;
    ++graphs;
    skipped_options += warnings.size();
    if (!warnings.empty()) ++with_skipped_options;
  }
  std::cout << "[corpus] .pbtxt files: " << total << "; graph configs parsed: " << graphs
            << "; other protos (test data, not graphs): " << data_files
            << "; options skipped (types not linked): " << skipped_options << " in "
            << with_skipped_options << " files\n";
  EXPECT_EQ(total, 214);
  EXPECT_EQ(graphs + data_files, total);
}

TEST(GraphCorpusTest, BinaryGraphsParseLosslesslyAndPrintTheirOptions) {
  const fs::path root = Shared("mediapipe_graphs/binarypb");
  int count = 0;
  for (const fs::path& path : FilesUnder(root, ".binarypb")) {
    ++count;
    std::vector<std::string> warnings;
    auto config = LoadGraphConfigFile(path.string(), &warnings);
    ASSERT_TRUE(config.ok()) << config.status();
    const std::string bytes = ReadFile(path);
    // Nothing is lost: opaque options survive re-serialisation.
    EXPECT_EQ(config->SerializeAsString().size(), bytes.size()) << path;
    CalculatorGraphConfig reparsed;
    ASSERT_TRUE(reparsed.ParseFromString(config->SerializeAsString()));
    const std::string text = GraphConfigToText(*config);
    int with_options = 0;
    for (const Node& node : config->node()) {
      EXPECT_THAT(text, testing::HasSubstr("calculator: \"" + node.calculator() + "\""));
      if (node.has_options() || node.node_options_size() > 0) ++with_options;
    }
    // Every options payload is visible in the text (opaque ones as numbered
    // fields, named by a comment where the extension number is known).
    const size_t option_blocks = std::count_if(
        warnings.begin(), warnings.end(), [](const std::string&) { return true; });
    std::cout << "[corpus] " << path.filename().string() << ": " << config->node_size()
              << " nodes, " << with_options << " with options, " << option_blocks
              << " opaque options payloads, type \"" << config->type() << "\"\n";
    EXPECT_GT(config->node_size(), 0);
  }
  EXPECT_EQ(count, 6);
}

class ModuleGraphsTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    registry_ = new SubgraphRegistry();
    absl::Status status = registry_->RegisterGraphsFrom(Shared("mediapipe_graphs/mediapipe/modules"));
    ASSERT_TRUE(status.ok()) << status;
    RegisterCppSubgraphStandIns(registry_);
  }
  static SubgraphRegistry* registry_;
};
SubgraphRegistry* ModuleGraphsTest::registry_ = nullptr;

TEST_F(ModuleGraphsTest, RegisterAsExceptionsAreResolved) {
  const std::string dir = Shared("mediapipe_graphs/mediapipe/modules/face_detection/");
  EXPECT_EQ(registry_->SourceOf("FaceDetectionShortRangeCpu"),
            dir + "face_detection_short_range_cpu.pbtxt");
  EXPECT_EQ(registry_->SourceOf("FaceDetectionShortRangeByRoiCpu"),
            dir + "face_detection_short_range_by_roi_cpu.pbtxt");
  EXPECT_EQ(registry_->SourceOf("FaceDetectionShortRangeImage"),
            dir + "face_detection_short_range_image.pbtxt");
  EXPECT_EQ(registry_->SourceOf("FaceDetectionShortRangeByRoiGpu"),
            dir + "face_detection_short_range_by_roi_gpu.pbtxt");
}

TEST_F(ModuleGraphsTest, SolutionModuleGraphsExpand) {
  int expanded = 0, nodes = 0;
  size_t unapplied = 0;
  for (const char* module : {"palm_detection", "hand_landmark", "pose_detection", "pose_landmark",
                             "face_detection", "face_landmark", "selfie_segmentation"}) {
    int in_module = 0;
    for (const fs::path& path :
         FilesUnder(Shared(std::string("mediapipe_graphs/mediapipe/modules/") + module), ".pbtxt")) {
      auto config = LoadGraphConfigFile(path.string());
      ASSERT_TRUE(config.ok()) << config.status();
      ExpansionOptions options;
      std::vector<std::string> warnings;
      options.warnings = &warnings;
      absl::Status status = ExpandSubgraphs(&*config, *registry_, options);
      EXPECT_TRUE(status.ok()) << path << ": " << status;
      if (!status.ok()) continue;
      for (const Node& node : config->node()) {
        EXPECT_FALSE(registry_->IsRegistered(node.calculator())) << path;
      }
      ++expanded;
      ++in_module;
      nodes += config->node_size();
      unapplied += warnings.size();
    }
    EXPECT_GT(in_module, 0) << module;
  }
  std::cout << "[corpus] module graphs expanded: " << expanded << " (" << nodes
            << " nodes in total); option_value entries not applied (options types not "
               "linked): "
            << unapplied << "\n";
}

// Appendix B of MEDIAPIPE_FACTS.md: "### Graph" then "idx | name | calculator".
std::map<std::string, std::vector<std::pair<std::string, std::string>>> AppendixB() {
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> result;
  std::ifstream in(Shared("research/MEDIAPIPE_FACTS.md"));
  std::string line, graph;
  bool inside = false;
  static const std::regex kRow(R"(^\s*\d+ \| (\S+) \| (\S+))");
  while (std::getline(in, line)) {
    if (line.rfind("## Appendix B", 0) == 0) inside = true;
    else if (line.rfind("## Appendix C", 0) == 0) break;
    if (!inside) continue;
    if (line.rfind("### ", 0) == 0) graph = line.substr(4);
    std::smatch m;
    if (!graph.empty() && std::regex_search(line, m, kRow)) {
      result[graph].push_back({m[1] == "(unnamed)" ? "" : std::string(m[1]), m[2]});
    }
  }
  return result;
}

TEST_F(ModuleGraphsTest, ExpandedNodeNamesMatchAppendixB) {
  auto expected = AppendixB();
  ASSERT_EQ(expected.size(), 6u);
  for (const auto& [graph, rows] : expected) {
    SCOPED_TRACE(graph);
    auto config = registry_->Create(graph, Node());
    ASSERT_TRUE(config.ok()) << config.status();
    ASSERT_TRUE(ExpandSubgraphs(&*config, *registry_).ok());
    std::vector<std::pair<std::string, std::string>> actual;
    for (const Node& node : config->node()) actual.push_back({node.name(), node.calculator()});
    EXPECT_EQ(actual, rows);
    std::cout << "[appendix B] " << graph << ": " << actual.size() << " nodes\n";
  }
}

// Graph options travel three levels down (FaceDetectionShortRangeCpu ->
// FaceDetectionShortRange -> FaceDetection -> leaf nodes) via option_value.
TEST_F(ModuleGraphsTest, FaceDetectionOptionValuesReachTheLeafNodes) {
  auto config = registry_->Create("FaceDetectionShortRangeCpu", Node());
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_TRUE(ExpandSubgraphs(&*config, *registry_).ok());
  const std::string prefix = "facedetectionshortrange__facedetection__";
  const Node* image = nullptr;
  const Node* inference = nullptr;
  for (const Node& node : config->node()) {
    EXPECT_EQ(node.option_value_size(), 0) << node.name();
    if (node.name() == prefix + "ImageToTensorCalculator") image = &node;
    if (node.calculator() == "InferenceCalculatorCpu") inference = &node;
  }
  ASSERT_NE(image, nullptr);
  ASSERT_NE(inference, nullptr);
  auto image_options = GetNodeOptions<mediapipe::ImageToTensorCalculatorOptions>(*image);
  ASSERT_TRUE(image_options.ok());
  EXPECT_EQ(image_options->output_tensor_width(), 128);
  EXPECT_EQ(image_options->output_tensor_height(), 128);
  EXPECT_TRUE(image_options->keep_aspect_ratio());
  auto inference_options = GetNodeOptions<mediapipe::InferenceCalculatorOptions>(*inference);
  ASSERT_TRUE(inference_options.ok());
  EXPECT_EQ(inference_options->model_path(),
            "mediapipe/modules/face_detection/face_detection_short_range.tflite");
  EXPECT_TRUE(inference_options->delegate().has_xnnpack());
}

}  // namespace
}  // namespace sluice
