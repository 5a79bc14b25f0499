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
using ::testing::IsEmpty;

struct GateRun {
  std::vector<int64_t> out_ts;
  std::vector<int64_t> change_ts;
  std::vector<bool> change;
  absl::Status status;
};

// Runs a GateCalculator node (`node_body`) fed with data packets at `data_ts`
// and, when `control` is not empty, control packets {ts, value} on "control".
GateRun RunGate(const std::string& node_body, const std::vector<int64_t>& data_ts,
                const std::vector<std::pair<int64_t, bool>>& control,
                const CalculatorGraph::SidePackets& side = {}) {
  GateRun r;
  CalculatorGraph graph;
  std::string config = "input_stream: \"data\"\n";
  if (node_body.find(":control\"") != std::string::npos) config += "input_stream: \"control\"\n";
  config += "node { calculator: \"GateCalculator\" input_stream: \"data\" output_stream: \"out\" " +
            node_body + " }";
  auto c = InitGraphWithCollectors(&graph, config, {"out"});
  if (!c.ok()) {
    r.status = c.status();
    return r;
  }
  auto change = std::make_unique<sluice::testing::PacketCollector>();
  if (node_body.find("STATE_CHANGE") != std::string::npos) {
    r.status = change->Attach(&graph, "change");
    if (!r.status.ok()) return r;
  }
  r.status = graph.StartRun(side);
  if (!r.status.ok()) return r;
  size_t ci = 0;
  for (int64_t ts : data_ts) {
    while (ci < control.size() && control[ci].first <= ts) {
      (void)graph.AddPacketToInputStream(
          "control", MakePacket<bool>(control[ci].second).At(Timestamp(control[ci].first)));
      ++ci;
    }
    (void)graph.AddPacketToInputStream("data", MakePacket<int>(1).At(Timestamp(ts)));
  }
  (void)graph.CloseAllInputStreams();
  r.status = graph.WaitUntilDone();
  r.out_ts = (*c)[0]->Timestamps();
  r.change_ts = change->Timestamps();
  r.change = change->Values<bool>();
  return r;
}

TEST(GateCalculatorTest, AllowStreamToggles) {
  GateRun r = RunGate(R"(input_stream: "ALLOW:control")", {1, 2, 3, 4, 5},
                      {{1, true}, {2, false}, {3, false}, {4, true}, {5, true}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.out_ts, ElementsAre(1, 4, 5));
}

TEST(GateCalculatorTest, DisallowStreamIsInverted) {
  GateRun r = RunGate(R"(input_stream: "DISALLOW:control")", {1, 2, 3},
                      {{1, true}, {2, false}, {3, true}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.out_ts, ElementsAre(2));
}

TEST(GateCalculatorTest, MissingControlPacketDisallowsByDefault) {
  GateRun r = RunGate(R"(input_stream: "ALLOW:control")", {1, 2, 3}, {{2, true}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.out_ts, ElementsAre(2));
}

TEST(GateCalculatorTest, EmptyPacketsAsAllow) {
  GateRun r = RunGate(R"(input_stream: "ALLOW:control"
      node_options: {
        [type.googleapis.com/mediapipe.GateCalculatorOptions] { empty_packets_as_allow: true }
      })",
                      {1, 2, 3}, {{2, false}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.out_ts, ElementsAre(1, 3));
}

TEST(GateCalculatorTest, AllowSidePacket) {
  for (bool allow : {true, false}) {
    GateRun r = RunGate(R"(input_side_packet: "ALLOW:gate_open")", {1, 2, 3}, {},
                        {{"gate_open", MakePacket<bool>(allow)}});
    ASSERT_TRUE(r.status.ok()) << r.status;
    if (allow) {
      EXPECT_THAT(r.out_ts, ElementsAre(1, 2, 3));
    } else {
      EXPECT_THAT(r.out_ts, IsEmpty());
    }
  }
}

TEST(GateCalculatorTest, DisallowSidePacket) {
  GateRun r = RunGate(R"(input_side_packet: "DISALLOW:gate_closed")", {1, 2}, {},
                      {{"gate_closed", MakePacket<bool>(false)}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.out_ts, ElementsAre(1, 2));
}

TEST(GateCalculatorTest, AllowOptionWithoutControl) {
  GateRun closed = RunGate("", {1, 2}, {});
  ASSERT_TRUE(closed.status.ok()) << closed.status;
  EXPECT_THAT(closed.out_ts, IsEmpty());
  GateRun open = RunGate(R"(options: { [mediapipe.GateCalculatorOptions.ext] { allow: true } })",
                         {1, 2}, {});
  ASSERT_TRUE(open.status.ok()) << open.status;
  EXPECT_THAT(open.out_ts, ElementsAre(1, 2));
}

TEST(GateCalculatorTest, StateChangeOnTransitionsOnly) {
  GateRun r = RunGate(R"(input_stream: "ALLOW:control" output_stream: "STATE_CHANGE:change")",
                      {1, 2, 3, 4, 5}, {{1, true}, {2, true}, {3, false}, {4, false}, {5, true}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.out_ts, ElementsAre(1, 2, 5));
  EXPECT_THAT(r.change_ts, ElementsAre(3, 5));
  EXPECT_THAT(r.change, ElementsAre(false, true));
}

TEST(GateCalculatorTest, InitialGateStateReportsFirstDecision) {
  GateRun r = RunGate(R"(input_stream: "ALLOW:control" output_stream: "STATE_CHANGE:change"
      node_options: {
        [type.googleapis.com/mediapipe.GateCalculatorOptions] { initial_gate_state: GATE_DISALLOW }
      })",
                      {1, 2}, {{1, true}, {2, true}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.change_ts, ElementsAre(1));
  EXPECT_THAT(r.change, ElementsAre(true));
}

TEST(GateCalculatorTest, RejectsStreamAndSidePacketTogether) {
  GateRun r = RunGate(R"(input_stream: "ALLOW:control" input_side_packet: "ALLOW:side")", {1}, {});
  EXPECT_FALSE(r.status.ok());
}

}  // namespace
}  // namespace sluice
