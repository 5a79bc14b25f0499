// RectToRenderDataCalculator against hand-computed RenderData: corners from
// centre and size (in float, as MediaPipe), the annotation kind chosen by
// filled / oval, off-image rects, options and contract errors.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/rect.pb.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::mediapipe::NormalizedRect;
using ::mediapipe::Rect;
using ::mediapipe::RenderAnnotation;
using ::mediapipe::RenderData;
using ::testing::HasSubstr;

absl::StatusOr<std::vector<Packet>> RunNode(const std::string& tag, Packet in,
                                        const std::string& options) {
  CalculatorGraph graph;
  auto col = testing::InitGraphWithCollectors(
      &graph,
      absl::StrCat("input_stream: \"in\" node { name: \"rects\" calculator: "
                   "\"RectToRenderDataCalculator\" input_stream: \"",
                   tag, ":in\" output_stream: \"RENDER_DATA:out\" options { "
                   "[mediapipe.RectToRenderDataCalculatorOptions.ext] { ",
                   options, " } } }"),
      {"out"});
  if (!col.ok()) return col.status();
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  // A node error ends the run: WaitUntilDone reports it, not the feeding.
  (void)graph.AddPacketToInputStream("in", in.At(Timestamp(5)));
  (void)graph.CloseAllInputStreams();
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  return (*col)[0]->Packets();
}

TEST(RectToRenderDataCalculatorTest, NormRectBecomesARotatedRectangle) {
  NormalizedRect r;
  r.set_x_center(0.5f);
  r.set_y_center(0.4f);
  r.set_width(0.2f);
  r.set_height(0.3f);
  r.set_rotation(0.25f);
  auto out = RunNode("NORM_RECT", MakePacket<NormalizedRect>(r),
                 "color { r: 255 g: 7 } thickness: 4.5");
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].Timestamp(), Timestamp(5));
  const RenderData& rd = (*out)[0].Get<RenderData>();
  ASSERT_EQ(rd.render_annotations_size(), 1);
  const RenderAnnotation& a = rd.render_annotations(0);
  EXPECT_EQ(a.color().r(), 255);
  EXPECT_EQ(a.color().g(), 7);
  EXPECT_EQ(a.color().b(), 0);
  EXPECT_DOUBLE_EQ(a.thickness(), 4.5);
  ASSERT_TRUE(a.has_rectangle());
  const RenderAnnotation::Rectangle& rect = a.rectangle();
  EXPECT_TRUE(rect.normalized());
  EXPECT_DOUBLE_EQ(rect.left(), 0.5f - 0.1f);
  EXPECT_DOUBLE_EQ(rect.top(), 0.4f - 0.15f);
  EXPECT_DOUBLE_EQ(rect.right(), static_cast<double>(0.5f - 0.1f) + 0.2f);
  EXPECT_DOUBLE_EQ(rect.bottom(), static_cast<double>(0.4f - 0.15f) + 0.3f);
  EXPECT_DOUBLE_EQ(rect.rotation(), 0.25f);
  EXPECT_FALSE(rect.has_top_left_thickness());
}

TEST(RectToRenderDataCalculatorTest, PixelRectsFilledAndOval) {
  std::vector<Rect> rects(2);
  rects[0].set_x_center(100);
  rects[0].set_y_center(50);
  rects[0].set_width(41);
  rects[0].set_height(20);
  rects[1].set_x_center(10);
  rects[1].set_y_center(10);
  rects[1].set_width(4);
  rects[1].set_height(4);
  auto filled = RunNode("RECTS", MakePacket<std::vector<Rect>>(rects), "filled: true");
  ASSERT_TRUE(filled.ok()) << filled.status();
  const RenderData& rd = (*filled)[0].Get<RenderData>();
  ASSERT_EQ(rd.render_annotations_size(), 2);
  ASSERT_TRUE(rd.render_annotations(0).has_filled_rectangle());
  const auto& r0 = rd.render_annotations(0).filled_rectangle().rectangle();
  EXPECT_FALSE(r0.normalized());
  EXPECT_DOUBLE_EQ(r0.left(), 79.5);
  EXPECT_DOUBLE_EQ(r0.top(), 40);
  EXPECT_DOUBLE_EQ(r0.right(), 120.5);
  EXPECT_DOUBLE_EQ(r0.bottom(), 60);
  EXPECT_DOUBLE_EQ(rd.render_annotations(0).thickness(), 1.0);  // the default

  auto oval = RunNode("RECT", MakePacket<Rect>(rects[1]), "oval: true");
  ASSERT_TRUE(oval.ok()) << oval.status();
  const auto& a = (*oval)[0].Get<RenderData>().render_annotations(0);
  ASSERT_TRUE(a.has_oval());
  EXPECT_DOUBLE_EQ(a.oval().rectangle().left(), 8);
  EXPECT_DOUBLE_EQ(a.oval().rectangle().bottom(), 12);

  auto filled_oval = RunNode("RECT", MakePacket<Rect>(rects[1]), "oval: true filled: true");
  ASSERT_TRUE(filled_oval.ok()) << filled_oval.status();
  EXPECT_TRUE((*filled_oval)[0].Get<RenderData>().render_annotations(0).has_filled_oval());
}

TEST(RectToRenderDataCalculatorTest, OffImageRectKeepsAnEmptyAnnotation) {
  // Unrotated and wholly right of the image (normalized xmin > 1): MediaPipe
  // keeps the annotation but sets no coordinates.
  std::vector<NormalizedRect> rects(2);
  rects[0].set_x_center(1.5f);
  rects[0].set_y_center(0.5f);
  rects[0].set_width(0.2f);
  rects[0].set_height(0.2f);
  rects[1] = rects[0];
  rects[1].set_rotation(0.1f);  // rotated rects are always kept
  auto out = RunNode("NORM_RECTS", MakePacket<std::vector<NormalizedRect>>(rects),
                 "top_left_thickness: 3");
  ASSERT_TRUE(out.ok()) << out.status();
  const RenderData& rd = (*out)[0].Get<RenderData>();
  ASSERT_EQ(rd.render_annotations_size(), 2);
  const auto& off = rd.render_annotations(0).rectangle();
  EXPECT_FALSE(off.has_left());
  EXPECT_FALSE(off.has_normalized());
  EXPECT_DOUBLE_EQ(off.top_left_thickness(), 3);
  EXPECT_DOUBLE_EQ(rd.render_annotations(1).rectangle().left(), 1.5f - 0.1f);
}

TEST(RectToRenderDataCalculatorTest, BadOptionsAndContractsNameTheNode) {
  auto bad = RunNode("RECT", MakePacket<Rect>(Rect()), "filled: true top_left_thickness: 2");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("\"rects\""));
  EXPECT_THAT(bad.status().message(), HasSubstr("top_left_thickness"));
  auto tag = RunNode("BOX", MakePacket<Rect>(Rect()), "");
  ASSERT_FALSE(tag.ok());
  EXPECT_THAT(tag.status().message(), HasSubstr("\"rects\""));
}

}  // namespace
}  // namespace sluice
