// Input stream handler semantics (MEDIAPIPE_FACTS §3.5), observed through
// TestRecordCalculator's log "<input ts>:<v0>,<v1>,...". The graphs run on the
// application thread, so every step is deterministic.
#include "framework/calculator_graph.h"
#include "framework/testing/graph_test_util.h"
#include "framework/testing/test_calculators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::ParseConfigOrDie;
using ::sluice::testing::TestLog;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

class HandlerTest : public ::testing::Test {
 protected:
  // `node_inputs` are input_stream lines; `handler` is an input_stream_handler block.
  void Start(const std::string& calculator, const std::string& node_inputs,
             const std::string& handler, const std::vector<std::string>& graph_inputs = {"a", "b"}) {
    std::string text = "executor { type: \"ApplicationThreadExecutor\" }\n"
                       "input_side_packet: \"log\"\n";
    for (const auto& in : graph_inputs) text += "input_stream: \"" + in + "\"\n";
    text += "node { calculator: \"" + calculator + "\" input_side_packet: \"LOG:log\" " +
            node_inputs + " " + handler + " }";
    ASSERT_TRUE(graph_.Initialize(ParseConfigOrDie(text)).ok());
    ASSERT_TRUE(graph_.StartRun({{"log", log_.AsPacket()}}).ok());
  }
  void Add(const std::string& stream, int v, int64_t ts) {
    ASSERT_TRUE(graph_.AddPacketToInputStream(stream, MakePacket<int>(v).At(Timestamp(ts))).ok());
  }
  void Bound(const std::string& stream, int64_t ts) {
    ASSERT_TRUE(graph_.SetInputStreamTimestampBound(stream, Timestamp(ts)).ok());
  }
  void Close(const std::string& stream) { ASSERT_TRUE(graph_.CloseInputStream(stream).ok()); }
  std::vector<std::string> Idle() {
    EXPECT_TRUE(graph_.WaitUntilIdle().ok());
    auto lines = log_.Lines();
    std::vector<std::string> fresh(lines.begin() + seen_, lines.end());
    seen_ = lines.size();
    return fresh;
  }
  void TearDown() override {
    graph_.CloseAllInputStreams().IgnoreError();
    EXPECT_TRUE(graph_.WaitUntilDone().ok());
  }

  CalculatorGraph graph_;
  TestLog log_;
  size_t seen_ = 0;
};

const char kAB[] = "input_stream: \"a\" input_stream: \"b\"";

TEST_F(HandlerTest, DefaultWaitsUntilEveryStreamSettled) {
  Start("TestRecordCalculator", kAB, "");
  Add("a", 1, 1);
  EXPECT_THAT(Idle(), IsEmpty());
  Add("b", 10, 1);
  EXPECT_THAT(Idle(), ElementsAre("1:1,10"));
  Add("a", 2, 2);
  EXPECT_THAT(Idle(), IsEmpty());
  Bound("b", 3);  // b has nothing at 2
  EXPECT_THAT(Idle(), ElementsAre("2:2,."));
  Bound("a", 10);
  Bound("b", 10);
  EXPECT_THAT(Idle(), IsEmpty());  // bounds alone do not call Process
  Close("a");
  Close("b");
  EXPECT_THAT(Idle(), ElementsAre("close"));
}

TEST_F(HandlerTest, DefaultWithProcessTimestampBoundsReportsSettledTimestamps) {
  Start("TestRecordBoundsCalculator", kAB, "");
  Bound("a", 5);
  EXPECT_THAT(Idle(), IsEmpty());  // b not settled yet
  Bound("b", 3);
  EXPECT_THAT(Idle(), ElementsAre("2:.,."));
  Add("a", 7, 7);
  Add("b", 7, 7);
  EXPECT_THAT(Idle(), ElementsAre("7:7,7"));
}

