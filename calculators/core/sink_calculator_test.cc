#include <string>

#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::testing::ElementsAre;

TEST(SinkCalculatorTest, ConsumesAnyStreamsWithoutBlockingTheGraph) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    input_side_packet: "side"
    node { calculator: "PassThroughCalculator" input_stream: "in" output_stream: "out" }
    node {
      calculator: "SinkCalculator"
      input_stream: "in"
      input_stream: "DEBUG:out"
      input_side_packet: "side"
    })pb", {"out"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun({{"side", MakePacket<int>(1)}}).ok());
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(i).At(Timestamp(i))).ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  EXPECT_EQ((*c)[0]->Size(), 200u);
}

TEST(SinkCalculatorTest, RejectsOutputs) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    node { calculator: "SinkCalculator" input_stream: "in" output_stream: "out" })pb", {});
  EXPECT_FALSE(c.ok());
}

}  // namespace
}  // namespace sluice
