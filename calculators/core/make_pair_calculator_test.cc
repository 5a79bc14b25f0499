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

TEST(MakePairCalculatorTest, PairsPacketsOfOneTimestamp) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "a"
    input_stream: "b"
    node {
      calculator: "MakePairCalculator"
      input_stream: "a"
      input_stream: "b"
      output_stream: "pair"
    })pb", {"pair"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("a", MakePacket<int>(1).At(Timestamp(1))).ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("b", MakePacket<std::string>("x").At(Timestamp(1))).ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("a", MakePacket<int>(2).At(Timestamp(2))).ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  auto pairs = (*c)[0]->Values<std::pair<Packet, Packet>>();
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].first.Get<int>(), 1);
  EXPECT_EQ(pairs[0].second.Get<std::string>(), "x");
  EXPECT_EQ(pairs[1].first.Get<int>(), 2);
  EXPECT_TRUE(pairs[1].second.IsEmpty());
  EXPECT_THAT((*c)[0]->Timestamps(), ElementsAre(1, 2));
}

TEST(MakePairCalculatorTest, NeedsExactlyTwoInputs) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "a"
    node { calculator: "MakePairCalculator" input_stream: "a" output_stream: "pair" })pb", {});
  EXPECT_FALSE(c.ok());
}

}  // namespace
}  // namespace sluice