TEST_F(HandlerTest, DefaultBatchSizeGroupsInvocations) {
  Start("TestRecordCalculator", kAB, R"(input_stream_handler {
      input_stream_handler: "DefaultInputStreamHandler"
      options { [mediapipe.DefaultInputStreamHandlerOptions.ext] { batch_size: 2 } } })");
  Add("a", 1, 1);
  Add("b", 1, 1);
  EXPECT_THAT(Idle(), IsEmpty());
  Add("a", 2, 2);
  Add("b", 2, 2);
  EXPECT_THAT(Idle(), ElementsAre("1:1,1", "2:2,2"));
  Add("a", 3, 3);
  Add("b", 3, 3);
  EXPECT_THAT(Idle(), IsEmpty());
  Close("a");
  Close("b");
  EXPECT_THAT(Idle(), ElementsAre("3:3,3", "close"));  // partial batch at the end
}

TEST_F(HandlerTest, ImmediateDeliversEachStreamAtOnce) {
  Start("TestRecordCalculator", kAB, R"(input_stream_handler { input_stream_handler: "ImmediateInputStreamHandler" })");
  Add("a", 1, 5);
  EXPECT_THAT(Idle(), ElementsAre("5:1,."));
  Add("b", 2, 3);  // earlier than a's last timestamp: fine per stream
  EXPECT_THAT(Idle(), ElementsAre("3:.,2"));
  Add("a", 3, 6);
  Add("b", 4, 6);
  EXPECT_THAT(Idle(), ElementsAre("6:3,4"));
  Close("a");
  EXPECT_THAT(Idle(), ElementsAre("Max:.,."));  // a stream finished
  Close("b");
  EXPECT_THAT(Idle(), ElementsAre("close"));
}

// As MediaPipe: a stream without a packet at the input timestamp still presents
// its settled timestamp (next bound - 1, or head packet - 1) on an empty packet.
TEST_F(HandlerTest, ImmediateStampsOtherStreamsWithTheirSettledTimestamp) {
  Start("TestRecordStampsCalculator", kAB,
        R"(input_stream_handler { input_stream_handler: "ImmediateInputStreamHandler" })");
  Bound("b", 3);
  EXPECT_THAT(Idle(), IsEmpty());
  Add("a", 1, 5);
  EXPECT_THAT(Idle(), ElementsAre("5:1,.@2"));
  Add("b", 2, 4);
  EXPECT_THAT(Idle(), ElementsAre("4:.@5,2"));
  Add("a", 3, 8);
  Add("b", 4, 20);  // queued behind a's earlier packet: b is settled up to 19
  EXPECT_THAT(Idle(), ElementsAre("8:3,.@19", "20:.@8,4"));
  Close("a");
  EXPECT_THAT(Idle(), ElementsAre("Max:.@Max,.@20"));
  Close("b");
  EXPECT_THAT(Idle(), ElementsAre("close"));
}

TEST_F(HandlerTest, DefaultStampsEmptyInputsWithSettledTimestamps) {
  Start("TestRecordStampsBoundsCalculator", kAB, "");
  Bound("a", 5);
  Bound("b", 3);
  EXPECT_THAT(Idle(), ElementsAre("2:.@4,.@2"));
  Add("a", 7, 7);
  Add("b", 7, 7);
  EXPECT_THAT(Idle(), ElementsAre("7:7,7"));
  Add("a", 8, 8);
  Bound("b", 12);
  EXPECT_THAT(Idle(), ElementsAre("8:8,.@11"));
  Bound("a", 15);
  EXPECT_THAT(Idle(), ElementsAre("11:.@14,.@11"));
}

TEST_F(HandlerTest, SyncSetStampsTheOtherSets) {
  Start("TestRecordStampsCalculator",
        "input_stream: \"A:a\" input_stream: \"B:b\" input_stream: \"C:c\"",
        R"(input_stream_handler {
      input_stream_handler: "SyncSetInputStreamHandler"
      options { [mediapipe.SyncSetInputStreamHandlerOptions.ext] {
        sync_set { tag_index: "A" tag_index: "B" } } } })",
        {"a", "b", "c"});
  Bound("a", 3);
  Bound("b", 4);
  Add("c", 7, 9);
  EXPECT_THAT(Idle(), ElementsAre("9:.@2,.@3,7"));
  Add("a", 1, 5);
  Bound("b", 6);  // b has nothing at 5
  EXPECT_THAT(Idle(), ElementsAre("5:1,.@5,.@9"));
}

