#include "framework/tool/graph_config_io.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "calculators/core/flow_limiter_calculator.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string SharedDir() {
  const char* dir = std::getenv("SLUICE_SHARED_DIR");
  return dir != nullptr ? dir : "/work/shared";
}

std::string TempPath(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/sluice_io_test_" + name;
}

TEST(ParseGraphConfigTextTest, ParsesNodesAndLinkedOptions) {
  auto config = ParseGraphConfigText(R"pb(
    input_stream: "in"
    node {
      calculator: "FlowLimiterCalculator"
      input_stream: "in"
      output_stream: "out"
      options {
        [mediapipe.FlowLimiterCalculatorOptions.ext] { max_in_flight: 3 }
      }
      node_options {
        [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] {
          max_in_queue: 7
        }
      }
    }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->node_size(), 1);
  const auto& node = config->node(0);
  EXPECT_EQ(node.options()
                .GetExtension(mediapipe::FlowLimiterCalculatorOptions::ext)
                .max_in_flight(),
            3);
  mediapipe::FlowLimiterCalculatorOptions from_any;
  ASSERT_EQ(node.node_options_size(), 1);
  ASSERT_TRUE(node.node_options(0).UnpackTo(&from_any));
  EXPECT_EQ(from_any.max_in_queue(), 7);
}

TEST(ParseGraphConfigTextTest, SyntaxErrorsNameSourceLineAndColumn) {
  auto config = ParseGraphConfigText("node {\n  calculator: \"A\"\n  input_stream: ]\n}\n",
                                     "my_graph.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(config.status().message()), StartsWith("my_graph.pbtxt:3:17: "));
}

TEST(ParseGraphConfigTextTest, UnknownFieldOfKnownMessageIsAnError) {
  auto config = ParseGraphConfigText("node {\n  calculatr: \"A\"\n}\n", "g.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()), StartsWith("g.pbtxt:2:"));
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("calculatr"));
  // Also inside a linked options message.
  auto in_options = ParseGraphConfigText(R"pb(
    node {
      calculator: "FlowLimiterCalculator"
      node_options {
        [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] { max_in_flite: 1 }
      }
    })pb");
  ASSERT_FALSE(in_options.ok());
  EXPECT_THAT(std::string(in_options.status().message()), HasSubstr("max_in_flite"));
}

TEST(ParseGraphConfigTextTest, UnlinkedOptionsAreSkippedAndReported) {
  std::vector<std::string> warnings;
  auto config = ParseGraphConfigText(R"pb(
    graph_options { [type.googleapis.com/mediapipe.UnknownGraphOptions] { a: 1 } }
    node {
      calculator: "SomeCalculator"
      name: "some"
      options {
        [mediapipe.UnknownOptions.ext] { x: 1 nested { y: "z" } e: ENUM_VALUE }
        [mediapipe.FlowLimiterCalculatorOptions.ext] { max_in_flight: 2 }
      }
      node_options {
        [type.googleapis.com/mediapipe.UnknownNodeOptions] { list: [1, 2] m { k: 3 } }
      }
      node_options {
        [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] { max_in_queue: 4 }
      }
    })pb",
                                     "u.pbtxt", &warnings);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->graph_options_size(), 0);
  const auto& node = config->node(0);
  ASSERT_EQ(node.node_options_size(), 1);  // the unlinked one was dropped
  EXPECT_THAT(node.node_options(0).type_url(), HasSubstr("FlowLimiter"));
  EXPECT_EQ(node.options()
                .GetExtension(mediapipe::FlowLimiterCalculatorOptions::ext)
                .max_in_flight(),
            2);
  ASSERT_EQ(warnings.size(), 3u) << testing::PrintToString(warnings);
  std::string all = testing::PrintToString(warnings);
  EXPECT_THAT(all, HasSubstr("mediapipe.UnknownOptions.ext"));
  EXPECT_THAT(all, HasSubstr("mediapipe.UnknownNodeOptions"));
  EXPECT_THAT(all, HasSubstr("mediapipe.UnknownGraphOptions"));
  EXPECT_THAT(all, HasSubstr("SomeCalculator \\\"some\\\""));
}

