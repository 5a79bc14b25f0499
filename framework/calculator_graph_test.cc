// End-to-end behaviour of CalculatorGraph: data flow, bounds, side packets,
// sources, errors, cancellation, observers/pollers, executors, loops, tracing.
#include "framework/calculator_graph.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "framework/testing/graph_test_util.h"
#include "framework/tool/subgraph_registry.h"
#include "framework/testing/test_calculators.h"
#include "framework/tracer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::Collector;
using ::sluice::testing::ParseConfigOrDie;
using ::sluice::testing::TestLog;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::Status AddInt(CalculatorGraph* g, const std::string& stream, int v, int64_t ts) {
  return g->AddPacketToInputStream(stream, MakePacket<int>(v).At(Timestamp(ts)));
}

TEST(CalculatorGraphTest, ChainDeliversEveryPacketInOrder) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "a" }
    node { calculator: "TestAddOneCalculator" input_stream: "a" output_stream: "b" }
    node { calculator: "TestAddOneCalculator" input_stream: "b" output_stream: "out" }
  )pb")).ok());
  Collector out;
  ASSERT_TRUE(out.Observe(&g, "out").ok());
  ASSERT_TRUE(g.StartRun().ok());
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(AddInt(&g, "in", i, i * 10).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  auto packets = out.Packets();
  ASSERT_EQ(packets.size(), 200u);
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(packets[i].Get<int>(), i + 3);
    EXPECT_EQ(packets[i].Timestamp(), Timestamp(i * 10));
  }
}

// A join waits for "is there a packet at t on the other input?"; the offset of
// the filter lets the framework answer "no" at once when it drops a packet.
int JoinOutputsAfterEachPacket(const std::string& filter, std::vector<int>* counts) {
  CalculatorGraph g;
  EXPECT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    node { calculator: ")pb" + filter + R"pb(" input_stream: "in" output_stream: "even" }
    node { calculator: "TestAddOneCalculator" input_stream: "even" output_stream: "e1" }
    node { calculator: "TestAddOneCalculator" input_stream: "e1" output_stream: "e2" }
    node { calculator: "TestSumCalculator" input_stream: "in" input_stream: "e2" output_stream: "sum" }
  )pb")).ok());
  Collector sum;
  EXPECT_TRUE(sum.Observe(&g, "sum").ok());
  EXPECT_TRUE(g.StartRun().ok());
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(AddInt(&g, "in", i, i).ok());
    EXPECT_TRUE(g.WaitUntilIdle().ok());
    counts->push_back(static_cast<int>(sum.Size()));
  }
  EXPECT_TRUE(g.CloseAllInputStreams().ok());
  EXPECT_TRUE(g.WaitUntilDone().ok());
  // in + (in + 2 when even).
  EXPECT_EQ(sum.Strings(), (std::vector<std::string>{"0:2", "1:1", "2:6", "3:3", "4:10", "5:5"}));
  return static_cast<int>(sum.Size());
}

TEST(CalculatorGraphTest, BoundsPropagateThroughChainWhenNodeEmitsNothing) {
  std::vector<int> counts;
  JoinOutputsAfterEachPacket("TestEvenFilterCalculator", &counts);
  EXPECT_EQ(counts, (std::vector<int>{1, 2, 3, 4, 5, 6}));
}

TEST(CalculatorGraphTest, WithoutOffsetDroppedTimestampsSettleOnlyLater) {
  std::vector<int> counts;
  JoinOutputsAfterEachPacket("TestEvenFilterNoOffsetCalculator", &counts);
  // Timestamp 1 is only known to be empty once the packet at 2 passes.
  EXPECT_EQ(counts, (std::vector<int>{1, 1, 3, 3, 5, 5}));
}

TEST(CalculatorGraphTest, ObserverSeesBoundsAsEmptyPackets) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    node { calculator: "TestEvenFilterCalculator" input_stream: "in" output_stream: "even" }
  )pb")).ok());
  Collector with_bounds, plain;
  ASSERT_TRUE(with_bounds.Observe(&g, "even", true).ok());
  ASSERT_TRUE(plain.Observe(&g, "even", false).ok());
  ASSERT_TRUE(g.StartRun().ok());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(AddInt(&g, "in", i, i).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  EXPECT_THAT(with_bounds.Strings(), ElementsAre("0:0", "1:.", "2:2", "3:."));
  EXPECT_THAT(plain.Strings(), ElementsAre("0:0", "2:2"));
}

