#include "framework/tool/switch_container.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "framework/tool/graph_config_io.h"
#include "framework/tool/subgraph_expansion.h"
#include "framework/tool/subgraph_registry.h"
#include "framework/tool/switch_container.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::CalculatorGraphConfig;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

std::string Shared(const std::string& rel) {
  const char* dir = std::getenv("SLUICE_SHARED_DIR");
  return std::string(dir != nullptr ? dir : "/work/shared") + "/" + rel;
}

CalculatorGraphConfig Parse(const std::string& text) {
  auto config = ParseGraphConfigText(text);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : CalculatorGraphConfig();
}

std::vector<std::string> List(const google::protobuf::RepeatedPtrField<std::string>& l) {
  return {l.begin(), l.end()};
}

const CalculatorGraphConfig::Node* FindNode(const CalculatorGraphConfig& config,
                                            const std::string& name) {
  for (const auto& node : config.node()) {
    if (node.name() == name) return &node;
  }
  return nullptr;
}

TEST(SwitchContainerTest, ChannelTagsRoundTrip) {
  EXPECT_EQ(SwitchChannelTag("PACKET", 1), "C1__PACKET");
  EXPECT_EQ(SwitchChannelTag("", 0), "C0__");
  int channel = -1;
  std::string tag;
  ASSERT_TRUE(ParseSwitchChannelTag("C12__IMAGE", &channel, &tag));
  EXPECT_EQ(channel, 12);
  EXPECT_EQ(tag, "IMAGE");
  ASSERT_TRUE(ParseSwitchChannelTag("C0__", &channel, &tag));
  EXPECT_EQ(tag, "");
  EXPECT_FALSE(ParseSwitchChannelTag("CLONE", &channel, &tag));
  EXPECT_FALSE(ParseSwitchChannelTag("IMAGE", &channel, &tag));
  EXPECT_FALSE(ParseSwitchChannelTag("Cx__IMAGE", &channel, &tag));
}

// MediaPipe's model loader: side packets only. Expanded names are MediaPipe's
// (MEDIAPIPE_FACTS appendix B), each channel gets its own c<i>__ side packet
// (named after the container's already prefixed port, then prefixed again) and
// the SELECT side packet reaches demux and mux.
TEST(SwitchContainerTest, ExpandsThePalmModelLoaderWithMediaPipesNames) {
  SubgraphRegistry registry;
  ASSERT_TRUE(registry.RegisterFactory("SwitchContainer", &ExpandSwitchContainer).ok());
  ASSERT_TRUE(registry
                  .RegisterGraphFile(Shared("mediapipe_graphs/mediapipe/modules/palm_detection/"
                                            "palm_detection_model_loader.pbtxt"))
                  .ok());
  CalculatorGraphConfig config = Parse(R"pb(
    input_side_packet: "complexity"
    node {
      calculator: "PalmDetectionModelLoader"
      input_side_packet: "MODEL_COMPLEXITY:complexity"
      output_side_packet: "MODEL:model"
    })pb");
  ASSERT_TRUE(ExpandSubgraphs(&config, registry).ok());
  const std::string p = "palmdetectionmodelloader__switchcontainer__";
  std::vector<std::string> names;
  for (const auto& node : config.node()) names.push_back(node.name());
  EXPECT_THAT(names, UnorderedElementsAre(
                         "palmdetectionmodelloader__LocalFileContentsCalculator",
                         "palmdetectionmodelloader__TfLiteModelCalculator",
                         p + "SwitchDemuxCalculator", p + "SwitchMuxCalculator",
                         p + "ConstantSidePacketCalculator_1",
                         p + "ConstantSidePacketCalculator_2"));

  const auto* mux = FindNode(config, p + "SwitchMuxCalculator");
  ASSERT_NE(mux, nullptr);
  EXPECT_THAT(List(mux->input_side_packet()),
              ElementsAre("SELECT:0:complexity",
                          "C0__PACKET:0:" + p + "c0__palmdetectionmodelloader__model_path",
                          "C1__PACKET:0:" + p + "c1__palmdetectionmodelloader__model_path"));
  EXPECT_THAT(List(mux->output_side_packet()),
              ElementsAre("PACKET:0:palmdetectionmodelloader__model_path"));
  EXPECT_TRUE(mux->input_stream().empty());  // unconnected SELECT/ENABLE streams are gone
  // The demux keeps the options (select: 1) without the contained nodes.
  ASSERT_TRUE(mux->options().HasExtension(mediapipe::SwitchContainerOptions::ext));
  const auto& mux_options = mux->options().GetExtension(mediapipe::SwitchContainerOptions::ext);
  EXPECT_EQ(mux_options.select(), 1);
  EXPECT_EQ(mux_options.contained_node_size(), 0);

  const auto* channel1 = FindNode(config, p + "ConstantSidePacketCalculator_2");
  ASSERT_NE(channel1, nullptr);
  EXPECT_THAT(List(channel1->output_side_packet()),
              ElementsAre("PACKET:0:" + p + "c1__palmdetectionmodelloader__model_path"));
  const auto* demux = FindNode(config, p + "SwitchDemuxCalculator");
  ASSERT_NE(demux, nullptr);
  EXPECT_THAT(List(demux->input_side_packet()), ElementsAre("SELECT:0:complexity"));
}

