// DetectionsToRenderDataCalculator against hand-computed RenderData: label
// text and line spacing for relative and pixel boxes, the feature tag, the
// clipped box, keypoints, detection ids, empty input and errors.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/detection.pb.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::mediapipe::Detection;
using ::mediapipe::RenderAnnotation;
using ::mediapipe::RenderData;
using ::testing::HasSubstr;

Detection Parse(const std::string& text) {
  Detection d;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &d)) << text;
  return d;
}

absl::StatusOr<std::vector<Packet>> RunNode(const std::vector<Detection>& detections,
                                        const std::string& options) {
  CalculatorGraph graph;
  auto col = testing::InitGraphWithCollectors(
      &graph,
      absl::StrCat("input_stream: \"in\" node { name: \"dets\" calculator: "
                   "\"DetectionsToRenderDataCalculator\" input_stream: \"DETECTIONS:in\" "
                   "output_stream: \"RENDER_DATA:out\" options { "
                   "[mediapipe.DetectionsToRenderDataCalculatorOptions.ext] { ",
                   options, " } } }"),
      {"out"});
  if (!col.ok()) return col.status();
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  // A node error ends the run: WaitUntilDone reports it, not the feeding.
  (void)graph.AddPacketToInputStream(
      "in", MakePacket<std::vector<Detection>>(detections).At(Timestamp(3)));
  (void)graph.CloseAllInputStreams();
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  return (*col)[0]->Packets();
}

void ExpectColour(const RenderAnnotation& a, int r, int g, int b, double thickness) {
  EXPECT_EQ(a.color().r(), r);
  EXPECT_EQ(a.color().g(), g);
  EXPECT_EQ(a.color().b(), b);
  EXPECT_DOUBLE_EQ(a.thickness(), thickness);
}

TEST(DetectionsToRenderDataCalculatorTest, RelativeBoxWithLabelFeatureTagAndKeypoints) {
  const Detection d = Parse(R"pb(
    label: "hand" score: 0.876 feature_tag: "left"
    location_data {
      format: RELATIVE_BOUNDING_BOX
      relative_bounding_box { xmin: -0.1 ymin: 0.2 width: 0.5 height: 0.5 }
      relative_keypoints { x: 0.3 y: 0.4 }
      relative_keypoints { x: 0.35 y: 0.45 }
    })pb");
  auto out = RunNode({d}, "color { g: 255 } thickness: 2 text { font_face: 2 }");
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].Timestamp(), Timestamp(3));
  const RenderData& rd = (*out)[0].Get<RenderData>();
  EXPECT_EQ(rd.scene_class(), "DETECTION");
  ASSERT_EQ(rd.render_annotations_size(), 5);
  // One label + the feature tag: lines of min(0.1, 1/2) * 0.5 = 0.05.
  const float line = 0.5f * 0.1;
  const RenderAnnotation& label = rd.render_annotations(0);
  EXPECT_EQ(label.scene_tag(), "LABEL");
  ExpectColour(label, 0, 255, 0, 2);
  EXPECT_EQ(label.text().display_text(), "hand,0.88,");
  EXPECT_EQ(label.text().font_face(), 2);  // from the options' text
  EXPECT_TRUE(label.text().normalized());
  EXPECT_DOUBLE_EQ(label.text().left(), 0.0);  // clipped into the image
  EXPECT_DOUBLE_EQ(label.text().baseline(), 0.2f + line);
  EXPECT_DOUBLE_EQ(label.text().font_height(), line * 0.9);

  const RenderAnnotation& tag = rd.render_annotations(1);
  EXPECT_EQ(tag.scene_tag(), "FEATURE");
  EXPECT_EQ(tag.text().display_text(), "left");
  EXPECT_EQ(tag.text().font_face(), 0);  // not from the options
  EXPECT_DOUBLE_EQ(tag.text().baseline(), 0.2f + 0.5f);
  EXPECT_DOUBLE_EQ(tag.text().font_height(), line * 0.9);

  const RenderAnnotation& box = rd.render_annotations(2);
  EXPECT_EQ(box.scene_tag(), "LOCATION");
  ExpectColour(box, 0, 255, 0, 2);
  EXPECT_TRUE(box.rectangle().normalized());
  EXPECT_DOUBLE_EQ(box.rectangle().left(), 0.0);
  EXPECT_DOUBLE_EQ(box.rectangle().top(), 0.2f);
  EXPECT_DOUBLE_EQ(box.rectangle().right(), static_cast<double>(-0.1f) + 0.5f);
  EXPECT_DOUBLE_EQ(box.rectangle().bottom(), static_cast<double>(0.2f) + 0.5f);

  for (int k = 0; k < 2; ++k) {
    const RenderAnnotation& p = rd.render_annotations(3 + k);
    EXPECT_EQ(p.scene_tag(), "KEYPOINT");
    EXPECT_TRUE(p.point().normalized());
    EXPECT_DOUBLE_EQ(p.point().x(), k == 0 ? 0.3f : 0.35f);
    EXPECT_DOUBLE_EQ(p.point().y(), k == 0 ? 0.4f : 0.45f);
  }
}

