#include <string>
#include <vector>

#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::testing::ElementsAre;

// Runs a source-style node (no TICK) and returns the output timestamps.
std::vector<int64_t> RunOnce(const std::string& tag, std::vector<int>* values) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_side_packet: "v0"
    input_side_packet: "v1"
    node {
      calculator: "SidePacketToStreamCalculator"
      input_side_packet: "v0"
      input_side_packet: "v1"
      output_stream: ")pb" + tag + R"pb(:0:out0"
      output_stream: ")pb" + tag + R"pb(:1:out1"
    }
  )pb", {"out0", "out1"});
  EXPECT_TRUE(c.ok()) << c.status();
  if (!c.ok()) return {};
  EXPECT_TRUE(graph.Run({{"v0", MakePacket<int>(7)}, {"v1", MakePacket<int>(8)}}).ok());
  *values = (*c)[0]->Values<int>();
  auto second = (*c)[1]->Values<int>();
  values->insert(values->end(), second.begin(), second.end());
  return (*c)[0]->Timestamps();
}

TEST(SidePacketToStreamCalculatorTest, FixedTimestamps) {
  std::vector<int> values;
  EXPECT_THAT(RunOnce("AT_PRESTREAM", &values), ElementsAre(Timestamp::PreStream().Value()));
  EXPECT_THAT(values, ElementsAre(7, 8));
  EXPECT_THAT(RunOnce("AT_POSTSTREAM", &values), ElementsAre(Timestamp::PostStream().Value()));
  EXPECT_THAT(RunOnce("AT_ZERO", &values), ElementsAre(0));
  EXPECT_THAT(values, ElementsAre(7, 8));
}

TEST(SidePacketToStreamCalculatorTest, AtTimestampSidePacket) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_side_packet: "v"
    input_side_packet: "when"
    node {
      calculator: "SidePacketToStreamCalculator"
      input_side_packet: "v"
      input_side_packet: "TIMESTAMP:when"
      output_stream: "AT_TIMESTAMP:out"
    }
  )pb", {"out"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.Run({{"v", MakePacket<std::string>("x")},
                         {"when", MakePacket<int64_t>(12345)}}).ok());
  EXPECT_THAT((*c)[0]->Timestamps(), ElementsAre(12345));
  EXPECT_THAT((*c)[0]->Values<std::string>(), ElementsAre("x"));
}

std::vector<int64_t> RunTicks(const std::string& tag) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "tick"
    input_side_packet: "v"
    node {
      calculator: "SidePacketToStreamCalculator"
      input_stream: "TICK:tick"
      input_side_packet: "v"
      output_stream: ")pb" + tag + R"pb(:out"
    }
  )pb", {"out"});
  EXPECT_TRUE(c.ok()) << c.status();
  if (!c.ok()) return {};
  EXPECT_TRUE(graph.StartRun({{"v", MakePacket<int>(5)}}).ok());
  for (int64_t ts : {3, 9, 20}) {
    EXPECT_TRUE(graph.AddPacketToInputStream("tick", MakePacket<bool>(true).At(Timestamp(ts))).ok());
  }
  EXPECT_TRUE(graph.CloseAllInputStreams().ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
  for (int v : (*c)[0]->Values<int>()) EXPECT_EQ(v, 5);
  return (*c)[0]->Timestamps();
}

TEST(SidePacketToStreamCalculatorTest, AtTick) {
  EXPECT_THAT(RunTicks("AT_TICK"), ElementsAre(3, 9, 20));
}

TEST(SidePacketToStreamCalculatorTest, AtFirstTickOnlyOnce) {
  EXPECT_THAT(RunTicks("AT_FIRST_TICK"), ElementsAre(3));
}

TEST(SidePacketToStreamCalculatorTest, RejectsTickOutputWithoutTickInput) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_side_packet: "v"
    node {
      calculator: "SidePacketToStreamCalculator"
      input_side_packet: "v"
      output_stream: "AT_TICK:out"
    }
  )pb", {});
  EXPECT_FALSE(c.ok());
}

TEST(SidePacketToStreamCalculatorTest, RejectsUnknownTag) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_side_packet: "v"
    node {
      calculator: "SidePacketToStreamCalculator"
      input_side_packet: "v"
      output_stream: "AT_NOON:out"
    }
  )pb", {});
  EXPECT_FALSE(c.ok());
}

}  // namespace
}  // namespace sluice
