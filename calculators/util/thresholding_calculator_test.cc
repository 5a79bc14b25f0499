#include <vector>

#include "calculators/util/test_util.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using testing::At;
using testing::RunGraph;

TEST(ThresholdingCalculatorTest, StrictlyGreaterThanThreshold) {
  auto run = RunGraph(R"(
      input_stream: "score" output_stream: "flag" output_stream: "accept" output_stream: "reject"
      node {
        calculator: "ThresholdingCalculator"
        input_stream: "FLOAT:score"
        output_stream: "FLAG:flag" output_stream: "ACCEPT:accept" output_stream: "REJECT:reject"
        options: { [mediapipe.ThresholdingCalculatorOptions.ext] { threshold: 0.5 } }
      })",
                      {{"score", At(0.5f, 1)}, {"score", At(0.6f, 2)}, {"score", At(0.1f, 3)}},
                      {"flag", "accept", "reject"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  std::vector<bool> flags;
  for (const Packet& p : run.outputs[0]) flags.push_back(p.Get<bool>());
  EXPECT_EQ(flags, (std::vector<bool>{false, true, false}));
  ASSERT_EQ(run.outputs[1].size(), 1u);
  EXPECT_EQ(run.outputs[1][0].Timestamp(), Timestamp(2));
  EXPECT_EQ(run.outputs[2].size(), 2u);
}

TEST(ThresholdingCalculatorTest, ThresholdFromSidePacket) {
  auto run = RunGraph(R"(
      input_stream: "score" input_side_packet: "t" output_stream: "flag"
      node {
        calculator: "ThresholdingCalculator"
        input_stream: "FLOAT:score" input_side_packet: "THRESHOLD:t" output_stream: "FLAG:flag"
      })",
                      {{"score", At(0.5f, 1)}}, {"flag"}, {{"t", MakePacket<double>(0.25)}});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_TRUE(run.outputs[0][0].Get<bool>());
}

TEST(ThresholdingCalculatorTest, RequiresAThreshold) {
  auto run = RunGraph(R"(
      input_stream: "score" output_stream: "flag"
      node { calculator: "ThresholdingCalculator" input_stream: "FLOAT:score" output_stream: "FLAG:flag" })",
                      {}, {"flag"});
  EXPECT_FALSE(run.status.ok());
}

}  // namespace
}  // namespace sluice
