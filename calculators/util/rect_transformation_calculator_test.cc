#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/rect.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::NormalizedRect;
using mediapipe::Rect;
using testing::At;
using testing::RunGraph;

std::string Graph(const std::string& tag, const std::string& options) {
  return R"(
    input_stream: "rect"
    input_stream: "size"
    output_stream: "out"
    node {
      calculator: "RectTransformationCalculator"
      input_stream: ")" +
         tag + R"(:rect"
      input_stream: "IMAGE_SIZE:size"
      output_stream: "out"
      options: { [mediapipe.RectTransformationCalculatorOptions.ext] { )" +
         options + R"( } }
    })";
}

NormalizedRect Norm(float xc, float yc, float w, float h, float rotation) {
  NormalizedRect r;
  r.set_x_center(xc);
  r.set_y_center(yc);
  r.set_width(w);
  r.set_height(h);
  r.set_rotation(rotation);
  return r;
}

NormalizedRect Transform(const NormalizedRect& in, std::pair<int, int> size,
                         const std::string& options) {
  auto run = RunGraph(Graph("NORM_RECT", options), {{"rect", At(in, 1)}, {"size", At(size, 1)}},
                      {"out"});
  EXPECT_TRUE(run.status.ok()) << run.status;
  if (run.outputs.empty() || run.outputs[0].size() != 1) {
    ADD_FAILURE() << "no output";
    return {};
  }
  return run.outputs[0][0].Get<NormalizedRect>();
}

TEST(RectTransformationCalculatorTest, UnrotatedShiftSquareAndScale) {
  // 20x40 px rect in a 100x200 image; shift up by half its height, square to
  // the long side (40 px), then double.
  NormalizedRect out = Transform(Norm(0.5f, 0.5f, 0.2f, 0.2f, 0), {100, 200},
                                 "scale_x: 2 scale_y: 2 shift_y: -0.5 square_long: true");
  EXPECT_NEAR(out.x_center(), 0.5f, 1e-6);
  EXPECT_NEAR(out.y_center(), 0.4f, 1e-6);
  EXPECT_NEAR(out.width(), 0.8f, 1e-6);   // 40 px * 2 / 100
  EXPECT_NEAR(out.height(), 0.4f, 1e-6);  // 40 px * 2 / 200
  EXPECT_EQ(out.rotation(), 0.0f);
  // square_short uses the short side (20 px).
  out = Transform(Norm(0.5f, 0.5f, 0.2f, 0.2f, 0), {100, 200}, "square_short: true");
  EXPECT_NEAR(out.width(), 0.2f, 1e-6);
  EXPECT_NEAR(out.height(), 0.1f, 1e-6);
}

TEST(RectTransformationCalculatorTest, ShiftFollowsRotation) {
  // Rotated +90 degrees: "up" (shift_y < 0) in the rect's frame is +x in the image.
  NormalizedRect out =
      Transform(Norm(0.5f, 0.5f, 0.2f, 0.1f, M_PI / 2), {100, 100}, "shift_y: -0.5");
  EXPECT_NEAR(out.x_center(), 0.55f, 1e-6);
  EXPECT_NEAR(out.y_center(), 0.5f, 1e-6);
  EXPECT_NEAR(out.rotation(), M_PI / 2, 1e-6);
  // Rotated -45 degrees, shifted one width along its x axis.
  out = Transform(Norm(0.5f, 0.5f, 0.2f, 0.2f, -M_PI / 4), {100, 100}, "shift_x: 1");
  EXPECT_NEAR(out.x_center(), 0.5f + 0.2f * std::cos(M_PI / 4), 1e-6);
  EXPECT_NEAR(out.y_center(), 0.5f - 0.2f * std::sin(M_PI / 4), 1e-6);
  EXPECT_NEAR(out.rotation(), -M_PI / 4, 1e-6);
}

TEST(RectTransformationCalculatorTest, ShiftUsesPixelsForRotatedRects) {
  // 200x100 image, rect 0.1 x 0.2 (20x20 px) at 90 degrees, shift_x 1:
  // the shift is 20 px along +y, i.e. 0.2 in normalized y.
  NormalizedRect out = Transform(Norm(0.5f, 0.5f, 0.1f, 0.2f, M_PI / 2), {200, 100}, "shift_x: 1");
  EXPECT_NEAR(out.x_center(), 0.5f, 1e-6);
  EXPECT_NEAR(out.y_center(), 0.7f, 1e-6);
}

TEST(RectTransformationCalculatorTest, RotationOptionSteersShiftOnly) {
  NormalizedRect out =
      Transform(Norm(0.5f, 0.5f, 0.2f, 0.1f, 0), {100, 100}, "rotation_degrees: 90 shift_y: -0.5");
  EXPECT_NEAR(out.x_center(), 0.55f, 1e-6);
  EXPECT_EQ(out.rotation(), 0.0f);  // the input rotation is kept
}

TEST(RectTransformationCalculatorTest, PixelRectsAndVectors) {
  Rect r;
  r.set_x_center(50);
  r.set_y_center(50);
  r.set_width(20);
  r.set_height(10);
  auto run = RunGraph(R"(
      input_stream: "rect"
      output_stream: "out"
      node {
        calculator: "RectTransformationCalculator"
        input_stream: "RECT:rect"
        output_stream: "out"
        options: { [mediapipe.RectTransformationCalculatorOptions.ext] {
          shift_x: 0.5 scale_x: 1.5 scale_y: 1.5 } }
      })",
                      {{"rect", At(r, 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& out = run.outputs[0][0].Get<Rect>();
  EXPECT_EQ(out.x_center(), 60);
  EXPECT_EQ(out.y_center(), 50);
  EXPECT_EQ(out.width(), 30);
  EXPECT_EQ(out.height(), 15);

  std::vector<NormalizedRect> rects = {Norm(0.5f, 0.5f, 0.1f, 0.1f, 0),
                                       Norm(0.2f, 0.2f, 0.2f, 0.1f, 0)};
  auto many = RunGraph(Graph("NORM_RECTS", "scale_x: 2 scale_y: 3"),
                       {{"rect", At(rects, 1)}, {"size", At(std::make_pair(10, 10), 1)}}, {"out"});
  ASSERT_TRUE(many.status.ok()) << many.status;
  const auto& outs = many.outputs[0][0].Get<std::vector<NormalizedRect>>();
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_NEAR(outs[1].width(), 0.4f, 1e-6);
  EXPECT_NEAR(outs[1].height(), 0.3f, 1e-6);
}

TEST(RectTransformationCalculatorTest, RejectsTwoInputsOrMissingImageSize) {
  EXPECT_FALSE(RunGraph(R"(
      input_stream: "a" input_stream: "b" output_stream: "out"
      node { calculator: "RectTransformationCalculator"
             input_stream: "RECT:a" input_stream: "NORM_RECT:b" output_stream: "out" })",
                        {}, {"out"})
                   .status.ok());
  EXPECT_FALSE(RunGraph(R"(
      input_stream: "a" output_stream: "out"
      node { calculator: "RectTransformationCalculator"
             input_stream: "NORM_RECT:a" output_stream: "out" })",
                        {}, {"out"})
                   .status.ok());
}

}  // namespace
}  // namespace sluice