TEST(CalculatorGraphTest, PollerReturnsPacketsThenFalseAtEnd) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out" }
  )pb")).ok());
  auto poller = g.AddOutputStreamPoller("out");
  ASSERT_TRUE(poller.ok());
  ASSERT_TRUE(g.StartRun().ok());
  std::thread feeder([&] {
    for (int i = 0; i < 50; ++i) AddInt(&g, "in", i, i).IgnoreError();
    g.CloseAllInputStreams().IgnoreError();
  });
  Packet p;
  int n = 0;
  while (poller->Next(&p)) {
    EXPECT_EQ(p.Get<int>(), n + 1);
    ++n;
  }
  feeder.join();
  EXPECT_EQ(n, 50);
  EXPECT_TRUE(g.WaitUntilDone().ok());
  EXPECT_FALSE(g.AddOutputStreamPoller("nope").ok());
}

TEST(CalculatorGraphTest, SidePacketsFlowBetweenNodesAndOut) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    input_side_packet: "x"
    node { calculator: "TestSideDoublerCalculator" input_side_packet: "IN:x" output_side_packet: "OUT:y" }
    node { calculator: "TestSideAddCalculator" input_side_packet: "ADD:y" input_stream: "in" output_stream: "out" }
  )pb")).ok());
  Collector out;
  ASSERT_TRUE(out.Observe(&g, "out").ok());
  ASSERT_TRUE(g.StartRun({{"x", MakePacket<int>(21)}}).ok());
  ASSERT_TRUE(AddInt(&g, "in", 1, 5).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  EXPECT_THAT(out.Strings(), ElementsAre("5:43"));
  auto y = g.GetOutputSidePacket("y");
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->Get<int>(), 42);
  EXPECT_FALSE(g.GetOutputSidePacket("unknown").ok());
}

TEST(CalculatorGraphTest, SourceNodeRunsUntilStop) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_side_packet: "n"
    node { calculator: "TestCounterSourceCalculator" input_side_packet: "N:n" output_stream: "c" }
    node { calculator: "TestAddOneCalculator" input_stream: "c" output_stream: "out" }
  )pb")).ok());
  Collector out;
  ASSERT_TRUE(out.Observe(&g, "out").ok());
  ASSERT_TRUE(g.Run({{"n", MakePacket<int>(5)}}).ok());
  EXPECT_THAT(out.Strings(), ElementsAre("0:1", "1:2", "2:3", "3:4", "4:5"));
  // A second run starts from fresh calculators.
  ASSERT_TRUE(g.Run({{"n", MakePacket<int>(2)}}).ok());
  EXPECT_EQ(out.Size(), 7u);
}

TEST(CalculatorGraphTest, SourceLayersRunOneAfterAnother) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_side_packet: "log"
    input_side_packet: "n1"
    input_side_packet: "n2"
    node { calculator: "TestCounterSourceCalculator" input_side_packet: "N:n2" output_stream: "late" source_layer: 1 }
    node { calculator: "TestCounterSourceCalculator" input_side_packet: "N:n1" output_stream: "early" }
    node { calculator: "TestRecordCalculator" input_stream: "early" input_side_packet: "LOG:log" }
    node { calculator: "TestRecordCalculator" input_stream: "late" input_side_packet: "LOG:log" }
  )pb")).ok());
  TestLog log;
  ASSERT_TRUE(g.Run({{"log", log.AsPacket()}, {"n1", MakePacket<int>(3)}, {"n2", MakePacket<int>(2)}}).ok());
  EXPECT_THAT(log.Lines(), ElementsAre("0:0", "1:1", "2:2", "close", "0:0", "1:1", "close"));
}

// Node "boom" fails in the phase named by side packet "fail" ("open",
// "process" or "close"), logging to side packet "log".
constexpr char kFailingGraph[] = R"pb(
  input_stream: "in"
  input_side_packet: "fail"
  input_side_packet: "log"
  node { name: "boom" calculator: "TestFailingCalculator" input_stream: "in" output_stream: "out"
         input_side_packet: "FAIL:fail" input_side_packet: "LOG:log" }
  node { calculator: "TestAddOneCalculator" input_stream: "out" output_stream: "out2" }
)pb";