TEST(BinaryGraphConfigTest, RoundTripsThroughAFile) {
  auto config = ParseGraphConfigText(R"pb(
    input_stream: "in"
    node {
      calculator: "FlowLimiterCalculator"
      input_stream: "in"
      input_stream: "FINISHED:out"
      input_stream_info { tag_index: "FINISHED" back_edge: true }
      output_stream: "out"
      node_options {
        [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] { max_in_flight: 5 }
      }
    })pb");
  ASSERT_TRUE(config.ok()) << config.status();
  const std::string path = TempPath("roundtrip.binarypb");
  ASSERT_TRUE(WriteGraphConfigFile(path, *config).ok());
  auto loaded = LoadGraphConfigFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*config, *loaded));
  const std::string text_path = TempPath("roundtrip.pbtxt");
  ASSERT_TRUE(WriteGraphConfigFile(text_path, *config).ok());
  auto from_text = LoadGraphConfigFile(text_path);
  ASSERT_TRUE(from_text.ok()) << from_text.status();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*config, *from_text));
  std::remove(path.c_str());
  std::remove(text_path.c_str());
}

TEST(BinaryGraphConfigTest, UnlinkedOptionsStayOpaqueAndPrintWithTheirName) {
  mediapipe::CalculatorGraphConfig config;
  auto* node = config.add_node();
  node->set_calculator("LandmarksSmoothingCalculator");
  // LandmarksSmoothingCalculatorOptions.ext = 325671429 { field 2: 1 }, not linked here.
  node->mutable_options()->GetReflection()->MutableUnknownFields(
      node->mutable_options())->AddLengthDelimited(325671429, std::string("\x10\x01", 2));
  auto* any = node->add_node_options();
  any->set_type_url("type.googleapis.com/mediapipe.NotLinkedOptions");
  any->set_value(std::string("\x08\x2a", 2));
  std::string bytes = config.SerializeAsString();
  std::vector<std::string> warnings;
  auto parsed = ParseGraphConfigBinary(bytes, "x.binarypb", &warnings);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->SerializeAsString(), bytes);
  ASSERT_EQ(warnings.size(), 2u) << testing::PrintToString(warnings);
  std::string text = GraphConfigToText(*parsed);
  EXPECT_THAT(text, HasSubstr("325671429 {"));
  EXPECT_THAT(text, HasSubstr("# [mediapipe.LandmarksSmoothingCalculatorOptions.ext]"));
  EXPECT_THAT(text, HasSubstr("[type.googleapis.com/mediapipe.NotLinkedOptions] {"));
  EXPECT_THAT(text, HasSubstr("1: 42"));
}

TEST(LoadGraphConfigFileTest, MissingFileIsNotFoundNamingThePath) {
  auto r = LoadGraphConfigFile("/nonexistent/dir/graph.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("/nonexistent/dir/graph.pbtxt"));
}

TEST(LoadGraphConfigFileTest, CorruptBinaryIsAClearError) {
  const std::string path = TempPath("corrupt.binarypb");
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string("\x0a\xff\xff\xff\x0f garbage", 13);
  }
  auto r = LoadGraphConfigFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(path));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("not a valid binary"));
  std::remove(path.c_str());
}

TEST(TypeNameFromUrlTest, TakesTextAfterLastSlash) {
  EXPECT_EQ(TypeNameFromUrl("type.googleapis.com/mediapipe.X"), "mediapipe.X");
  EXPECT_EQ(TypeNameFromUrl("mediapipe.X"), "mediapipe.X");
  EXPECT_TRUE(IsLinkedMessageType("mediapipe.CalculatorGraphConfig"));
  EXPECT_FALSE(IsLinkedMessageType("mediapipe.NoSuchThing"));
}

}  // namespace
}  // namespace sluice
