// Scheduling order (MEDIAPIPE_FACTS §3.6), observed through the tracer on a
// single application thread: opens first, downstream work before upstream,
// non-sources before sources, sources by their next timestamp.
#include <string>
#include <vector>

#include "framework/calculator_graph.h"
#include "framework/testing/graph_test_util.h"
#include "framework/tracer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::ParseConfigOrDie;
using ::testing::ElementsAre;

// "<Open|Process|Close>:<node>[@ts]" per traced event, in execution order.
std::vector<std::string> Trace(CalculatorGraph* g, bool with_ts = true) {
  const std::vector<std::string> names = {"a", "b", "c", "d"};
  std::vector<std::string> out;
  for (const auto& e : g->tracer()->Events()) {
    std::string kind = e.kind == Tracer::Kind::kOpen      ? "Open"
                       : e.kind == Tracer::Kind::kProcess ? "Process"
                                                          : "Close";
    std::string s = kind + ":" + g->Config().node(e.node).name();
    if (with_ts && e.kind == Tracer::Kind::kProcess && e.input_ts.IsRangeValue()) {
      s += "@" + std::to_string(e.input_ts.Value());
    }
    out.push_back(s);
  }
  return out;
}

TEST(SchedulerTest, OpensFirstThenDownstreamWorkFirst) {
  CalculatorGraph g;
  g.EnableTracing();
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    executor { type: "ApplicationThreadExecutor" }
    node { name: "c" calculator: "TestAddOneCalculator" input_stream: "s2" output_stream: "s3" }
    node { name: "a" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "s1" }
    node { name: "b" calculator: "TestAddOneCalculator" input_stream: "s1" output_stream: "s2" }
  )pb")).ok());
  ASSERT_TRUE(g.StartRun().ok());
  ASSERT_TRUE(g.AddPacketToInputStream("in", MakePacket<int>(0).At(Timestamp(0))).ok());
  ASSERT_TRUE(g.AddPacketToInputStream("in", MakePacket<int>(1).At(Timestamp(1))).ok());
  ASSERT_TRUE(g.WaitUntilIdle().ok());
  // Opens in topological order; then each packet drains to the end of the
  // chain before the next one enters (FIFO would interleave a@1 before c@0).
  EXPECT_THAT(Trace(&g), ElementsAre("Open:a", "Open:b", "Open:c", "Process:a@0", "Process:b@0",
                                     "Process:c@0", "Process:a@1", "Process:b@1", "Process:c@1"));
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
}

TEST(SchedulerTest, SourcesTakeTurnsByTimestampAfterDownstreamWork) {
  CalculatorGraph g;
  g.EnableTracing();
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_side_packet: "n"
    executor { type: "ApplicationThreadExecutor" }
    node { name: "a" calculator: "TestCounterSourceCalculator" input_side_packet: "N:n" output_stream: "x" }
    node { name: "b" calculator: "TestCounterSourceCalculator" input_side_packet: "N:n" output_stream: "y" }
    node { name: "c" calculator: "TestAddOneCalculator" input_stream: "x" output_stream: "x1" }
    node { name: "d" calculator: "TestAddOneCalculator" input_stream: "y" output_stream: "y1" }
  )pb")).ok());
  ASSERT_TRUE(g.Run({{"n", MakePacket<int>(2)}}).ok());
  std::vector<std::string> process;
  for (const auto& s : Trace(&g, false)) {
    if (s.rfind("Process:", 0) == 0) process.push_back(s.substr(8));
  }
  // Each emitted packet is consumed before the next source turn; the sources
  // alternate because the one with the smaller next timestamp goes first.
  ASSERT_GE(process.size(), 8u);
  EXPECT_THAT(std::vector<std::string>(process.begin(), process.begin() + 8),
              ElementsAre("a", "c", "b", "d", "a", "c", "b", "d"));
}

}  // namespace
}  // namespace sluice