std::string RunFailing(const std::string& phase, TestLog* log) {
  CalculatorGraph g;
  EXPECT_TRUE(g.Initialize(ParseConfigOrDie(kFailingGraph)).ok());
  if (!g.StartRun({{"fail", MakePacket<std::string>(phase)}, {"log", log->AsPacket()}}).ok()) {
    return "StartRun failed";
  }
  for (int i = 0; i < 10; ++i) {
    if (!AddInt(&g, "in", i, i).ok()) break;  // the run may already have failed
  }
  g.CloseAllInputStreams().IgnoreError();
  absl::Status s = g.WaitUntilDone();
  EXPECT_TRUE(g.HasError());
  return s.ToString();
}

TEST(CalculatorGraphTest, ErrorsNameThePhaseAndTheNode) {
  TestLog open_log, process_log, close_log;
  EXPECT_THAT(RunFailing("open", &open_log),
              HasSubstr("Calculator::Open() for node \"boom\" failed: open failed on purpose"));
  EXPECT_TRUE(open_log.Lines().empty());  // no Close after a failed Open
  EXPECT_THAT(RunFailing("process", &process_log),
              HasSubstr("Calculator::Process() for node \"boom\" failed: process failed on purpose"));
  ASSERT_EQ(process_log.Lines().size(), 1u);  // Close still runs, sees the error
  EXPECT_THAT(process_log.Lines()[0], HasSubstr("process failed on purpose"));
  EXPECT_THAT(RunFailing("close", &close_log),
              HasSubstr("Calculator::Close() for node \"boom\" failed: close failed on purpose"));
}

// Once a run has ended on an error (here a node's Open), adding a packet
// reports that error, not "call StartRun first" (which the run did).
TEST(CalculatorGraphTest, AddingToARunThatFailedNamesItsError) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(kFailingGraph)).ok());
  TestLog log;
  ASSERT_TRUE(g.StartRun({{"fail", MakePacket<std::string>("open")}, {"log", log.AsPacket()}}).ok());
  EXPECT_THAT(g.WaitUntilDone().ToString(), HasSubstr("open failed on purpose"));
  const absl::Status s = AddInt(&g, "in", 1, 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.ToString(), HasSubstr("The graph run has failed"));
  EXPECT_THAT(s.ToString(), HasSubstr("open failed on purpose"));
}

TEST(CalculatorGraphTest, CancelStopsRunAndKeepsEarlierPackets) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_side_packet: "n"
    input_side_packet: "sleep"
    node { calculator: "TestCounterSourceCalculator" input_side_packet: "N:n" output_stream: "c" }
    node { calculator: "TestSlowPassThroughCalculator" input_stream: "c" output_stream: "out"
           input_side_packet: "SLEEP_US:sleep" }
  )pb")).ok());
  Collector out;
  ASSERT_TRUE(out.Observe(&g, "out").ok());
  ASSERT_TRUE(g.StartRun({{"n", MakePacket<int>(1 << 30)}, {"sleep", MakePacket<int>(200)}}).ok());
  while (out.Size() < 10) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  g.Cancel();
  absl::Status s = g.WaitUntilDone();
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  auto packets = out.Packets();
  ASSERT_GE(packets.size(), 10u);
  for (size_t i = 0; i < packets.size(); ++i) EXPECT_EQ(packets[i].Get<int>(), static_cast<int>(i));
}

TEST(CalculatorGraphTest, StatusStopFromNodeEndsRunGracefully) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_side_packet: "n"
    input_side_packet: "limit"
    node { calculator: "TestCounterSourceCalculator" input_side_packet: "N:n" output_stream: "c" }
    node { calculator: "TestStopAfterCalculator" input_stream: "c" output_stream: "out"
           input_side_packet: "LIMIT:limit" }
  )pb")).ok());
  Collector out;
  ASSERT_TRUE(out.Observe(&g, "out").ok());
  ASSERT_TRUE(g.Run({{"n", MakePacket<int>(1 << 30)}, {"limit", MakePacket<int>(3)}}).ok());
  EXPECT_THAT(out.Strings(), ElementsAre("0:0", "1:1", "2:2"));
}

