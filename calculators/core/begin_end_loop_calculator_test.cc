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

// For each element e of `ints` at time t: e + tag(t), collected back into a
// vector at t.
constexpr char kLoopGraph[] = R"pb(
  input_stream: "ints"
  input_stream: "tag"
  node {
    calculator: "BeginLoopIntCalculator"
    input_stream: "ITERABLE:ints"
    input_stream: "CLONE:tag"
    output_stream: "ITEM:item"
    output_stream: "CLONE:tag_per_item"
    output_stream: "BATCH_END:end"
  }
  node {
    calculator: "IntAdderCalculator"
    input_stream: "item"
    input_stream: "tag_per_item"
    output_stream: "sum"
  }
  node {
    calculator: "EndLoopIntCalculator"
    input_stream: "ITEM:sum"
    input_stream: "BATCH_END:end"
    output_stream: "ITERABLE:out"
  })pb";

TEST(BeginEndLoopCalculatorTest, MapsOverVectorsAndSkipsEmptyOnes) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, kLoopGraph, {"out", "item", "end"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  auto ints = [&](int64_t ts, std::vector<int> v) {
    ASSERT_TRUE(graph.AddPacketToInputStream(
        "ints", MakePacket<std::vector<int>>(std::move(v)).At(Timestamp(ts))).ok());
  };
  auto tag = [&](int64_t ts, int v) {
    ASSERT_TRUE(graph.AddPacketToInputStream("tag", MakePacket<int>(v).At(Timestamp(ts))).ok());
  };
  ints(10, {1, 2, 3});
  tag(10, 100);
  ints(20, {});  // empty vector
  tag(20, 200);
  tag(25, 250);  // no vector at all at 25
  ints(30, {5});
  tag(30, 1);
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  { absl::Status done = graph.WaitUntilDone(); ASSERT_TRUE(done.ok()) << done; }

  auto out = (*c)[0]->Values<std::vector<int>>();
  ASSERT_EQ(out.size(), 2u) << "no empty vector may be emitted";
  EXPECT_THAT(out[0], ElementsAre(101, 102, 103));
  EXPECT_THAT(out[1], ElementsAre(6));
  EXPECT_THAT((*c)[0]->Timestamps(), ElementsAre(10, 30));
  // Loop timestamps: a counter that keeps increasing; empty batches use one.
  EXPECT_THAT((*c)[1]->Timestamps(), ElementsAre(0, 1, 2, 5));
  EXPECT_THAT((*c)[2]->Timestamps(), ElementsAre(2, 3, 4, 5));
  std::vector<int64_t> batch_inputs;
  for (const Timestamp& t : (*c)[2]->Values<Timestamp>()) batch_inputs.push_back(t.Value());
  EXPECT_THAT(batch_inputs, ElementsAre(10, 20, 25, 30));
}

TEST(BeginEndLoopCalculatorTest, OnlyEmptyVectorsProduceNothingAndFinish) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, kLoopGraph, {"out"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  for (int64_t ts = 0; ts < 5; ++ts) {
    ASSERT_TRUE(graph.AddPacketToInputStream(
        "ints", MakePacket<std::vector<int>>().At(Timestamp(ts))).ok());
    ASSERT_TRUE(graph.AddPacketToInputStream("tag", MakePacket<int>(0).At(Timestamp(ts))).ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  { absl::Status done = graph.WaitUntilDone(); ASSERT_TRUE(done.ok()) << done; }
  EXPECT_THAT((*c)[0]->Timestamps(), IsEmpty());
}

TEST(BeginEndLoopCalculatorTest, StringItemsPointIntoTheVector) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "words"
    node {
      calculator: "BeginLoopStringCalculator"
      input_stream: "ITERABLE:words"
      output_stream: "ITEM:word"
      output_stream: "BATCH_END:end"
    }
    node {
      calculator: "EndLoopStringCalculator"
      input_stream: "ITEM:word"
      input_stream: "BATCH_END:end"
      output_stream: "ITERABLE:out"
    })pb", {"word", "out"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  Packet words = MakePacket<std::vector<std::string>>(std::vector<std::string>{"a", "bb"})
                     .At(Timestamp(3));
  ASSERT_TRUE(graph.AddPacketToInputStream("words", words).ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  { absl::Status done = graph.WaitUntilDone(); ASSERT_TRUE(done.ok()) << done; }
  auto items = (*c)[0]->Packets();
  ASSERT_EQ(items.size(), 2u);
  // No copy: the item packet refers to the element inside the input vector.
  EXPECT_EQ(&items[1].Get<std::string>(), &words.Get<std::vector<std::string>>()[1]);
  auto out = (*c)[1]->Values<std::vector<std::string>>();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0], ElementsAre("a", "bb"));
  EXPECT_THAT((*c)[1]->Timestamps(), ElementsAre(3));
}

TEST(BeginEndLoopCalculatorTest, RejectsMissingPorts) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "ints"
    node {
      calculator: "BeginLoopIntCalculator"
      input_stream: "ITERABLE:ints"
      output_stream: "ITEM:item"
    })pb", {});
  EXPECT_FALSE(c.ok());
}

}  // namespace
}  // namespace sluice
