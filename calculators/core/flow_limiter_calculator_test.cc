#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_base.h"
#include "framework/calculator_graph.h"
#include "framework/calculator_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::sluice::testing::PacketCollector;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::atomic<int> g_in_flight{0};
std::atomic<int> g_max_in_flight{0};

// First stage after the limiter: counts frames entering the slow section.
class EnterSlowSectionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    cc->Outputs().Index(0).SetSameAs(&cc->Inputs().Index(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    int now = ++g_in_flight;
    int seen = g_max_in_flight.load();
    while (now > seen && !g_max_in_flight.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(EnterSlowSectionCalculator);

// Last stage: the frame leaves the slow section (its output feeds FINISHED).
class LeaveSlowSectionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    cc->Outputs().Index(0).SetSameAs(&cc->Inputs().Index(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    --g_in_flight;
    cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(LeaveSlowSectionCalculator);

std::string LoopGraph(const std::string& options, const std::string& extra = "") {
  return R"pb(
    input_stream: "in"
    )pb" + extra + R"pb(
    node {
      calculator: "FlowLimiterCalculator"
      input_stream: "in"
      input_stream: "FINISHED:out"
      input_stream_info: { tag_index: "FINISHED" back_edge: true }
      output_stream: "throttled"
      output_stream: "ALLOW:allow"
      )pb" + options + R"pb(
    }
    node { calculator: "EnterSlowSectionCalculator" input_stream: "throttled" output_stream: "mid" }
    node { calculator: "LeaveSlowSectionCalculator" input_stream: "mid" output_stream: "out" }
  )pb";
}

struct LoadResult {
  std::vector<int> out_values;
  std::vector<bool> allow;
  std::vector<int64_t> allow_ts;
};

LoadResult RunUnderLoad(const std::string& config, int frames,
                        const CalculatorGraph::SidePackets& side = {}) {
  g_in_flight = 0;
  g_max_in_flight = 0;
  LoadResult r;
  CalculatorGraph graph;
  auto collectors = InitGraphWithCollectors(&graph, config, {"out", "allow"});
  EXPECT_TRUE(collectors.ok()) << collectors.status();
  if (!collectors.ok()) return r;
  EXPECT_TRUE(graph.StartRun(side).ok());
  for (int i = 0; i < frames; ++i) {
    EXPECT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(i).At(Timestamp(i))).ok());
  }
  EXPECT_TRUE(graph.CloseAllInputStreams().ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
  r.out_values = (*collectors)[0]->Values<int>();
  r.allow = (*collectors)[1]->Values<bool>();
  r.allow_ts = (*collectors)[1]->Timestamps();
  return r;
}

TEST(FlowLimiterCalculatorTest, KeepsAtMostOneFrameInFlightUnderLoad) {
  LoadResult r = RunUnderLoad(LoopGraph(""), 100);
  EXPECT_LE(g_max_in_flight.load(), 1);
  EXPECT_EQ(g_in_flight.load(), 0);
  // One ALLOW decision per input frame, in timestamp order.
  ASSERT_EQ(r.allow.size(), 100u);
  EXPECT_TRUE(std::is_sorted(r.allow_ts.begin(), r.allow_ts.end()));
  const int allowed = static_cast<int>(std::count(r.allow.begin(), r.allow.end(), true));
  EXPECT_EQ(allowed, static_cast<int>(r.out_values.size()));
  EXPECT_GT(100 - allowed, 0) << "a slow downstream must cause drops";
  EXPECT_TRUE(r.allow[0]) << "the first frame always goes through";
  // Released frames are exactly the ones reported allowed, in order.
  std::vector<int> expected;
  for (int i = 0; i < 100; ++i) {
    if (r.allow[i]) expected.push_back(static_cast<int>(r.allow_ts[i]));
  }
  EXPECT_EQ(r.out_values, expected);
}

TEST(FlowLimiterCalculatorTest, MaxInFlightSidePacketOverridesOptions) {
  LoadResult r = RunUnderLoad(LoopGraph("input_side_packet: \"MAX_IN_FLIGHT:n\""), 100,
                              {{"n", MakePacket<int>(2)}});
  EXPECT_LE(g_max_in_flight.load(), 2);
  ASSERT_EQ(r.allow.size(), 100u);
  EXPECT_TRUE(r.allow[0] && r.allow[1]) << "two frames fit in flight at the start";
}

TEST(FlowLimiterCalculatorTest, QueuedFrameIsReleasedAtTheEnd) {
  LoadResult r = RunUnderLoad(LoopGraph(R"pb(
    node_options: {
      [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] {
        max_in_flight: 1
        max_in_queue: 1
      }
    })pb"), 50);
  EXPECT_LE(g_max_in_flight.load(), 1);
  ASSERT_FALSE(r.out_values.empty());
  // With a queue of one, the newest frame waits and is eventually released.
  EXPECT_EQ(r.out_values.back(), 49);
  EXPECT_EQ(r.allow.size(), 50u);
}

// FINISHED comes from a graph input the test controls: fully deterministic.
class ManualFlowLimiterTest : public ::testing::Test {
 protected:
  void Start(const std::string& options) {
    auto c = InitGraphWithCollectors(&graph_, R"pb(
      input_stream: "in"
      input_stream: "finished"
      node {
        calculator: "FlowLimiterCalculator"
        input_stream: "in"
        input_stream: "FINISHED:finished"
        output_stream: "throttled"
        output_stream: "ALLOW:allow"
        )pb" + options + R"pb(
      }
    )pb", {"throttled", "allow"});
    ASSERT_TRUE(c.ok()) << c.status();
    collectors_ = std::move(*c);
    ASSERT_TRUE(graph_.StartRun().ok());
  }
  void Frame(int64_t ts) {
    ASSERT_TRUE(graph_.AddPacketToInputStream("in", MakePacket<int>(0).At(Timestamp(ts))).ok());
    ASSERT_TRUE(graph_.WaitUntilIdle().ok());
  }
  void Finished(int64_t ts) {
    ASSERT_TRUE(
        graph_.AddPacketToInputStream("finished", MakePacket<int>(0).At(Timestamp(ts))).ok());
    ASSERT_TRUE(graph_.WaitUntilIdle().ok());
  }
  void TearDown() override {
    EXPECT_TRUE(graph_.CloseAllInputStreams().ok());
    EXPECT_TRUE(graph_.WaitUntilDone().ok());
  }
  PacketCollector& throttled() { return *collectors_[0]; }
  PacketCollector& allow() { return *collectors_[1]; }

  CalculatorGraph graph_;
  std::vector<std::unique_ptr<PacketCollector>> collectors_;
};

TEST_F(ManualFlowLimiterTest, DropsWhileBusyAndReleasesAfterFinished) {
  Start("");
  Frame(0);
  Frame(10);
  Frame(20);
  EXPECT_THAT(throttled().Timestamps(), ElementsAre(0));
  EXPECT_THAT(allow().Values<bool>(), ElementsAre(true, false, false));
  Finished(0);
  Frame(30);
  EXPECT_THAT(throttled().Timestamps(), ElementsAre(0, 30));
  EXPECT_THAT(allow().Timestamps(), ElementsAre(0, 10, 20, 30));
  EXPECT_THAT(allow().Values<bool>(), ElementsAre(true, false, false, true));
}

TEST_F(ManualFlowLimiterTest, QueuedFrameWaitsForFinished) {
  Start(R"pb(node_options: {
    [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] { max_in_queue: 1 }
  })pb");
  Frame(0);
  Frame(10);  // queued
  Frame(20);  // replaces 10 in the queue: 10 is dropped
  EXPECT_THAT(throttled().Timestamps(), ElementsAre(0));
  EXPECT_THAT(allow().Timestamps(), ElementsAre(0, 10));
  Finished(0);
  EXPECT_THAT(throttled().Timestamps(), ElementsAre(0, 20));
  EXPECT_THAT(allow().Values<bool>(), ElementsAre(true, false, true));
}

TEST_F(ManualFlowLimiterTest, InFlightTimeoutAbandonsStuckFrames) {
  Start(R"pb(options: {
    [mediapipe.FlowLimiterCalculatorOptions.ext] { in_flight_timeout: 100 }
  })pb");
  Frame(0);
  Frame(50);   // 0 in flight for 50 us: still counts
  Frame(200);  // 0 in flight for 200 us > 100: abandoned, 200 goes through
  EXPECT_THAT(throttled().Timestamps(), ElementsAre(0, 200));
  EXPECT_THAT(allow().Values<bool>(), ElementsAre(true, false, true));
}

// The pipeline drops some frames (the gate): FINISHED then carries only a
// timestamp bound for them, which must retire the frame as well.
TEST(FlowLimiterCalculatorTest, BoundOnlyFinishedRetiresFrame) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    input_stream: "keep"
    node {
      calculator: "FlowLimiterCalculator"
      input_stream: "in"
      input_stream: "FINISHED:out"
      input_stream_info: { tag_index: "FINISHED" back_edge: true }
      output_stream: "throttled"
    }
    node {
      calculator: "GateCalculator"
      input_stream: "throttled"
      input_stream: "ALLOW:keep"
      output_stream: "out"
    }
  )pb", {"throttled", "out"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  for (int i = 0; i < 6; ++i) {
    const Timestamp ts(i * 10);
    ASSERT_TRUE(graph.AddPacketToInputStream("keep", MakePacket<bool>(i % 2 == 1).At(ts)).ok());
    ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(i).At(ts)).ok());
    ASSERT_TRUE(graph.WaitUntilIdle().ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  // Each frame finished (with or without output) before the next arrived.
  EXPECT_THAT((*c)[0]->Timestamps(), ElementsAre(0, 10, 20, 30, 40, 50));
  EXPECT_THAT((*c)[1]->Timestamps(), ElementsAre(10, 30, 50));
}

