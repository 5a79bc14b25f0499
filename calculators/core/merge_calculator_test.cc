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

constexpr char kGraph[] = R"pb(
  input_stream: "a"
  input_stream: "b"
  input_stream: "c"
  node {
    calculator: "MergeCalculator"
    input_stream: "a"
    input_stream: "b"
    input_stream: "c"
    output_stream: "merged"
  })pb";

TEST(MergeCalculatorTest, FirstPresentInputByPortOrderWins) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, kGraph, {"merged"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(graph.StartRun().ok());
  auto add = [&](const std::string& s, int v, int64_t t) {
    ASSERT_TRUE(graph.AddPacketToInputStream(s, MakePacket<int>(v).At(Timestamp(t))).ok());
  };
  add("a", 10, 1);  // a and c at 1: a wins.
  add("c", 30, 1);
  add("b", 20, 2);  // b and c at 2: b wins.
  add("c", 31, 2);
  add("c", 32, 3);  // only c.
  // Nothing at 4 (bounds only): no output.
  ASSERT_TRUE(graph.SetInputStreamTimestampBound("a", Timestamp(5)).ok());
  ASSERT_TRUE(graph.SetInputStreamTimestampBound("b", Timestamp(5)).ok());
  ASSERT_TRUE(graph.SetInputStreamTimestampBound("c", Timestamp(5)).ok());
  add("b", 25, 6);
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  EXPECT_THAT((*c)[0]->Values<int>(), ElementsAre(10, 20, 32, 25));
  EXPECT_THAT((*c)[0]->Timestamps(), ElementsAre(1, 2, 3, 6));
}

TEST(MergeCalculatorTest, RejectsTaggedInputsAndMissingOutput) {
  CalculatorGraph graph;
  auto tagged = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "a"
    node { calculator: "MergeCalculator" input_stream: "X:a" output_stream: "m" })pb", {});
  ASSERT_FALSE(tagged.ok());
  EXPECT_THAT(tagged.status().message(), HasSubstr("MergeCalculator"));
  CalculatorGraph graph2;
  auto no_output = InitGraphWithCollectors(&graph2, R"pb(
    input_stream: "a"
    node { calculator: "MergeCalculator" input_stream: "a" })pb", {});
  ASSERT_FALSE(no_output.ok());
  EXPECT_THAT(no_output.status().message(), HasSubstr("MergeCalculator"));
}

}  // namespace
}  // namespace sluice
