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

NormalizedRect R(float xc, float yc, float w, float h, int64_t id = -1) {
  NormalizedRect r;
  r.set_x_center(xc);
  r.set_y_center(yc);
  r.set_width(w);
  r.set_height(h);
  if (id >= 0) r.set_rect_id(id);
  return r;
}

constexpr char kGraph[] = R"(
  input_stream: "a" input_stream: "b" output_stream: "out"
  node {
    calculator: "AssociationNormRectCalculator"
    input_stream: "a" input_stream: "b" output_stream: "out"
    options: { [mediapipe.AssociationCalculatorOptions.ext] { min_similarity_threshold: 0.5 } }
  })";

TEST(AssociationNormRectCalculatorTest, LaterInputsReplaceOverlappingRects) {
  // A and B: IoU = 0.036 / 0.044 = 0.82 > 0.5; C overlaps nothing.
  const Rects a = {R(0.5f, 0.5f, 0.2f, 0.2f, 7), R(0.1f, 0.1f, 0.1f, 0.1f)};
  const Rects b = {R(0.52f, 0.5f, 0.2f, 0.2f)};
  auto run = RunGraph(kGraph, {{"a", At(a, 1)}, {"b", At(b, 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& out = run.outputs[0][0].Get<Rects>();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FLOAT_EQ(out[0].x_center(), 0.1f);   // surviving earlier rect first
  EXPECT_FLOAT_EQ(out[1].x_center(), 0.52f);  // then the replacing one
  EXPECT_EQ(out[1].rect_id(), 7);             // inheriting the replaced id
}

TEST(AssociationNormRectCalculatorTest, ModerateOverlapKeepsBoth) {
  // IoU = 0.02 / 0.06 = 1/3 <= 0.5.
  const Rects a = {R(0.5f, 0.5f, 0.2f, 0.2f)};
  const Rects b = {R(0.6f, 0.5f, 0.2f, 0.2f)};
  auto run = RunGraph(kGraph, {{"a", At(a, 1)}, {"b", At(b, 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.outputs[0][0].Get<Rects>().size(), 2u);
}

TEST(AssociationNormRectCalculatorTest, MissingOrEmptyInputs) {
  auto run = RunGraph(kGraph, {{"b", At(Rects{R(0.5f, 0.5f, 0.1f, 0.1f)}, 1)},
                               {"a", At(Rects{}, 2)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 2u);
  EXPECT_EQ(run.outputs[0][0].Get<Rects>().size(), 1u);
  EXPECT_TRUE(run.outputs[0][1].Get<Rects>().empty());
}

}  // namespace
}  // namespace sluice
