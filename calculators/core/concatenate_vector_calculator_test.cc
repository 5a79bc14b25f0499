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

constexpr char kGraph[] = R"pb(
  input_stream: "a"
  input_stream: "b"
  input_stream: "c"
  node {
    calculator: "ConcatenateFloatVectorCalculator"
    input_stream: "a"
    input_stream: "b"
    input_stream: "c"
    output_stream: "out"
    %s
  })pb";

std::string Graph(const std::string& options) {
  std::string s = kGraph;
  return s.replace(s.find("%s"), 2, options);
}

// a: vector, b: single element, c: vector; c is missing at timestamp 2.
std::unique_ptr<sluice::testing::PacketCollector> RunConcat(const std::string& options) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, Graph(options), {"out"});
  EXPECT_TRUE(c.ok()) << c.status();
  if (!c.ok()) return nullptr;
  EXPECT_TRUE(graph.StartRun().ok());
  for (int64_t t : {1, 2}) {
    const Timestamp ts(t);
    EXPECT_TRUE(graph.AddPacketToInputStream(
        "a", MakePacket<std::vector<float>>(std::vector<float>{1.f * t, 2.f}).At(ts)).ok());
    EXPECT_TRUE(graph.AddPacketToInputStream("b", MakePacket<float>(3.f).At(ts)).ok());
    if (t == 1) {
      EXPECT_TRUE(graph.AddPacketToInputStream(
          "c", MakePacket<std::vector<float>>(std::vector<float>{4.f, 5.f}).At(ts)).ok());
    }
  }
  EXPECT_TRUE(graph.CloseAllInputStreams().ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
  return std::move((*c)[0]);
}

TEST(ConcatenateVectorCalculatorTest, ConcatenatesVectorsAndElementsInOrder) {
  auto out = RunConcat("");
  ASSERT_NE(out, nullptr);
  auto v = out->Values<std::vector<float>>();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_THAT(v[0], ElementsAre(1.f, 2.f, 3.f, 4.f, 5.f));
  EXPECT_THAT(v[1], ElementsAre(2.f, 2.f, 3.f));  // c absent at 2
  EXPECT_THAT(out->Timestamps(), ElementsAre(1, 2));
}

TEST(ConcatenateVectorCalculatorTest, OnlyEmitIfAllPresent) {
  auto out = RunConcat(R"pb(node_options: {
    [type.googleapis.com/mediapipe.ConcatenateVectorCalculatorOptions] {
      only_emit_if_all_present: true
    }
  })pb");
  ASSERT_NE(out, nullptr);
  EXPECT_THAT(out->Timestamps(), ElementsAre(1));
}

TEST(ConcatenateVectorCalculatorTest, StringsAndRejectsWrongType) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "a"
    input_stream: "b"
    node {
      calculator: "ConcatenateStringVectorCalculator"
      input_stream: "a"
      input_stream: "b"
      output_stream: "out"
    })pb", {"out"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("a", MakePacket<std::string>("x").At(Timestamp(0))).ok());
  ASSERT_TRUE(graph.AddPacketToInputStream(
      "b", MakePacket<std::vector<std::string>>(std::vector<std::string>{"y", "z"})
               .At(Timestamp(0))).ok());
  // An int where strings are expected is a clear error (when added or when
  // run), not a crash.
  absl::Status add = graph.AddPacketToInputStream("a", MakePacket<int>(1).At(Timestamp(1)));
  (void)graph.CloseAllInputStreams();
  absl::Status done = graph.WaitUntilDone();
  EXPECT_TRUE(!add.ok() || !done.ok());
  auto v = (*c)[0]->Values<std::vector<std::string>>();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_THAT(v[0], ElementsAre("x", "y", "z"));
}

}  // namespace
}  // namespace sluice