TEST_F(HandlerTest, EarlyCloseClosesWhenAnyStreamIsDone) {
  Start("TestRecordCalculator", kAB, R"(input_stream_handler { input_stream_handler: "EarlyCloseInputStreamHandler" })");
  Add("a", 1, 1);
  Add("b", 1, 1);
  EXPECT_THAT(Idle(), ElementsAre("1:1,1"));
  Close("a");
  EXPECT_THAT(Idle(), ElementsAre("close"));
}

TEST_F(HandlerTest, FixedSizeKeepsOnlyTheNewestTimestamps) {
  Start("TestRecordCalculator", kAB, R"(input_stream_handler {
      input_stream_handler: "FixedSizeInputStreamHandler"
      options { [mediapipe.FixedSizeInputStreamHandlerOptions.ext] { trigger_queue_size: 3 target_queue_size: 1 } } })");
  for (int t = 1; t <= 4; ++t) {
    Add("a", t, t);
    Add("b", t * 10, t);
  }
  EXPECT_THAT(Idle(), ElementsAre("4:4,40"));
  Add("a", 5, 5);
  Add("b", 50, 5);
  EXPECT_THAT(Idle(), ElementsAre("5:5,50"));
}

TEST_F(HandlerTest, SyncSetsAreIndependent) {
  Start("TestRecordCalculator", "input_stream: \"A:a\" input_stream: \"B:b\" input_stream: \"C:c\"",
        R"(input_stream_handler {
      input_stream_handler: "SyncSetInputStreamHandler"
      options { [mediapipe.SyncSetInputStreamHandlerOptions.ext] {
        sync_set { tag_index: "A" tag_index: "B" } } } })",
        {"a", "b", "c"});
  Add("c", 7, 9);  // c is its own set
  EXPECT_THAT(Idle(), ElementsAre("9:.,.,7"));
  Add("a", 1, 2);
  EXPECT_THAT(Idle(), IsEmpty());  // waits for b
  Add("b", 2, 2);
  EXPECT_THAT(Idle(), ElementsAre("2:1,2,."));
}

TEST_F(HandlerTest, MuxTakesTheSelectedStream) {
  Start("TestRecordCalculator",
        "input_stream: \"INPUT:0:a\" input_stream: \"INPUT:1:b\" input_stream: \"SELECT:s\"",
        R"(input_stream_handler { input_stream_handler: "MuxInputStreamHandler" })",
        {"a", "b", "s"});
  Add("s", 1, 1);
  Add("a", 100, 1);
  EXPECT_THAT(Idle(), IsEmpty());  // b (selected) may still bring a packet at 1
  Add("b", 200, 1);
  EXPECT_THAT(Idle(), ElementsAre("1:.,200,1"));
  Add("s", 0, 2);
  Add("a", 101, 2);
  EXPECT_THAT(Idle(), ElementsAre("2:101,.,0"));
  Add("s", 1, 3);
  Bound("b", 4);  // selected stream has nothing at 3
  EXPECT_THAT(Idle(), ElementsAre("3:.,.,1"));
  Close("s");
  EXPECT_THAT(Idle(), ElementsAre("close"));
}

TEST_F(HandlerTest, BarrierWaitsForAPacketOnEveryStream) {
  Start("TestRecordCalculator", kAB, R"(input_stream_handler { input_stream_handler: "BarrierInputStreamHandler" })");
  Add("a", 1, 1);
  Add("a", 2, 2);
  EXPECT_THAT(Idle(), IsEmpty());
  Add("b", 5, 5);
  EXPECT_THAT(Idle(), ElementsAre("5:1,5"));
  Add("b", 6, 6);
  EXPECT_THAT(Idle(), ElementsAre("6:2,6"));
  Close("b");
  EXPECT_THAT(Idle(), ElementsAre("close"));
}

}  // namespace
}  // namespace sluice
