// LabelsToRenderDataCalculator against hand-computed RenderData: line
// placement, colours and outlines cycled per line, label:score text,
// max_num_labels, and errors.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/classification.pb.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::mediapipe::ClassificationList;
using ::mediapipe::RenderData;
using ::testing::HasSubstr;

absl::StatusOr<std::vector<Packet>> RunNode(const std::string& inputs,
                                            const std::vector<std::pair<std::string, Packet>>& feed,
                                            const std::string& options) {
  std::string config;
  for (const auto& [name, p] : feed) absl::StrAppend(&config, "input_stream: \"", name, "\" ");
  absl::StrAppend(&config,
                  "node { name: \"labels\" calculator: \"LabelsToRenderDataCalculator\" ", inputs,
                  " output_stream: \"RENDER_DATA:out\" options { "
                  "[mediapipe.LabelsToRenderDataCalculatorOptions.ext] { ",
                  options, " } } }");
  CalculatorGraph graph;
  auto col = testing::InitGraphWithCollectors(&graph, config, {"out"});
  if (!col.ok()) return col.status();
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  // A node error ends the run: WaitUntilDone reports it, not the feeding.
  for (const auto& [name, p] : feed) (void)graph.AddPacketToInputStream(name, p.At(Timestamp(9)));
  (void)graph.CloseAllInputStreams();
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  return (*col)[0]->Packets();
}

TEST(LabelsToRenderDataCalculatorTest, HandednessAsMediaPipesHandRendererDrawsIt) {
  ClassificationList list;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "classification { label: \"Left\" score: 0.9 display_name: \"L\" } "
      "classification { label: \"Right\" score: 0.1 }",
      &list));
  auto out = RunNode("input_stream: \"CLASSIFICATIONS:c\"", {{"c", MakePacket<ClassificationList>(list)}},
                     "color { r: 255 g: 0 b: 0 } thickness: 10.0 font_height_px: 50 "
                     "horizontal_offset_px: 30 vertical_offset_px: 50 max_num_labels: 1 "
                     "location: TOP_LEFT");
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].Timestamp(), Timestamp(9));
  const RenderData& rd = (*out)[0].Get<RenderData>();
  ASSERT_EQ(rd.render_annotations_size(), 1);
  const auto& a = rd.render_annotations(0);
  EXPECT_EQ(a.color().r(), 255);
  EXPECT_DOUBLE_EQ(a.thickness(), 10);
  EXPECT_EQ(a.text().display_text(), "Left");
  EXPECT_DOUBLE_EQ(a.text().left(), 30);
  EXPECT_DOUBLE_EQ(a.text().baseline(), 50 + 63);  // ceil(50 * 1.25)
  EXPECT_DOUBLE_EQ(a.text().font_height(), 50);
  EXPECT_FALSE(a.text().normalized());
  EXPECT_FALSE(a.text().has_outline_thickness());

  auto named = RunNode("input_stream: \"CLASSIFICATIONS:c\"",
                       {{"c", MakePacket<ClassificationList>(list)}},
                       "use_display_name: true display_classification_score: true");
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ((*named)[0].Get<RenderData>().render_annotations(0).text().display_text(), "L:0.9");
}

TEST(LabelsToRenderDataCalculatorTest, LabelsWithScoresCycleColoursAndOutlines) {
  auto out = RunNode(
      "input_stream: \"LABELS:l\" input_stream: \"SCORES:s\"",
      {{"l", MakePacket<std::vector<std::string>>(std::vector<std::string>{"a", "b", "c", "d"})},
       {"s", MakePacket<std::vector<float>>(std::vector<float>{0.5f, 0.25f, 1.f, 0.f})}},
      "color { r: 1 } color { g: 2 } outline_color { b: 3 } outline_thickness: 1.5 "
      "font_height_px: 10 max_num_labels: 3 font_face: 4");
  ASSERT_TRUE(out.ok()) << out.status();
  const RenderData& rd = (*out)[0].Get<RenderData>();
  ASSERT_EQ(rd.render_annotations_size(), 3);
  const char* texts[] = {"a:0.5", "b:0.25", "c:1"};
  for (int i = 0; i < 3; ++i) {
    const auto& a = rd.render_annotations(i);
    EXPECT_EQ(a.text().display_text(), texts[i]);
    EXPECT_DOUBLE_EQ(a.text().baseline(), 13 * (i + 1));  // ceil(12.5) = 13
    EXPECT_DOUBLE_EQ(a.text().left(), 0);
    EXPECT_EQ(a.text().font_face(), 4);
    EXPECT_EQ(a.color().r(), i % 2 == 0 ? 1 : 0);
    EXPECT_EQ(a.color().g(), i % 2 == 1 ? 2 : 0);
    EXPECT_DOUBLE_EQ(a.thickness(), 2);  // the default
    EXPECT_DOUBLE_EQ(a.text().outline_thickness(), 1.5);
    EXPECT_EQ(a.text().outline_color().b(), 3);
  }
}

TEST(LabelsToRenderDataCalculatorTest, ErrorsNameTheNode) {
  auto bottom = RunNode("input_stream: \"LABELS:l\"",
                        {{"l", MakePacket<std::vector<std::string>>(std::vector<std::string>{"a"})}},
                        "location: BOTTOM_LEFT");
  ASSERT_FALSE(bottom.ok());
  EXPECT_THAT(bottom.status().message(), HasSubstr("\"labels\""));
  auto mismatch = RunNode(
      "input_stream: \"LABELS:l\" input_stream: \"SCORES:s\"",
      {{"l", MakePacket<std::vector<std::string>>(std::vector<std::string>{"a", "b"})},
       {"s", MakePacket<std::vector<float>>(std::vector<float>{0.5f})}},
      "");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(), HasSubstr("\"labels\""));
  auto none = RunNode("input_stream: \"X:l\"", {{"l", MakePacket<int>(1)}}, "");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("\"labels\""));
}

}  // namespace
}  // namespace sluice