TEST(CalculatorGraphTest, ManySmallGraphsCreatedRunAndDestroyed) {
  const auto config = ParseConfigOrDie(R"pb(
    input_stream: "in"
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "a" }
    node { calculator: "TestAddOneCalculator" input_stream: "a" output_stream: "out" }
  )pb");
  auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < 2000; ++k) {
    CalculatorGraph g;
    ASSERT_TRUE(g.Initialize(config).ok());
    Collector out;
    ASSERT_TRUE(out.Observe(&g, "out").ok());
    ASSERT_TRUE(g.StartRun().ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(AddInt(&g, "in", k + i, i).ok());
    ASSERT_TRUE(g.CloseAllInputStreams().ok());
    ASSERT_TRUE(g.WaitUntilDone().ok());
    ASSERT_EQ(out.Size(), 3u);
    ASSERT_EQ(out.Packets()[2].Get<int>(), k + 4);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(secs, 120.0);
}

TEST(CalculatorGraphTest, ApplicationThreadExecutorRunsTasksOnCallerThread) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    executor { type: "ApplicationThreadExecutor" }
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out" }
  )pb")).ok());
  std::vector<std::thread::id> threads;
  int seen = 0;
  ASSERT_TRUE(g.ObserveOutputStream("out", [&](const Packet& p) {
                 threads.push_back(std::this_thread::get_id());
                 ++seen;
                 return absl::OkStatus();
               }).ok());
  ASSERT_TRUE(g.StartRun().ok());
  ASSERT_TRUE(AddInt(&g, "in", 1, 1).ok());
  EXPECT_EQ(seen, 0);  // nothing runs until the application thread waits
  ASSERT_TRUE(g.WaitUntilIdle().ok());
  EXPECT_EQ(seen, 1);
  ASSERT_TRUE(AddInt(&g, "in", 2, 2).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  EXPECT_EQ(seen, 2);
  for (auto id : threads) EXPECT_EQ(id, std::this_thread::get_id());
}

TEST(CalculatorGraphTest, NodesRunOnTheirNamedExecutor) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    input_side_packet: "log"
    input_side_packet: "sleep"
    executor {
      name: "special"
      options {
        [mediapipe.ThreadPoolExecutorOptions.ext] { num_threads: 1 thread_name_prefix: "special" }
      }
    }
    node { calculator: "TestSlowPassThroughCalculator" input_stream: "in" output_stream: "out"
           input_side_packet: "LOG:log" input_side_packet: "SLEEP_US:sleep" executor: "special" }
  )pb")).ok());
  TestLog log;
  ASSERT_TRUE(g.StartRun({{"log", log.AsPacket()}, {"sleep", MakePacket<int>(0)}}).ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(AddInt(&g, "in", i, i).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  ASSERT_EQ(log.Lines().size(), 5u);
  for (const auto& name : log.Lines()) EXPECT_EQ(name.rfind("special", 0), 0u) << name;
}

TEST(CalculatorGraphTest, MaxInFlightKeepsOutputOrder) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    input_side_packet: "sleep"
    num_threads: 4
    node { calculator: "TestSlowPassThroughCalculator" input_stream: "in" output_stream: "out"
           input_side_packet: "SLEEP_US:sleep" max_in_flight: 3 }
  )pb")).ok());
  Collector out;
  ASSERT_TRUE(out.Observe(&g, "out").ok());
  ASSERT_TRUE(g.StartRun({{"sleep", MakePacket<int>(1000)}}).ok());
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(AddInt(&g, "in", i, i).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  auto packets = out.Packets();
  ASSERT_EQ(packets.size(), 30u);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(packets[i].Get<int>(), i);
}

TEST(CalculatorGraphTest, BackEdgeLoopAccumulates) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    node { calculator: "TestAccumulateCalculator" input_stream: "IN:in" input_stream: "PREV:prev"
           output_stream: "SUM:sum"
           input_stream_info { tag_index: "PREV" back_edge: true } }
    node { calculator: "TestDelayCalculator" input_stream: "sum" output_stream: "prev" }
  )pb")).ok());
  Collector sum;
  ASSERT_TRUE(sum.Observe(&g, "sum").ok());
  ASSERT_TRUE(g.StartRun().ok());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(AddInt(&g, "in", i + 1, i).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  EXPECT_THAT(sum.Strings(), ElementsAre("0:1", "1:3", "2:6", "3:10"));
}

// A source floods a join whose other input is a graph input fed only later.
absl::Status RunThrottled(bool report_deadlock, Collector* out) {
  CalculatorGraph g;
  auto config = ParseConfigOrDie(R"pb(
    input_stream: "b"
    input_side_packet: "n"
    max_queue_size: 2
    node { calculator: "TestCounterSourceCalculator" input_side_packet: "N:n" output_stream: "a" }
    node { calculator: "TestSumCalculator" input_stream: "a" input_stream: "b" output_stream: "sum" }
  )pb");
  config.set_report_deadlock(report_deadlock);
  absl::Status s = g.Initialize(config);
  if (!s.ok()) return s;
  s = out->Observe(&g, "sum");
  if (!s.ok()) return s;
  s = g.StartRun({{"n", MakePacket<int>(20)}});
  if (!s.ok()) return s;
  s = g.WaitUntilIdle();
  if (s.ok()) {
    for (int i = 0; i < 20 && s.ok(); ++i) s = AddInt(&g, "b", 100, i);
    g.CloseAllInputStreams().IgnoreError();
  }
  absl::Status done = g.WaitUntilDone();
  return done.ok() ? s : done;
}

