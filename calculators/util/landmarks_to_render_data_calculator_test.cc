// LandmarksToRenderDataCalculator against hand-computed RenderData: lines
// and points without depth, gradient lines and z-scaled points with depth,
// visibility, RENDER_SCALE, pixel landmarks and option errors.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/landmark.pb.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::mediapipe::LandmarkList;
using ::mediapipe::NormalizedLandmarkList;
using ::mediapipe::RenderAnnotation;
using ::mediapipe::RenderData;
using ::testing::HasSubstr;

template <typename T>
T Parse(const std::string& text) {
  T t;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &t)) << text;
  return t;
}

absl::StatusOr<std::vector<Packet>> RunNode(const std::string& tag, Packet in,
                                        const std::string& options, float scale = 0) {
  CalculatorGraph graph;
  auto col = testing::InitGraphWithCollectors(
      &graph,
      absl::StrCat("input_stream: \"in\" input_stream: \"scale\" node { name: \"lms\" "
                   "calculator: \"LandmarksToRenderDataCalculator\" input_stream: \"",
                   tag, ":in\" ", scale > 0 ? "input_stream: \"RENDER_SCALE:scale\" " : "",
                   "output_stream: \"RENDER_DATA:out\" options { "
                   "[mediapipe.LandmarksToRenderDataCalculatorOptions.ext] { ",
                   options, " } } }"),
      {"out"});
  if (!col.ok()) return col.status();
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  // A node error ends the run: WaitUntilDone reports it, not the feeding.
  if (scale > 0) {
    (void)graph.AddPacketToInputStream("scale", MakePacket<float>(scale).At(Timestamp(1)));
  }
  (void)graph.AddPacketToInputStream("in", in.At(Timestamp(1)));
  (void)graph.CloseAllInputStreams();
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  return (*col)[0]->Packets();
}

constexpr char kFlat[] = R"pb(
  landmark { x: 0.1 y: 0.2 }
  landmark { x: 0.3 y: 0.4 visibility: 0.2 }
  landmark { x: 0.5 y: 0.6 })pb";

TEST(LandmarksToRenderDataCalculatorTest, FlatLandmarksGiveLinesThenPoints) {
  auto out = RunNode("NORM_LANDMARKS", MakePacket<NormalizedLandmarkList>(
                                       Parse<NormalizedLandmarkList>(kFlat)),
                 "landmark_connections: [0, 1, 1, 2, 0, 5] landmark_color { r: 255 } "
                 "connection_color { g: 200 } thickness: 3");
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  const RenderData& rd = (*out)[0].Get<RenderData>();
  // 0-1 and 1-2 (0-5 names a missing landmark), then three points.
  ASSERT_EQ(rd.render_annotations_size(), 5);
  const float xs[] = {0.1f, 0.3f, 0.5f}, ys[] = {0.2f, 0.4f, 0.6f};
  for (int i = 0; i < 2; ++i) {
    const RenderAnnotation& a = rd.render_annotations(i);
    ASSERT_TRUE(a.has_line());
    EXPECT_TRUE(a.line().normalized());
    EXPECT_DOUBLE_EQ(a.line().x_start(), xs[i]);
    EXPECT_DOUBLE_EQ(a.line().y_start(), ys[i]);
    EXPECT_DOUBLE_EQ(a.line().x_end(), xs[i + 1]);
    EXPECT_DOUBLE_EQ(a.line().y_end(), ys[i + 1]);
    EXPECT_EQ(a.color().g(), 200);
    EXPECT_DOUBLE_EQ(a.thickness(), 3);
    EXPECT_TRUE(a.scene_tag().empty());
  }
  for (int i = 0; i < 3; ++i) {
    const RenderAnnotation& a = rd.render_annotations(2 + i);
    EXPECT_EQ(a.scene_tag(), "KEYPOINT");
    EXPECT_EQ(a.color().r(), 255);
    EXPECT_DOUBLE_EQ(a.thickness(), 3);
    EXPECT_TRUE(a.point().normalized());
    EXPECT_DOUBLE_EQ(a.point().x(), xs[i]);
    EXPECT_DOUBLE_EQ(a.point().y(), ys[i]);
  }
}

