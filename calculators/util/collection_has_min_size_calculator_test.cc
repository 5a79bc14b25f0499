#include <vector>

#include "calculators/util/test_util.h"
#include "formats/rect.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::NormalizedRect;
using testing::At;
using testing::RunGraph;
using Rects = std::vector<NormalizedRect>;

TEST(CollectionHasMinSizeCalculatorTest, SidePacketOverridesOption) {
  auto run = RunGraph(R"(
      input_stream: "rects" input_side_packet: "n" output_stream: "enough"
      node {
        calculator: "NormalizedRectVectorHasMinSizeCalculator"
        input_stream: "ITERABLE:rects" input_side_packet: "n" output_stream: "enough"
        options: { [mediapipe.CollectionHasMinSizeCalculatorOptions.ext] { min_size: 5 } }
      })",
                      {{"rects", At(Rects(1), 1)}, {"rects", At(Rects(2), 2)},
                       {"rects", At(Rects(3), 3)}},
                      {"enough"}, {{"n", MakePacket<int>(2)}});
  ASSERT_TRUE(run.status.ok()) << run.status;
  std::vector<bool> got;
  for (const Packet& p : run.outputs[0]) got.push_back(p.Get<bool>());
  EXPECT_EQ(got, (std::vector<bool>{false, true, true}));
}

TEST(CollectionHasMinSizeCalculatorTest, OptionDefaultAndValidation) {
  auto run = RunGraph(R"(
      input_stream: "rects" output_stream: "enough"
      node {
        calculator: "NormalizedRectVectorHasMinSizeCalculator"
        input_stream: "ITERABLE:rects" output_stream: "enough"
        options: { [mediapipe.CollectionHasMinSizeCalculatorOptions.ext] { min_size: 1 } }
      })",
                      {{"rects", At(Rects{}, 1)}}, {"enough"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_FALSE(run.outputs[0][0].Get<bool>());
  auto bad = RunGraph(R"(
      input_stream: "rects" output_stream: "enough"
      node {
        calculator: "NormalizedRectVectorHasMinSizeCalculator"
        input_stream: "ITERABLE:rects" output_stream: "enough"
        options: { [mediapipe.CollectionHasMinSizeCalculatorOptions.ext] { min_size: -1 } }
      })",
                      {}, {"enough"});
  EXPECT_FALSE(bad.status.ok());
}

}  // namespace
}  // namespace sluice