TEST(FlowLimiterCalculatorTest, AuxiliaryStreamFollowsMainDecisions) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    input_stream: "aux"
    input_stream: "finished"
    node {
      calculator: "FlowLimiterCalculator"
      input_stream: "in"
      input_stream: "aux"
      input_stream: "FINISHED:finished"
      output_stream: "throttled"
      output_stream: "aux_out"
    }
  )pb", {"throttled", "aux_out"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  auto add = [&](const char* stream, int64_t ts) {
    ASSERT_TRUE(graph.AddPacketToInputStream(stream, MakePacket<int>(0).At(Timestamp(ts))).ok());
    ASSERT_TRUE(graph.WaitUntilIdle().ok());
  };
  add("in", 0);
  add("aux", 0);
  add("in", 10);  // dropped: frame 0 still in flight
  add("aux", 10);
  add("finished", 0);
  add("aux", 20);
  add("in", 20);
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  EXPECT_THAT((*c)[0]->Timestamps(), ElementsAre(0, 20));
  EXPECT_THAT((*c)[1]->Timestamps(), ElementsAre(0, 20));
}

TEST(FlowLimiterCalculatorConfigTest, WithoutFinishedOnlyTheFirstFramesPass) {
  // As in MediaPipe, FINISHED is optional; with nothing retiring frames, only
  // the first max_in_flight frames are ever released.
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    node {
      calculator: "FlowLimiterCalculator"
      input_stream: "in"
      output_stream: "out"
      output_stream: "ALLOW:allow"
      node_options {
        [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] { max_in_flight: 2 }
      }
    }
  )pb", {"out", "allow"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  for (int t = 0; t < 6; ++t) {
    ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(t).At(Timestamp(t))).ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  EXPECT_THAT((*c)[0]->Timestamps(), ElementsAre(0, 1));
  EXPECT_EQ((*c)[1]->Size(), 6u);  // an ALLOW decision for every frame
}

}  // namespace
}  // namespace sluice