TEST(CalculatorGraphTest, QueueLimitWithReportDeadlockFails) {
  Collector out;
  absl::Status s = RunThrottled(true, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_THAT(s.message(), HasSubstr("deadlock"));
  EXPECT_THAT(s.message(), HasSubstr("\"a\""));
}

TEST(CalculatorGraphTest, QueueLimitWithoutReportDeadlockGrows) {
  Collector out;
  ASSERT_TRUE(RunThrottled(false, &out).ok());
  auto packets = out.Packets();
  ASSERT_EQ(packets.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(packets[i].Get<int>(), 100 + i);
}

TEST(CalculatorGraphTest, ThrottledGraphInputRejectsInAddIfNotFullMode) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "a"
    input_stream: "b"
    max_queue_size: 2
    node { calculator: "TestSumCalculator" input_stream: "a" input_stream: "b" output_stream: "sum" }
  )pb")).ok());
  g.SetGraphInputStreamAddMode(CalculatorGraph::ADD_IF_NOT_FULL);
  ASSERT_TRUE(g.StartRun().ok());
  ASSERT_TRUE(AddInt(&g, "a", 1, 1).ok());
  ASSERT_TRUE(AddInt(&g, "a", 2, 2).ok());
  EXPECT_EQ(AddInt(&g, "a", 3, 3).code(), absl::StatusCode::kUnavailable);
  ASSERT_TRUE(AddInt(&g, "b", 1, 1).ok());
  ASSERT_TRUE(g.WaitUntilIdle().ok());
  EXPECT_TRUE(AddInt(&g, "a", 3, 3).ok());  // the queue drained
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
}

TEST(CalculatorGraphTest, ServicesAreDefaultCreatedOrSet) {
  const auto config = ParseConfigOrDie(R"pb(
    node { calculator: "TestServiceUserCalculator" output_side_packet: "VALUE:v" }
  )pb");
  {
    CalculatorGraph g;
    ASSERT_TRUE(g.Initialize(config).ok());
    ASSERT_TRUE(g.Run().ok());
    EXPECT_EQ(g.GetOutputSidePacket("v")->Get<int>(), 7);
  }
  CalculatorGraph g;
  auto obj = std::make_shared<testing::TestServiceObject>();
  obj->value = 11;
  ASSERT_TRUE(g.SetServiceObject(testing::kTestService, obj).ok());
  ASSERT_TRUE(g.Initialize(config).ok());
  ASSERT_TRUE(g.Run().ok());
  EXPECT_EQ(g.GetOutputSidePacket("v")->Get<int>(), 11);
  EXPECT_EQ(g.GetServiceObject(testing::kTestService), obj);
}

