// SwitchContainer at run time: demux, contained nodes and mux together.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A SwitchContainer whose channel c outputs the side packet PACKET = "value<c>".
std::string ConstantChannels(const std::string& selection, const std::string& options) {
  std::string nodes;
  for (int c = 0; c < 3; ++c) {
    absl::StrAppend(&nodes, "contained_node { calculator: \"ConstantSidePacketCalculator\" "
                            "options { [mediapipe.ConstantSidePacketCalculatorOptions.ext] { "
                            "packet { string_value: \"value", c, "\" } } } }\n");
  }
  return absl::StrCat(R"pb(
    input_side_packet: "select"
    input_side_packet: "enable"
    node {
      calculator: "SwitchContainer"
      )pb", selection, R"pb(
      output_side_packet: "PACKET:value"
      options { [mediapipe.SwitchContainerOptions.ext] { )pb", options, " ", nodes, "} } }");
}

absl::StatusOr<std::string> SelectedValue(const std::string& config,
                                          const CalculatorGraph::SidePackets& side) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, config, {});
  if (!c.ok()) return c.status();
  if (auto s = graph.Run(side); !s.ok()) return s;
  auto value = graph.GetOutputSidePacket("value");
  if (!value.ok()) return value.status();
  return value->Get<std::string>();
}

TEST(SwitchContainerRunTest, SelectSidePacketPicksTheChannel) {
  const std::string config = ConstantChannels("input_side_packet: \"SELECT:select\"", "select: 1");
  for (int select : {0, 1, 2}) {
    auto value = SelectedValue(config, {{"select", MakePacket<int>(select)}});
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_EQ(*value, absl::StrCat("value", select));
  }
}

TEST(SwitchContainerRunTest, OptionsDecideWithoutSidePackets) {
  auto value = SelectedValue(ConstantChannels("", "select: 2"), {});
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, "value2");
  value = SelectedValue(ConstantChannels("", "enable: true"), {});
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, "value1");
  value = SelectedValue(ConstantChannels("", ""), {});
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, "value0");
}

TEST(SwitchContainerRunTest, EnableSidePacketOverridesTheOption) {
  const std::string config = ConstantChannels("input_side_packet: \"ENABLE:enable\"", "enable: true");
  auto value = SelectedValue(config, {{"enable", MakePacket<bool>(false)}});
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, "value0");
}

TEST(SwitchContainerRunTest, SelectingAMissingChannelIsAnError) {
  const std::string config = ConstantChannels("input_side_packet: \"SELECT:select\"", "");
  auto value = SelectedValue(config, {{"select", MakePacket<int>(7)}});
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.status().message(), HasSubstr("channel 7 is selected"));
}

// Streams: data at 0..8, SELECT packets 0 at t=0, 1 at t=3, 0 at t=6.
struct StreamRun {
  absl::Status status;
  std::vector<int> out, channel0, channel1;
};

StreamRun RunStreams(const std::string& channel1_node) {
  StreamRun r;
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, absl::StrCat(R"pb(
    input_stream: "in"
    input_stream: "select"
    node {
      name: "sw"
      calculator: "SwitchContainer"
      input_stream: "SELECT:select"
      input_stream: "in"
      output_stream: "out"
      options {
        [mediapipe.SwitchContainerOptions.ext] {
          contained_node { calculator: "PassThroughCalculator" }
          contained_node { )pb", channel1_node, R"pb( }
        }
      }
    })pb"), {"out", "sw__c0__in", "sw__c1__in"});
  if (!c.ok()) {
    r.status = c.status();
    return r;
  }
  r.status = graph.StartRun({});
  if (!r.status.ok()) return r;
  for (int t = 0; t < 9 && r.status.ok(); ++t) {
    if (t % 3 == 0) {
      r.status = graph.AddPacketToInputStream("select", MakePacket<int>(t == 3 ? 1 : 0).At(Timestamp(t)));
    }
    if (r.status.ok()) r.status = graph.AddPacketToInputStream("in", MakePacket<int>(t).At(Timestamp(t)));
  }
  if (r.status.ok()) r.status = graph.CloseAllInputStreams();
  if (r.status.ok()) r.status = graph.WaitUntilDone();
  r.out = (*c)[0]->Values<int>();
  r.channel0 = (*c)[1]->Values<int>();
  r.channel1 = (*c)[2]->Values<int>();
  return r;
}

TEST(SwitchContainerRunTest, SelectStreamRoutesEachTimestampToItsChannel) {
  // Untagged ports ("" tag) become C<c>__ on demux/mux.
  StreamRun r = RunStreams("calculator: \"PassThroughCalculator\"");
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.channel0, ElementsAre(0, 1, 2, 6, 7, 8));
  EXPECT_THAT(r.channel1, ElementsAre(3, 4, 5));
  EXPECT_THAT(r.out, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8));
}

TEST(SwitchContainerRunTest, MuxForwardsOnlyTheSelectedChannel) {
  // Channel 1 drops everything; the mux must not wait for it forever.
  StreamRun r = RunStreams(R"pb(calculator: "GateCalculator"
      options { [mediapipe.GateCalculatorOptions.ext] { allow: false } })pb");
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.channel1, ElementsAre(3, 4, 5));
  EXPECT_THAT(r.out, ElementsAre(0, 1, 2, 6, 7, 8));
}

}  // namespace
}  // namespace sluice