// Streams, side inputs and untagged ports are routed through every channel.
TEST(SwitchContainerTest, RoutesStreamsAndSideInputsThroughEveryChannel) {
  SubgraphRegistry registry;
  ASSERT_TRUE(registry.RegisterFactory("SwitchContainer", &ExpandSwitchContainer).ok());
  CalculatorGraphConfig config = Parse(R"pb(
    input_stream: "in"
    input_stream: "frame"
    input_stream: "choice"
    input_side_packet: "scale"
    node {
      name: "sw"
      calculator: "SwitchContainer"
      input_stream: "SELECT:choice"
      input_stream: "in"
      input_stream: "IMAGE:frame"
      input_side_packet: "SCALE:scale"
      output_stream: "out"
      options {
        [mediapipe.SwitchContainerOptions.ext] {
          contained_node { calculator: "A" }
          contained_node { calculator: "B" }
        }
      }
    })pb");
  ASSERT_TRUE(ExpandSubgraphs(&config, registry).ok());
  const auto* demux = FindNode(config, "sw__SwitchDemuxCalculator");
  ASSERT_NE(demux, nullptr);
  EXPECT_THAT(List(demux->input_stream()), ElementsAre("SELECT:0:choice", "in", "IMAGE:0:frame"));
  EXPECT_THAT(List(demux->output_stream()),
              ElementsAre("C0__:0:sw__c0__in", "C0__IMAGE:0:sw__c0__frame", "C1__:0:sw__c1__in",
                          "C1__IMAGE:0:sw__c1__frame"));
  EXPECT_THAT(List(demux->output_side_packet()),
              ElementsAre("C0__SCALE:0:sw__c0__scale", "C1__SCALE:0:sw__c1__scale"));
  const auto* b = FindNode(config, "sw__B");
  ASSERT_NE(b, nullptr);
  EXPECT_THAT(List(b->input_stream()), ElementsAre("sw__c1__in", "IMAGE:0:sw__c1__frame"));
  EXPECT_THAT(List(b->input_side_packet()), ElementsAre("SCALE:0:sw__c1__scale"));
  EXPECT_THAT(List(b->output_stream()), ElementsAre("sw__c1__out"));
  const auto* mux = FindNode(config, "sw__SwitchMuxCalculator");
  ASSERT_NE(mux, nullptr);
  EXPECT_THAT(List(mux->input_stream()),
              ElementsAre("SELECT:0:choice", "C0__:0:sw__c0__out", "C1__:0:sw__c1__out"));
  EXPECT_THAT(List(mux->output_stream()), ElementsAre("out"));
}

TEST(SwitchContainerTest, RejectsConflictingSelections) {
  auto expand = [](const std::string& node_text) {
    auto node_config = ParseGraphConfigText("node { " + node_text + " }");
    EXPECT_TRUE(node_config.ok()) << node_config.status();
    return ExpandSwitchContainer(node_config->node(0)).status();
  };
  absl::Status s = expand(R"pb(calculator: "SwitchContainer"
    options { [mediapipe.SwitchContainerOptions.ext] { select: 1 enable: true
      contained_node { calculator: "A" } } })pb");
  EXPECT_THAT(s.message(), HasSubstr("'select' and 'enable'"));
  s = expand(R"pb(calculator: "SwitchContainer" input_side_packet: "SELECT:a"
    input_side_packet: "ENABLE:b"
    options { [mediapipe.SwitchContainerOptions.ext] { contained_node { calculator: "A" } } })pb");
  EXPECT_THAT(s.message(), HasSubstr("only one of the inputs SELECT and ENABLE"));
  s = expand(R"pb(calculator: "SwitchContainer")pb");
  EXPECT_THAT(s.message(), HasSubstr("no contained_node"));
}

}  // namespace
}  // namespace sluice
