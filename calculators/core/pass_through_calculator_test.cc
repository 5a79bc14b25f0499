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
using ::testing::HasSubstr;

TEST(PassThroughCalculatorTest, ForwardsEveryPortByTagAndIndex) {
  CalculatorGraph graph;
  auto collectors = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "a"
    input_stream: "b"
    node {
      calculator: "PassThroughCalculator"
      input_stream: "a"
      input_stream: "VIDEO:b"
      output_stream: "a_out"
      output_stream: "VIDEO:b_out"
    }
  )pb", {"a_out", "b_out"});
  ASSERT_TRUE(collectors.ok()) << collectors.status();
  ASSERT_TRUE(graph.StartRun().ok());
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(graph.AddPacketToInputStream("a", MakePacket<int>(i).At(Timestamp(i * 10))).ok());
    if (i % 2 == 0) {
      ASSERT_TRUE(
          graph.AddPacketToInputStream("b", MakePacket<std::string>("s" + std::to_string(i))
                                                .At(Timestamp(i * 10))).ok());
    }
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  auto& a = *(*collectors)[0];
  auto& b = *(*collectors)[1];
  EXPECT_THAT(a.Values<int>(), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_THAT(a.Timestamps(), ElementsAre(0, 10, 20, 30, 40, 50, 60, 70, 80, 90));
  EXPECT_THAT(b.Values<std::string>(), ElementsAre("s0", "s2", "s4", "s6", "s8"));
  EXPECT_THAT(b.Timestamps(), ElementsAre(0, 20, 40, 60, 80));
}

TEST(PassThroughCalculatorTest, SharesPayloadInsteadOfCopying) {
  CalculatorGraph graph;
  auto collectors = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    node { calculator: "PassThroughCalculator" input_stream: "in" output_stream: "out" }
  )pb", {"out"});
  ASSERT_TRUE(collectors.ok()) << collectors.status();
  ASSERT_TRUE(graph.StartRun().ok());
  Packet p = MakePacket<std::vector<int>>(1000, 7).At(Timestamp(5));
  ASSERT_TRUE(graph.AddPacketToInputStream("in", p).ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  auto out = (*collectors)[0]->Packets();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(&out[0].Get<std::vector<int>>(), &p.Get<std::vector<int>>());
  EXPECT_EQ(out[0].Timestamp(), Timestamp(5));
}

TEST(PassThroughCalculatorTest, ForwardsSidePackets) {
  CalculatorGraph graph;
  auto collectors = InitGraphWithCollectors(&graph, R"pb(
    input_side_packet: "side"
    node {
      calculator: "PassThroughCalculator"
      input_side_packet: "side"
      output_side_packet: "side_out"
    }
  )pb", {});
  ASSERT_TRUE(collectors.ok()) << collectors.status();
  ASSERT_TRUE(graph.Run({{"side", MakePacket<int>(42)}}).ok());
  auto out = graph.GetOutputSidePacket("side_out");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->Get<int>(), 42);
}

TEST(PassThroughCalculatorTest, RejectsMismatchedTags) {
  CalculatorGraph graph;
  auto collectors = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    node {
      calculator: "PassThroughCalculator"
      input_stream: "A:in"
      output_stream: "B:out"
    }
  )pb", {});
  ASSERT_FALSE(collectors.ok());
  EXPECT_THAT(std::string(collectors.status().message()), HasSubstr("matching tags"));
}

}  // namespace
}  // namespace sluice
