#include <vector>

#include "calculators/util/test_util.h"
#include "formats/detection.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::Detection;
using testing::At;
using testing::MakeDetection;
using testing::RunGraph;
using Detections = std::vector<Detection>;

const Detections kThree = {MakeDetection(0.9f, 0, 0, 0, 1, 1), MakeDetection(0.8f, 0, 1, 0, 1, 1),
                           MakeDetection(0.7f, 0, 2, 0, 1, 1)};

TEST(ClipVectorSizeCalculatorTest, KeepsLeadingElements) {
  auto run = RunGraph(R"(
      input_stream: "in" output_stream: "out"
      node {
        calculator: "ClipDetectionVectorSizeCalculator"
        input_stream: "in" output_stream: "out"
        options: { [mediapipe.ClipVectorSizeCalculatorOptions.ext] { max_vec_size: 2 } }
      })",
                      {{"in", At(kThree, 1)}, {"in", At(Detections{kThree[0]}, 2)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 2u);
  const auto& first = run.outputs[0][0].Get<Detections>();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_FLOAT_EQ(first[1].score(0), 0.8f);
  EXPECT_EQ(run.outputs[0][1].Get<Detections>().size(), 1u);
}

TEST(ClipVectorSizeCalculatorTest, SidePacketAndValidation) {
  constexpr char kGraph[] = R"(
      input_stream: "in" input_side_packet: "n" output_stream: "out"
      node {
        calculator: "ClipDetectionVectorSizeCalculator"
        input_stream: "in" input_side_packet: "n" output_stream: "out"
      })";
  auto run = RunGraph(kGraph, {{"in", At(kThree, 1)}}, {"out"}, {{"n", MakePacket<int>(3)}});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.outputs[0][0].Get<Detections>().size(), 3u);
  auto bad = RunGraph(kGraph, {{"in", At(kThree, 1)}}, {"out"}, {{"n", MakePacket<int>(0)}});
  EXPECT_FALSE(bad.status.ok());
}

}  // namespace
}  // namespace sluice