TEST(DetectionsToRenderDataCalculatorTest, PixelBoxWithIdsOneLabelPerLine) {
  const Detection d = Parse(R"pb(
    label_id: 3 label_id: 7 score: 0.5 score: 0.254 detection_id: 12
    location_data {
      format: BOUNDING_BOX
      bounding_box { xmin: 40 ymin: 30 width: 100 height: 60 }
    })pb");
  auto out = RunNode({d}, "one_label_per_line: true render_detection_id: true text_delimiter: \"|\" "
                      "text { font_height: 10 } scene_class: \"X\"");
  ASSERT_TRUE(out.ok()) << out.status();
  const RenderData& rd = (*out)[0].Get<RenderData>();
  EXPECT_EQ(rd.scene_class(), "X");
  ASSERT_EQ(rd.render_annotations_size(), 5);  // 3 lines, feature tag, box
  const char* lines[] = {"Id: 12", "3|0.5|", "7|0.25|"};
  for (int i = 0; i < 3; ++i) {
    const auto& t = rd.render_annotations(i).text();
    EXPECT_EQ(t.display_text(), lines[i]);
    EXPECT_FALSE(t.normalized());
    EXPECT_DOUBLE_EQ(t.left(), 40);
    EXPECT_DOUBLE_EQ(t.baseline(), 30 + 10 * (i + 1));
    EXPECT_DOUBLE_EQ(t.font_height(), 10);
  }
  EXPECT_DOUBLE_EQ(rd.render_annotations(3).text().baseline(), 90);
  EXPECT_DOUBLE_EQ(rd.render_annotations(3).text().font_height(), 8);  // proto default
  const auto& box = rd.render_annotations(4).rectangle();
  EXPECT_FALSE(box.normalized());
  EXPECT_DOUBLE_EQ(box.left(), 40);
  EXPECT_DOUBLE_EQ(box.top(), 30);
  EXPECT_DOUBLE_EQ(box.right(), 140);
  EXPECT_DOUBLE_EQ(box.bottom(), 90);
}

TEST(DetectionsToRenderDataCalculatorTest, LabelsOnOneLineByDefault) {
  const Detection d = Parse(R"pb(
    label: "a" label: "b" score: 0.5 score: 0.75
    location_data { format: BOUNDING_BOX bounding_box { xmin: 1 ymin: 2 width: 3 height: 4 } })pb");
  auto out = RunNode({d}, "");
  ASSERT_TRUE(out.ok()) << out.status();
  const RenderData& rd = (*out)[0].Get<RenderData>();
  ASSERT_EQ(rd.render_annotations_size(), 3);
  EXPECT_EQ(rd.render_annotations(0).text().display_text(), "a,0.5,b,0.75,");
  EXPECT_DOUBLE_EQ(rd.render_annotations(0).text().baseline(), 2 + 8);
}

TEST(DetectionsToRenderDataCalculatorTest, EmptyInputGivesEmptyRenderDataOrNothing) {
  auto empty = RunNode({}, "");
  ASSERT_TRUE(empty.ok()) << empty.status();
  ASSERT_EQ(empty->size(), 1u);
  EXPECT_EQ((*empty)[0].Get<RenderData>().render_annotations_size(), 0);
  EXPECT_EQ((*empty)[0].Get<RenderData>().scene_class(), "DETECTION");
  auto none = RunNode({}, "produce_empty_packet: false");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
}

TEST(DetectionsToRenderDataCalculatorTest, BadDetectionsNameTheNode) {
  for (const char* bad :
       {"label: \"a\" location_data { format: BOUNDING_BOX }",
        "label: \"a\" score: 1 location_data { format: MASK }",
        "label: \"a\" label_id: 1 label_id: 2 score: 1 score: 1 "
        "location_data { format: BOUNDING_BOX }"}) {
    SCOPED_TRACE(bad);
    auto out = RunNode({Parse(bad)}, "");
    ASSERT_FALSE(out.ok());
    EXPECT_THAT(out.status().message(), HasSubstr("\"dets\""));
  }
}

}  // namespace
}  // namespace sluice
