#include <string>
#include <utility>
#include <vector>

#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::testing::ElementsAre;

TEST(PreviousLoopbackCalculatorTest, EmitsPreviousLoopValueAtCurrentTimestamp) {
  CalculatorGraph graph;
  // LOOP is simply MAIN passed through, so PREV_LOOP(t_k) = MAIN(t_{k-1}).
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    node {
      calculator: "PreviousLoopbackCalculator"
      input_stream: "MAIN:in"
      input_stream: "LOOP:loop"
      input_stream_info: { tag_index: "LOOP" back_edge: true }
      output_stream: "PREV_LOOP:prev"
    }
    node { calculator: "PassThroughCalculator" input_stream: "in" output_stream: "loop" }
    node {
      calculator: "MakePairCalculator"
      input_stream: "in"
      input_stream: "prev"
      output_stream: "pair"
    }
  )pb", {"prev", "pair"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  for (auto [ts, v] : std::vector<std::pair<int64_t, int>>{{1, 10}, {2, 20}, {5, 50}, {7, 70}}) {
    ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(v).At(Timestamp(ts))).ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  EXPECT_THAT((*c)[0]->Timestamps(), ElementsAre(2, 5, 7));
  EXPECT_THAT((*c)[0]->Values<int>(), ElementsAre(10, 20, 50));
  // The first frame is seeded with "no previous value", not held back.
  auto pairs = (*c)[1]->Values<std::pair<Packet, Packet>>();
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_TRUE(pairs[0].second.IsEmpty());
  EXPECT_EQ(pairs[0].first.Get<int>(), 10);
  EXPECT_EQ(pairs[1].second.Get<int>(), 10);
  EXPECT_EQ(pairs[3].second.Get<int>(), 50);
}

TEST(PreviousLoopbackCalculatorTest, MainBoundOnlyUpdateSkipsToLastPacket) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    node {
      calculator: "PreviousLoopbackCalculator"
      input_stream: "MAIN:in"
      input_stream: "LOOP:loop"
      input_stream_info: { tag_index: "LOOP" back_edge: true }
      output_stream: "PREV_LOOP:prev"
    }
    node { calculator: "PassThroughCalculator" input_stream: "in" output_stream: "loop" }
  )pb", {"prev"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(10).At(Timestamp(1))).ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(20).At(Timestamp(2))).ok());
  ASSERT_TRUE(graph.WaitUntilIdle().ok());
  // Timestamps 3 and 4 settle without packets.
  ASSERT_TRUE(graph.SetInputStreamTimestampBound("in", Timestamp(5)).ok());
  ASSERT_TRUE(graph.WaitUntilIdle().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(50).At(Timestamp(5))).ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  // The frame at 5 gets the loop value of the last frame that had a packet.
  EXPECT_THAT((*c)[0]->Timestamps(), ElementsAre(2, 5));
  EXPECT_THAT((*c)[0]->Values<int>(), ElementsAre(10, 20));
}

// A real tracking-style cycle: sum(t) = in(t) + PREV_LOOP(t), fed back through
// a gate. When the gate drops a frame, the loop carries only a timestamp
// bound; the next frame must still run, with an empty PREV_LOOP.
TEST(PreviousLoopbackCalculatorTest, LoopWithoutPacketSettlesNextFrame) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    input_stream: "allow"
    node {
      calculator: "PreviousLoopbackCalculator"
      input_stream: "MAIN:in"
      input_stream: "LOOP:loop"
      input_stream_info: { tag_index: "LOOP" back_edge: true }
      output_stream: "PREV_LOOP:prev"
    }
    node {
      calculator: "IntAdderCalculator"
      input_stream: "in"
      input_stream: "prev"
      output_stream: "sum"
    }
    node {
      calculator: "GateCalculator"
      input_stream: "sum"
      input_stream: "ALLOW:allow"
      output_stream: "loop"
    }
  )pb", {"sum", "prev"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  const bool allow[] = {true, false, true, true};
  for (int i = 0; i < 4; ++i) {
    const Timestamp ts(i + 1);
    ASSERT_TRUE(graph.AddPacketToInputStream("allow", MakePacket<bool>(allow[i]).At(ts)).ok());
    ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(i + 1).At(ts)).ok());
    // Each frame completes before the next one is sent (no deadlock).
    ASSERT_TRUE(graph.WaitUntilIdle().ok());
    ASSERT_EQ((*c)[0]->Size(), static_cast<size_t>(i + 1)) << "frame " << i + 1 << " stalled";
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  EXPECT_THAT((*c)[0]->Values<int>(), ElementsAre(1, 3, 3, 7));
  EXPECT_THAT((*c)[1]->Timestamps(), ElementsAre(2, 4));
}

}  // namespace
}  // namespace sluice
