#include <string>
#include <vector>

#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::sluice::testing::PacketCollector;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct SplitRun {
  absl::Status init;
  absl::Status run;
  std::vector<std::unique_ptr<PacketCollector>> out;
};

SplitRun Split(const std::string& outputs, const std::string& options,
               const std::vector<std::string>& observed, std::vector<float> input) {
  SplitRun r;
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    node {
      calculator: "SplitFloatVectorCalculator"
      input_stream: "in"
      )pb" + outputs + R"pb(
      node_options: {
        [type.googleapis.com/mediapipe.SplitVectorCalculatorOptions] {)pb" + options + R"pb(}
      }
    })pb", observed);
  if (!c.ok()) {
    r.init = c.status();
    return r;
  }
  EXPECT_TRUE(graph.StartRun().ok());
  EXPECT_TRUE(graph.AddPacketToInputStream(
      "in", MakePacket<std::vector<float>>(std::move(input)).At(Timestamp(7))).ok());
  EXPECT_TRUE(graph.CloseAllInputStreams().ok());
  r.run = graph.WaitUntilDone();
  r.out = std::move(*c);
  return r;
}

const std::vector<float> kInput = {0.f, 1.f, 2.f, 3.f, 4.f};

TEST(SplitVectorCalculatorTest, OneOutputPerRange) {
  SplitRun r = Split(R"(output_stream: "x" output_stream: "y")",
                     "ranges { begin: 0 end: 2 } ranges { begin: 3 end: 5 }", {"x", "y"}, kInput);
  ASSERT_TRUE(r.init.ok()) << r.init;
  ASSERT_TRUE(r.run.ok()) << r.run;
  auto x = r.out[0]->Values<std::vector<float>>();
  auto y = r.out[1]->Values<std::vector<float>>();
  ASSERT_EQ(x.size(), 1u);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_THAT(x[0], ElementsAre(0.f, 1.f));
  EXPECT_THAT(y[0], ElementsAre(3.f, 4.f));
  EXPECT_THAT(r.out[0]->Timestamps(), ElementsAre(7));
}

TEST(SplitVectorCalculatorTest, ElementOnly) {
  SplitRun r = Split(R"(output_stream: "x" output_stream: "y")",
                     "ranges { begin: 1 end: 2 } ranges { begin: 4 end: 5 } element_only: true",
                     {"x", "y"}, kInput);
  ASSERT_TRUE(r.init.ok()) << r.init;
  ASSERT_TRUE(r.run.ok()) << r.run;
  EXPECT_THAT(r.out[0]->Values<float>(), ElementsAre(1.f));
  EXPECT_THAT(r.out[1]->Values<float>(), ElementsAre(4.f));
}

TEST(SplitVectorCalculatorTest, CombineOutputs) {
  SplitRun r = Split(R"(output_stream: "x")",
                     "ranges { begin: 3 end: 5 } ranges { begin: 0 end: 1 } combine_outputs: true",
                     {"x"}, kInput);
  ASSERT_TRUE(r.init.ok()) << r.init;
  ASSERT_TRUE(r.run.ok()) << r.run;
  auto x = r.out[0]->Values<std::vector<float>>();
  ASSERT_EQ(x.size(), 1u);
  EXPECT_THAT(x[0], ElementsAre(3.f, 4.f, 0.f));
}

TEST(SplitVectorCalculatorTest, RejectsBadOptions) {
  struct Case {
    const char* outputs;
    const char* options;
    const char* message;
  } cases[] = {
      {R"(output_stream: "x")", "ranges { begin: 2 end: 2 }", "begin < end"},
      {R"(output_stream: "x")", "ranges { begin: -1 end: 2 }", "non-negative"},
      {R"(output_stream: "x" output_stream: "y")", "ranges { begin: 0 end: 1 }", "must match"},
      {R"(output_stream: "x")", "ranges { begin: 0 end: 2 } element_only: true", "exactly one"},
      {R"(output_stream: "x")",
       "ranges { begin: 0 end: 3 } ranges { begin: 2 end: 4 } combine_outputs: true", "overlap"},
  };
  for (const Case& c : cases) {
    SplitRun r = Split(c.outputs, c.options, {}, kInput);
    ASSERT_FALSE(r.init.ok()) << c.options;
    EXPECT_THAT(std::string(r.init.message()), HasSubstr(c.message)) << c.options;
  }
}

TEST(SplitVectorCalculatorTest, ShortInputIsAnError) {
  SplitRun r = Split(R"(output_stream: "x")", "ranges { begin: 0 end: 9 }", {"x"}, kInput);
  ASSERT_TRUE(r.init.ok()) << r.init;
  ASSERT_FALSE(r.run.ok());
  EXPECT_THAT(std::string(r.run.message()), HasSubstr("5 elements"));
}

}  // namespace
}  // namespace sluice
