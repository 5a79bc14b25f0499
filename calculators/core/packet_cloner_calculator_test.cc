#include <string>
#include <vector>

#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::sluice::testing::PacketCollector;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

struct ClonerRun {
  std::vector<std::unique_ptr<PacketCollector>> out;
};

// Feeds a@1, tick@2, tick@3, b@4, a@5, tick@6 through a cloner node.
ClonerRun RunCloner(const std::string& node) {
  ClonerRun r;
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "a"
    input_stream: "b"
    input_stream: "tick"
    )pb" + node, {"a_out", "b_out"});
  EXPECT_TRUE(c.ok()) << c.status();
  if (!c.ok()) return r;
  EXPECT_TRUE(graph.StartRun().ok());
  auto add = [&](const std::string& s, int64_t ts, int v) {
    EXPECT_TRUE(graph.AddPacketToInputStream(s, MakePacket<int>(v).At(Timestamp(ts))).ok());
  };
  add("a", 1, 10);
  add("tick", 2, 0);
  add("tick", 3, 0);
  add("b", 4, 40);
  add("a", 5, 50);
  add("tick", 6, 0);
  EXPECT_TRUE(graph.CloseAllInputStreams().ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
  r.out = std::move(*c);
  return r;
}

const char kTaggedNode[] = R"pb(
  node {
    calculator: "PacketClonerCalculator"
    input_stream: "a"
    input_stream: "b"
    input_stream: "TICK:tick"
    output_stream: "a_out"
    output_stream: "b_out"
    %s
  })pb";

std::string Node(const std::string& options) {
  std::string s = kTaggedNode;
  return s.replace(s.find("%s"), 2, options);
}

TEST(PacketClonerCalculatorTest, ClonesLatestPacketAtEveryTick) {
  ClonerRun r = RunCloner(Node(""));
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_THAT(r.out[0]->Timestamps(), ElementsAre(2, 3, 6));
  EXPECT_THAT(r.out[0]->Values<int>(), ElementsAre(10, 10, 50));
  EXPECT_THAT(r.out[1]->Timestamps(), ElementsAre(6));
  EXPECT_THAT(r.out[1]->Values<int>(), ElementsAre(40));
}

TEST(PacketClonerCalculatorTest, WaitsForAllInputsWhenAsked) {
  for (const char* field : {"output_only_when_all_inputs_received",
                            "output_packets_only_when_all_inputs_received"}) {
    ClonerRun r = RunCloner(Node(std::string(
                               "node_options: { "
                               "[type.googleapis.com/mediapipe.PacketClonerCalculatorOptions] { ") +
                           field + ": true } }"));
    ASSERT_EQ(r.out.size(), 2u) << field;
    EXPECT_THAT(r.out[0]->Timestamps(), ElementsAre(6)) << field;
    EXPECT_THAT(r.out[0]->Values<int>(), ElementsAre(50)) << field;
    EXPECT_THAT(r.out[1]->Values<int>(), ElementsAre(40)) << field;
  }
}

TEST(PacketClonerCalculatorTest, LegacyLastUntaggedInputIsTheTick) {
  ClonerRun r = RunCloner(R"pb(
    node {
      calculator: "PacketClonerCalculator"
      input_stream: "a"
      input_stream: "b"
      input_stream: "tick"
      output_stream: "a_out"
      output_stream: "b_out"
    })pb");
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_THAT(r.out[0]->Timestamps(), ElementsAre(2, 3, 6));
  EXPECT_THAT(r.out[1]->Timestamps(), ElementsAre(6));
}

TEST(PacketClonerCalculatorTest, NothingBeforeFirstInput) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "a"
    input_stream: "tick"
    node {
      calculator: "PacketClonerCalculator"
      input_stream: "a"
      input_stream: "TICK:tick"
      output_stream: "a_out"
    })pb", {"a_out"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("tick", MakePacket<int>(0).At(Timestamp(1))).ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  EXPECT_THAT((*c)[0]->Timestamps(), IsEmpty());
}

// A bound-only tick reaches the calculator as an empty packet stamped with the
// tick's settled timestamp, so the outputs' bounds follow the tick.
TEST(PacketClonerCalculatorTest, TickBoundSettlesTheOutputs) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "a"
    input_stream: "tick"
    node {
      calculator: "PacketClonerCalculator"
      input_stream: "a"
      input_stream: "TICK:tick"
      output_stream: "a_out"
    })pb", {});
  ASSERT_TRUE(c.ok()) << c.status();
  PacketCollector bounds;
  ASSERT_TRUE(bounds.Attach(&graph, "a_out", /*observe_bounds=*/true).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("a", MakePacket<int>(7).At(Timestamp(1))).ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("tick", MakePacket<int>(0).At(Timestamp(2))).ok());
  ASSERT_TRUE(graph.SetInputStreamTimestampBound("a", Timestamp(20)).ok());
  ASSERT_TRUE(graph.SetInputStreamTimestampBound("tick", Timestamp(10)).ok());
  ASSERT_TRUE(graph.WaitUntilIdle().ok());
  std::vector<Packet> seen = bounds.Packets();
  ASSERT_FALSE(seen.empty());
  EXPECT_THAT(bounds.Values<int>(), ElementsAre(7));
  // The tick settled 9: the output's bound reached 10.
  EXPECT_TRUE(seen.back().IsEmpty());
  EXPECT_EQ(seen.back().Timestamp(), Timestamp(9));
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
}

}  // namespace
}  // namespace sluice
