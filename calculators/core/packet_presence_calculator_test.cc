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

// As in MediaPipe's pose graph: a gate in front, so a disallowed timestamp is
// settled by a bound only and must read as "absent".
TEST(PacketPresenceCalculatorTest, TrueForPacketsFalseForSettledBounds) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "value"
    input_stream: "allow"
    node {
      calculator: "GateCalculator"
      input_stream: "value"
      input_stream: "ALLOW:allow"
      output_stream: "gated"
    }
    node {
      calculator: "PacketPresenceCalculator"
      input_stream: "PACKET:gated"
      output_stream: "PRESENCE:present"
    })pb", {"present"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  const bool allows[] = {true, false, false, true};
  for (int t = 0; t < 4; ++t) {
    ASSERT_TRUE(graph.AddPacketToInputStream("value", MakePacket<int>(t).At(Timestamp(t))).ok());
    ASSERT_TRUE(graph.AddPacketToInputStream("allow", MakePacket<bool>(allows[t]).At(Timestamp(t))).ok());
    ASSERT_TRUE(graph.WaitUntilIdle().ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  EXPECT_THAT((*c)[0]->Values<bool>(), ElementsAre(true, false, false, true));
  EXPECT_THAT((*c)[0]->Timestamps(), ElementsAre(0, 1, 2, 3));
}

TEST(PacketPresenceCalculatorTest, NeedsPacketAndPresencePorts) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "a"
    node { calculator: "PacketPresenceCalculator" input_stream: "a" output_stream: "PRESENCE:p" })pb",
                                   {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("PACKET"));
}

}  // namespace
}  // namespace sluice