TEST(CalculatorGraphTest, TracerRecordsInvocationsAndWritesChromeTrace) {
  CalculatorGraph g;
  g.EnableTracing();
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    node { name: "first" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "a" }
    node { name: "second" calculator: "TestAddOneCalculator" input_stream: "a" output_stream: "out" }
  )pb")).ok());
  ASSERT_NE(g.tracer(), nullptr);
  ASSERT_TRUE(g.StartRun().ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(AddInt(&g, "in", i, i).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  int process = 0;
  for (const auto& e : g.tracer()->Events()) {
    if (e.kind == Tracer::Kind::kProcess) ++process;
  }
  EXPECT_EQ(process, 40);
  std::string path = ::testing::TempDir() + "/sluice_trace.json";
  ASSERT_TRUE(g.tracer()->WriteChromeTrace(path).ok());
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_THAT(ss.str(), HasSubstr("\"traceEvents\""));
  EXPECT_THAT(ss.str(), HasSubstr("\"name\":\"second\""));
  EXPECT_THAT(g.tracer()->Summary(), HasSubstr("first"));
  std::remove(path.c_str());
}

TEST(CalculatorGraphTest, SubgraphsAreExpandedWithCanonicalNames) {
  ASSERT_TRUE(SubgraphRegistry::Get()
                  .RegisterGraphText(R"pb(
                    type: "TestAddTwoSubgraph"
                    input_stream: "IN:x"
                    output_stream: "OUT:y"
                    node { calculator: "TestAddOneCalculator" input_stream: "x" output_stream: "m" }
                    node { calculator: "TestAddOneCalculator" input_stream: "m" output_stream: "y" }
                  )pb")
                  .ok());
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    node { name: "plus2" calculator: "TestAddTwoSubgraph" input_stream: "IN:in" output_stream: "OUT:out" }
  )pb")).ok());
  ASSERT_EQ(g.Config().node_size(), 2);
  EXPECT_EQ(g.Config().node(0).calculator(), "TestAddOneCalculator");
  Collector out;
  ASSERT_TRUE(out.Observe(&g, "out").ok());
  ASSERT_TRUE(g.StartRun().ok());
  ASSERT_TRUE(AddInt(&g, "in", 5, 1).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  EXPECT_THAT(out.Strings(), ElementsAre("1:7"));
  SubgraphRegistry::Get().Unregister("TestAddTwoSubgraph");
}

TEST(CalculatorGraphTest, TypedPortsDeclareAndCarryValues) {
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    input_side_packet: "f"
    node { calculator: "TestTypedScaleCalculator" input_stream: "IN:in" output_stream: "OUT:a"
           input_side_packet: "FACTOR:f" }
    node { calculator: "TestTypedScaleCalculator" input_stream: "IN:a" output_stream: "OUT:out" }
  )pb")).ok());
  Collector out;
  ASSERT_TRUE(out.Observe(&g, "out").ok());
  ASSERT_TRUE(g.StartRun({{"f", MakePacket<int>(5)}}).ok());
  ASSERT_TRUE(AddInt(&g, "in", 3, 1).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  EXPECT_THAT(out.Strings(), ElementsAre("1:30"));  // 3 * 5 * 2 (default factor)
  // The typed declaration still catches type mismatches at Initialize.
  CalculatorGraph bad;
  absl::Status s = bad.Initialize(ParseConfigOrDie(R"pb(
    input_stream: "in"
    node { calculator: "TestIntToStringCalculator" input_stream: "in" output_stream: "s" }
    node { calculator: "TestTypedScaleCalculator" input_stream: "IN:s" output_stream: "OUT:out" }
  )pb"));
  EXPECT_THAT(s.message(), HasSubstr("Packet type mismatch on stream \"s\""));
}

TEST(CalculatorGraphTest, TraceLogPathWritesTraceAtRunEnd) {
  std::string path = ::testing::TempDir() + "/sluice_trace_cfg.json";
  std::remove(path.c_str());
  auto config = ParseConfigOrDie(R"pb(
    input_stream: "in"
    profiler_config { trace_enabled: true }
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out" }
  )pb");
  config.mutable_profiler_config()->set_trace_log_path(path);
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(config).ok());
  ASSERT_TRUE(g.StartRun().ok());
  ASSERT_TRUE(AddInt(&g, "in", 5, 1).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  std::ifstream f(path);
  ASSERT_TRUE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_THAT(ss.str(), HasSubstr("TestAddOneCalculator"));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

// Steady-state cost per calculator invocation in a 10-node chain (prints only;
// run with --gtest_also_run_disabled_tests).
TEST(CalculatorGraphPerfTest, DISABLED_TenNodeChainOverhead) {
  std::string text = "input_stream: \"s0\"\n";
  for (int i = 0; i < 10; ++i) {
    text += "node { calculator: \"TestPassThroughCalculator\" input_stream: \"s" +
            std::to_string(i) + "\" output_stream: \"s" + std::to_string(i + 1) + "\" }\n";
  }
  CalculatorGraph g;
  ASSERT_TRUE(g.Initialize(ParseConfigOrDie(text)).ok());
  std::atomic<int> seen{0};
  ASSERT_TRUE(g.ObserveOutputStream("s10", [&](const Packet&) {
                 seen.fetch_add(1, std::memory_order_relaxed);
                 return absl::OkStatus();
               }).ok());
  ASSERT_TRUE(g.StartRun().ok());
  const int kPackets = 20000;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kPackets; ++i) ASSERT_TRUE(AddInt(&g, "s0", i, i).ok());
  ASSERT_TRUE(g.CloseAllInputStreams().ok());
  ASSERT_TRUE(g.WaitUntilDone().ok());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(seen.load(), kPackets);
  std::printf("10-node chain: %.3f us per invocation (%.0f packets/s)\n",
              secs * 1e6 / (kPackets * 10.0), kPackets / secs);
}

}  // namespace
}  // namespace sluice
