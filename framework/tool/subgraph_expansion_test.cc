#include "framework/tool/subgraph_expansion.h"

#include <cstdlib>
#include <thread>

#include "framework/tool/graph_config_io.h"
#include "framework/tool/options_util.h"
#include "graphs/face_detection/face_detection_options.pb.h"
#include "calculators/tensor/image_to_tensor_calculator.pb.h"
#include "calculators/tensor/inference_calculator.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::CalculatorGraphConfig;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Shared(const std::string& rel) {
  const char* dir = std::getenv("SLUICE_SHARED_DIR");
  return std::string(dir != nullptr ? dir : "/work/shared") + "/" + rel;
}

CalculatorGraphConfig Parse(const std::string& text) {
  auto config = ParseGraphConfigText(text);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : CalculatorGraphConfig();
}

std::vector<std::string> NodeNames(const CalculatorGraphConfig& config) {
  std::vector<std::string> names;
  for (const auto& node : config.node()) names.push_back(node.name());
  return names;
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(CanonicalNodeNameTest, NumbersDuplicatesInOrder) {
  CalculatorGraphConfig config = Parse(R"pb(
    node { calculator: "Gate" }
    node { calculator: "Other" }
    node { calculator: "Gate" }
    node { name: "Gate" calculator: "X" }
    node { name: "named" calculator: "Gate" })pb");
  EXPECT_EQ(CanonicalNodeName(config, 0), "Gate_1");
  EXPECT_EQ(CanonicalNodeName(config, 1), "Other");
  EXPECT_EQ(CanonicalNodeName(config, 2), "Gate_2");
  EXPECT_EQ(CanonicalNodeName(config, 3), "Gate_3");
  EXPECT_EQ(CanonicalNodeName(config, 4), "named");
  EXPECT_EQ(SubgraphPrefix("My.Sub Graph:1"), "my_sub_graph_1__");
}

TEST(ExpandSubgraphsTest, SeedPassThroughSubgraph) {
  SubgraphRegistry registry;
  ASSERT_TRUE(
      registry.RegisterGraphFile(Shared("graphs/seed_two_pass_through_subgraph.pbtxt")).ok());
  EXPECT_TRUE(registry.IsRegistered("TwoPassThroughSubgraph"));
  auto config = LoadGraphConfigFile(Shared("graphs/seed_main_pass_throughcals.pbtxt"));
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_TRUE(ExpandSubgraphs(&*config, registry).ok());
  ASSERT_EQ(config->node_size(), 4);
  EXPECT_THAT(NodeNames(*config),
              ElementsAre("", "", "twopassthroughsubgraph__PassThroughCalculator_1",
                          "twopassthroughsubgraph__PassThroughCalculator_2"));
  EXPECT_THAT(config->node(2).input_stream(), ElementsAre("out1"));
  EXPECT_THAT(config->node(2).output_stream(), ElementsAre("twopassthroughsubgraph__out2"));
  EXPECT_THAT(config->node(3).input_stream(), ElementsAre("twopassthroughsubgraph__out2"));
  EXPECT_THAT(config->node(3).output_stream(), ElementsAre("out3"));
  EXPECT_THAT(config->node(1).input_stream(), ElementsAre("out3"));
}

TEST(ExpandSubgraphsTest, SeedGraphOptionsSubgraph) {
  SubgraphRegistry registry;
  auto body = LoadGraphConfigFile(Shared("graphs/seed_graph_options_subgraph_body.pbtxt"));
  ASSERT_TRUE(body.ok()) << body.status();
  auto main = LoadGraphConfigFile(Shared("graphs/seed_flow_limiter_options.pbtxt"));
  ASSERT_TRUE(main.ok()) << main.status();

  // As written, the body declares no input_stream, so MediaPipe rejects the
  // parent's "IMAGE:" connection.
  ASSERT_TRUE(registry.RegisterGraphConfig("FaceDetectionSubgraph", *body).ok());
  CalculatorGraphConfig as_written = *main;
  absl::Status status = ExpandSubgraphs(&as_written, registry);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(Message(status), HasSubstr("tag \"IMAGE\" does not exist in the subgraph config"));
  EXPECT_THAT(Message(status), HasSubstr("FaceDetectionSubgraph"));

  // With the interface declared, option_value copies the parent's values.
  body->add_input_stream("IMAGE:multi_backend_image");
  ASSERT_TRUE(registry.RegisterGraphConfig("FaceDetectionSubgraph", *body).ok());
  ASSERT_TRUE(ExpandSubgraphs(&*main, registry).ok());
  EXPECT_THAT(NodeNames(*main), ElementsAre("", "facedetectionsubgraph__ImageToTensorCalculator",
                                            "facedetectionsubgraph__InferenceCalculator"));
  const auto& image_node = main->node(1);
  EXPECT_THAT(image_node.input_stream(), ElementsAre("IMAGE:throttled_image"));
  EXPECT_EQ(image_node.option_value_size(), 0);
  auto image = GetNodeOptions<mediapipe::ImageToTensorCalculatorOptions>(image_node);
  ASSERT_TRUE(image.ok());
  EXPECT_EQ(image->output_tensor_width(), 192);
  EXPECT_EQ(image->output_tensor_height(), 192);
  EXPECT_TRUE(image->keep_aspect_ratio());
  EXPECT_EQ(image->border_mode(), mediapipe::ImageToTensorCalculatorOptions::BORDER_ZERO);
}

TEST(ExpandSubgraphsTest, UnconnectedInputsAreDeletedAndOutputsKept) {
  SubgraphRegistry registry;
  ASSERT_TRUE(registry.RegisterGraphConfig("Sub", Parse(R"pb(
    input_stream: "IMAGE:image"
    input_stream: "ROI:roi"
    input_side_packet: "MODEL:model"
    input_side_packet: "FLAG:flag"
    output_stream: "OUT:0:a"
    output_stream: "OUT:1:b"
    node {
      calculator: "Inner"
      input_stream: "IMAGE:image"
      input_stream: "ROI:roi"
      input_side_packet: "MODEL:model"
      input_side_packet: "FLAG:flag"
      output_stream: "A:a"
      output_stream: "B:b"
    })pb")).ok());
  CalculatorGraphConfig config = Parse(R"pb(
    node {
      name: "My.Sub"
      calculator: "Sub"
      input_stream: "IMAGE:frames"
      input_side_packet: "FLAG:use_flag"
      output_stream: "OUT:first"
    })pb");
  ASSERT_TRUE(ExpandSubgraphs(&config, registry).ok());
  ASSERT_EQ(config.node_size(), 1);
  const auto& node = config.node(0);
  EXPECT_EQ(node.name(), "my_sub__Inner");
  EXPECT_THAT(node.input_stream(), ElementsAre("IMAGE:frames"));
  EXPECT_THAT(node.input_side_packet(), ElementsAre("FLAG:use_flag"));
  EXPECT_THAT(node.output_stream(), ElementsAre("A:first", "B:my_sub__b"));
}

TEST(ExpandSubgraphsTest, ErrorsForUndeclaredTagsExtraIndexesAndCalculatorFields) {
  SubgraphRegistry registry;
  ASSERT_TRUE(registry.RegisterGraphConfig("Sub", Parse(R"pb(
    input_stream: "IN:in"
    node { calculator: "Inner" input_stream: "in" })pb")).ok());
  struct Case {
    const char* node;
    const char* expected;
  };
  for (const Case& c :
       {Case{"calculator: 'Sub' input_stream: 'OTHER:x'", "tag \"OTHER\" does not exist"},
        Case{"calculator: 'Sub' input_stream: 'IN:0:x' input_stream: 'IN:1:y'",
             "has 2 indexes in the subgraph node but only 1"},
        Case{"calculator: 'Sub' buffer_size_hint: 3", "buffer_size_hint"},
        Case{"calculator: 'Sub' input_stream_info { tag_index: 'IN' back_edge: true }",
             "input_stream_info"},
        Case{"calculator: 'Sub' input_stream: 'IN:Bad'", "IN:Bad"}}) {
    CalculatorGraphConfig config = Parse(std::string("node {") + c.node + "}");
    absl::Status status = ExpandSubgraphs(&config, registry);
    ASSERT_FALSE(status.ok()) << c.node;
    EXPECT_THAT(Message(status), HasSubstr(c.expected));
    EXPECT_THAT(Message(status), HasSubstr("Sub"));
  }
}

TEST(ExpandSubgraphsTest, InfiniteRecursionIsAnError) {
  SubgraphRegistry registry;
  ASSERT_TRUE(registry.RegisterGraphConfig("Loop", Parse(R"pb(
    input_stream: "in"
    node { calculator: "Loop" input_stream: "in" })pb")).ok());
  // Mutual recursion with fan-out would otherwise double the nodes each round.
  ASSERT_TRUE(registry.RegisterGraphConfig("Ping", Parse(R"pb(
    node { calculator: "Pong" }
    node { calculator: "Pong" })pb")).ok());
  ASSERT_TRUE(registry.RegisterGraphConfig("Pong", Parse(R"pb(
    node { calculator: "Leaf" }
    node { calculator: "Ping" })pb")).ok());
  CalculatorGraphConfig config = Parse(R"pb(node { calculator: "Loop" input_stream: "x" })pb");
  absl::Status status = ExpandSubgraphs(&config, registry);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(Message(status), HasSubstr("infinite recursion"));
  EXPECT_THAT(Message(status), HasSubstr("Loop -> Loop"));
  CalculatorGraphConfig ping = Parse(R"pb(node { calculator: "Ping" })pb");
  status = ExpandSubgraphs(&ping, registry);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(Message(status), HasSubstr("Ping -> Pong -> Ping"));
  // A factory generating ever new subgraph nodes hits the backstop.
  int counter = 0;
  ASSERT_TRUE(registry
                  .RegisterFactory("Grow",
                                   [&counter](const CalculatorGraphConfig::Node&)
                                       -> absl::StatusOr<CalculatorGraphConfig> {
                                     CalculatorGraphConfig g;
                                     g.add_node()->set_calculator("Grow2");
                                     ++counter;
                                     return g;
                                   })
                  .ok());
  ASSERT_TRUE(registry
                  .RegisterFactory("Grow2",
                                   [](const CalculatorGraphConfig::Node&)
                                       -> absl::StatusOr<CalculatorGraphConfig> {
                                     CalculatorGraphConfig g;
                                     g.add_node()->set_calculator("Leaf");
                                     return g;
                                   })
                  .ok());
  CalculatorGraphConfig grow = Parse(R"pb(node { calculator: "Grow" })pb");
  ExpansionOptions tight;
  tight.max_depth = 1;
  status = ExpandSubgraphs(&grow, registry, tight);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(Message(status), HasSubstr("Grow2"));
  EXPECT_EQ(counter, 1);
}

TEST(ExpandSubgraphsTest, NestedPrefixesAccumulateAndFactoriesSeeTheNode) {
  SubgraphRegistry registry;
  ASSERT_TRUE(registry.RegisterGraphConfig("Outer", Parse(R"pb(
    input_stream: "in"
    output_stream: "out"
    node { calculator: "Mid" input_stream: "in" output_stream: "m" }
    node { calculator: "Mid" input_stream: "m" output_stream: "out" })pb")).ok());
  std::vector<std::string> seen;
  ASSERT_TRUE(registry
                  .RegisterFactory("Mid",
                                   [&seen](const CalculatorGraphConfig::Node& node)
                                       -> absl::StatusOr<CalculatorGraphConfig> {
                                     seen.push_back(node.name());
                                     CalculatorGraphConfig g;
                                     g.add_input_stream("x");
                                     g.add_output_stream("y");
                                     auto* n = g.add_node();
                                     n->set_calculator("Leaf");
                                     n->add_input_stream("x");
                                     n->add_output_stream("y");
                                     return g;
                                   })
                  .ok());
  CalculatorGraphConfig config = Parse(R"pb(
    node { calculator: "Outer" input_stream: "a" output_stream: "b" })pb");
  ASSERT_TRUE(ExpandSubgraphs(&config, registry).ok());
  EXPECT_THAT(NodeNames(config), ElementsAre("outer__mid_1__Leaf", "outer__mid_2__Leaf"));
  EXPECT_THAT(seen, ElementsAre("outer__Mid_1", "outer__Mid_2"));
  EXPECT_THAT(config.node(0).input_stream(), ElementsAre("a"));
  EXPECT_THAT(config.node(0).output_stream(), ElementsAre("outer__m"));
  EXPECT_THAT(config.node(1).output_stream(), ElementsAre("b"));
}

TEST(ExpandSubgraphsTest, FactoryErrorsNameTheNode) {
  SubgraphRegistry registry;
  ASSERT_TRUE(registry
                  .RegisterFactory("Broken",
                                   [](const CalculatorGraphConfig::Node&)
                                       -> absl::StatusOr<CalculatorGraphConfig> {
                                     return absl::InvalidArgumentError("no model");
                                   })
                  .ok());
  CalculatorGraphConfig config = Parse(R"pb(node { name: "b1" calculator: "Broken" })pb");
  absl::Status status = ExpandSubgraphs(&config, registry);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(Message(status), HasSubstr("\"b1\""));
  EXPECT_THAT(Message(status), HasSubstr("no model"));
}

TEST(SubgraphRegistryTest, EmbeddedGraphsAreRegisteredAtStaticInit) {
  SubgraphRegistry& registry = SubgraphRegistry::Get();
  ASSERT_TRUE(registry.IsRegistered("EmbeddedTestSubgraph"));
  ASSERT_TRUE(registry.IsRegistered("EmbeddedUnnamedSubgraph"));
  EXPECT_THAT(registry.SourceOf("EmbeddedTestSubgraph"), HasSubstr("<factory>"));
  CalculatorGraphConfig config = Parse(R"pb(
    node { calculator: "EmbeddedTestSubgraph" input_stream: "IN:a" output_stream: "OUT:b" }
    node { calculator: "EmbeddedUnnamedSubgraph" input_stream: "b" output_stream: "c" })pb");
  ASSERT_TRUE(ExpandSubgraphs(&config).ok());
  EXPECT_THAT(NodeNames(config),
              ElementsAre("embeddedtestsubgraph__PassThroughCalculator",
                          "embeddedunnamedsubgraph__PassThroughCalculator_1",
                          "embeddedunnamedsubgraph__PassThroughCalculator_2"));
  EXPECT_THAT(config.node(2).output_stream(), ElementsAre("c"));
}

absl::StatusOr<CalculatorGraphConfig> DoublingFactory(const CalculatorGraphConfig::Node& node) {
  CalculatorGraphConfig::Node impl = node;
  impl.set_calculator("DoublingImpl");
  return MakeSingleNodeGraph(impl);
}
const SubgraphFactoryRegistrar kDoublingRegistrar("DoublingSelector", DoublingFactory);

TEST(SubgraphRegistryTest, StaticFactoryRegistrarAndSingleNodeGraph) {
  ASSERT_TRUE(SubgraphRegistry::Get().IsRegistered("DoublingSelector"));
  CalculatorGraphConfig config = Parse(R"pb(
    node { calculator: "Gate" }
    node { calculator: "DoublingSelector" input_stream: "IN:a" output_stream: "b" }
    node { calculator: "Gate" })pb");
  ASSERT_TRUE(ExpandSubgraphs(&config).ok());
  // Stable partition: calculators keep their order, the subgraph goes last; the
  // unnamed implementation node is named after its own calculator.
  EXPECT_THAT(NodeNames(config), ElementsAre("", "", "doublingselector__DoublingImpl"));
  EXPECT_EQ(config.node(2).calculator(), "DoublingImpl");
  EXPECT_THAT(config.node(2).input_stream(), ElementsAre("IN:a"));
  EXPECT_THAT(config.node(2).output_stream(), ElementsAre("b"));
}

TEST(SubgraphRegistryTest, FileErrorsNameTheFile) {
  SubgraphRegistry registry;
  absl::Status missing = registry.RegisterGraphsFrom("/nonexistent/graphs");
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(missing), HasSubstr("/nonexistent/graphs"));
  const std::string untyped = Shared("graphs/seed_graph_options_subgraph_body.pbtxt");
  absl::Status no_type = registry.RegisterGraphFile(untyped);
  ASSERT_FALSE(no_type.ok());
  EXPECT_THAT(Message(no_type), HasSubstr(untyped));
  EXPECT_THAT(Message(no_type), HasSubstr("type"));
  ASSERT_TRUE(registry.RegisterGraphFile(untyped, "Named").ok());
  EXPECT_TRUE(registry.IsRegistered("Named"));
  EXPECT_EQ(registry.SourceOf("Named"), untyped);
  // A folder registers every typed graph in it, skipping untyped ones.
  SubgraphRegistry folder;
  ASSERT_TRUE(folder.RegisterGraphsFrom(Shared("graphs")).ok());
  EXPECT_THAT(folder.Names(), ElementsAre("TwoPassThroughSubgraph"));
}

TEST(SubgraphRegistryTest, ConcurrentUseIsSafe) {
  SubgraphRegistry registry;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&registry, t] {
      for (int i = 0; i < 200; ++i) {
        const std::string name = "G" + std::to_string(t) + "_" + std::to_string(i % 10);
        CalculatorGraphConfig g;
        g.add_node()->set_calculator("Leaf");
        EXPECT_TRUE(registry.RegisterGraphConfig(name, g).ok());
        EXPECT_TRUE(registry.IsRegistered(name));
        EXPECT_TRUE(registry.Create(name, CalculatorGraphConfig::Node()).ok());
        registry.Names();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(registry.Names().size(), 40u);
}

}  // namespace
}  // namespace sluice