TEST(LandmarksToRenderDataCalculatorTest, VisibilityThresholdDropsLandmarkAndItsConnections) {
  auto out = RunNode("NORM_LANDMARKS",
                 MakePacket<NormalizedLandmarkList>(Parse<NormalizedLandmarkList>(kFlat)),
                 "landmark_connections: [0, 1, 1, 2, 0, 2] utilize_visibility: true "
                 "visibility_threshold: 0.5 render_landmarks: true");
  ASSERT_TRUE(out.ok()) << out.status();
  const RenderData& rd = (*out)[0].Get<RenderData>();
  ASSERT_EQ(rd.render_annotations_size(), 3);  // line 0-2, points 0 and 2
  EXPECT_DOUBLE_EQ(rd.render_annotations(0).line().x_end(), 0.5f);
  EXPECT_DOUBLE_EQ(rd.render_annotations(1).point().x(), 0.1f);
  EXPECT_DOUBLE_EQ(rd.render_annotations(2).point().x(), 0.5f);
}

TEST(LandmarksToRenderDataCalculatorTest, DepthGivesGradientLinesAndZScaledPoints) {
  // z 0, 0.5, 1: remapped by (z - 0) / (1 + 1e-6).
  auto out = RunNode("LANDMARKS", MakePacket<LandmarkList>(Parse<LandmarkList>(R"pb(
                   landmark { x: 10 y: 20 z: 0 }
                   landmark { x: 30 y: 40 z: 0.5 }
                   landmark { x: 50 y: 60 z: 1 })pb")),
                 "landmark_connections: [0, 1, 1, 2] thickness: 2");
  ASSERT_TRUE(out.ok()) << out.status();
  const RenderData& rd = (*out)[0].Get<RenderData>();
  ASSERT_EQ(rd.render_annotations_size(), 5);
  // Line colours: int(255 * (1 - w)), black at z_min towards white.
  const RenderAnnotation& l0 = rd.render_annotations(0);
  ASSERT_TRUE(l0.has_gradient_line());
  EXPECT_FALSE(l0.gradient_line().normalized());
  EXPECT_EQ(l0.gradient_line().color1().r(), 255);
  EXPECT_EQ(l0.gradient_line().color2().r(), 127);  // 255 * 0.5000005
  EXPECT_EQ(rd.render_annotations(1).gradient_line().color2().b(), 0);  // 255 * 1e-6
  EXPECT_DOUBLE_EQ(l0.thickness(), 2);
  // Points: grey 255 - int(255 w), thickness int(18 (1 - w)).
  const int grey[] = {255, 128, 1}, size[] = {18, 9, 0};
  for (int i = 0; i < 3; ++i) {
    const RenderAnnotation& p = rd.render_annotations(2 + i);
    EXPECT_EQ(p.color().r(), grey[i]) << i;
    EXPECT_EQ(p.color().b(), grey[i]) << i;
    EXPECT_DOUBLE_EQ(p.thickness(), size[i]) << i;
    EXPECT_FALSE(p.point().normalized());
    EXPECT_DOUBLE_EQ(p.point().x(), 10 + 20 * i);
  }
}

TEST(LandmarksToRenderDataCalculatorTest, RenderScaleMultipliesThickness) {
  auto out = RunNode("NORM_LANDMARKS",
                 MakePacket<NormalizedLandmarkList>(Parse<NormalizedLandmarkList>(kFlat)),
                 "thickness: 1.5", 2.0f);
  ASSERT_TRUE(out.ok()) << out.status();
  const RenderData& rd = (*out)[0].Get<RenderData>();
  ASSERT_EQ(rd.render_annotations_size(), 3);
  EXPECT_DOUBLE_EQ(rd.render_annotations(0).thickness(), 3.0);
}

TEST(LandmarksToRenderDataCalculatorTest, BadOptionsNameTheNode) {
  const Packet p = MakePacket<NormalizedLandmarkList>(Parse<NormalizedLandmarkList>(kFlat));
  auto odd = RunNode("NORM_LANDMARKS", p, "landmark_connections: [0, 1, 2]");
  ASSERT_FALSE(odd.ok());
  EXPECT_THAT(odd.status().message(), HasSubstr("\"lms\""));
  auto negative = RunNode("NORM_LANDMARKS", p, "landmark_connections: [0, -1]");
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(), HasSubstr("negative"));
  auto tag = RunNode("POINTS", p, "");
  ASSERT_FALSE(tag.ok());
  EXPECT_THAT(tag.status().message(), HasSubstr("\"lms\""));
}

}  // namespace
}  // namespace sluice
