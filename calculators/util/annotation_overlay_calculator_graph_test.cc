// MediaPipe's own hand renderer subgraph
// (../shared/mediapipe_graphs/.../hand_tracking/subgraphs/hand_renderer_cpu.pbtxt)
// runs unchanged: DetectionsToRenderData, RectToRenderData (twice),
// LandmarksToRenderData in a BeginLoop/EndLoopRenderData loop,
// LabelsToRenderData for the handedness, and AnnotationOverlayCalculator
// with untagged and VECTOR inputs. Spot checks of the drawn colours at
// hand-computed pixels, and pixels nothing covers left as they were.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/classification.pb.h"
#include "formats/detection.pb.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "framework/calculator_graph.h"
#include "framework/tool/subgraph_registry.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::mediapipe::ClassificationList;
using ::mediapipe::Detection;
using ::mediapipe::NormalizedLandmarkList;
using ::mediapipe::NormalizedRect;

std::string Shared(const std::string& rel) {
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(d ? d : "../shared", "/", rel);
}

NormalizedRect Rect(float cx, float cy, float w, float h) {
  NormalizedRect r;
  r.set_x_center(cx);
  r.set_y_center(cy);
  r.set_width(w);
  r.set_height(h);
  return r;
}

struct Rgb {
  int r, g, b;
};
Rgb At(const ImageFrame& f, int x, int y) {
  const uint8_t* p = f.Row(y) + 3 * x;
  return {p[0], p[1], p[2]};
}
#define EXPECT_RGB(frame, x, y, R, G, B)          \
  do {                                            \
    const Rgb c = At(frame, x, y);                \
    EXPECT_EQ(c.r, R) << "at " << x << "," << y; \
    EXPECT_EQ(c.g, G) << "at " << x << "," << y; \
    EXPECT_EQ(c.b, B) << "at " << x << "," << y; \
  } while (0)

TEST(AnnotationOverlayGraphTest, MediaPipesHandRendererSubgraphRuns) {
  const std::string file =
      Shared("mediapipe_graphs/mediapipe/graphs/hand_tracking/subgraphs/hand_renderer_cpu.pbtxt");
  ASSERT_TRUE(SubgraphRegistry::Get().RegisterGraphFile(file).ok()) << file;
  CalculatorGraph graph;
  auto col = testing::InitGraphWithCollectors(&graph, R"pb(
    input_stream: "image"
    input_stream: "landmarks"
    input_stream: "handedness"
    input_stream: "palm_rects"
    input_stream: "hand_rects"
    input_stream: "detections"
    node {
      calculator: "HandRendererSubgraph"
      input_stream: "IMAGE:image"
      input_stream: "LANDMARKS:landmarks"
      input_stream: "HANDEDNESS:handedness"
      input_stream: "NORM_RECTS:0:palm_rects"
      input_stream: "NORM_RECTS:1:hand_rects"
      input_stream: "DETECTIONS:detections"
      output_stream: "IMAGE:out"
    })pb",
                                              {"out"});
  ASSERT_TRUE(col.ok()) << col.status();
  ASSERT_TRUE(graph.StartRun({}).ok());

  auto lenna = ReadImageFile(Shared("testdata/images/lenna.png"));
  ASSERT_TRUE(lenna.ok()) << lenna.status();
  ASSERT_EQ(lenna->Width(), 400);
  // 21 landmarks on a 5 x 4 grid plus the wrist, well inside the hand rect;
  // z = 0 everywhere, so no depth colouring.
  NormalizedLandmarkList hand;
  auto add = [&hand](float x, float y) {
    auto* lm = hand.add_landmark();
    lm->set_x(x);
    lm->set_y(y);
  };
  add(0.5f, 0.7f);
  for (int f = 0; f < 5; ++f) {
    for (int j = 0; j < 4; ++j) add(0.35f + 0.075f * f, 0.6f - 0.06f * j);
  }
  ClassificationList handedness;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "classification { label: \"Left\" score: 0.9 }", &handedness));
  Detection palm;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "label_id: 0 score: 0.8 location_data { format: RELATIVE_BOUNDING_BOX "
      "relative_bounding_box { xmin: 0.6 ymin: 0.88 width: 0.2 height: 0.05 } }",
      &palm));

  const Timestamp ts(0);
  auto feed = [&](const char* name, Packet p) {
    ASSERT_TRUE(graph.AddPacketToInputStream(name, p.At(ts)).ok()) << name;
  };
  feed("image", MakePacket<ImageFrame>(*lenna->Clone()));
  feed("landmarks", MakePacket<std::vector<NormalizedLandmarkList>>(
                        std::vector<NormalizedLandmarkList>{hand}));
  feed("handedness", MakePacket<std::vector<ClassificationList>>(
                         std::vector<ClassificationList>{handedness}));
  feed("palm_rects", MakePacket<std::vector<NormalizedRect>>(
                         std::vector<NormalizedRect>{Rect(0.5f, 0.5f, 0.9f, 0.9f)}));
  feed("hand_rects", MakePacket<std::vector<NormalizedRect>>(
                         std::vector<NormalizedRect>{Rect(0.5f, 0.5f, 0.6f, 0.6f)}));
  feed("detections", MakePacket<std::vector<Detection>>(std::vector<Detection>{palm}));
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  absl::Status done = graph.WaitUntilDone();
  ASSERT_TRUE(done.ok()) << done;
  ASSERT_EQ((*col)[0]->Size(), 1u);
  const ImageFrame& out = (*col)[0]->Packets()[0].Get<ImageFrame>();
  ASSERT_EQ(out.Width(), 400);

  // Landmarks: filled red dots of radius 4 (drawn last), e.g. the wrist at
  // (200, 280) and landmark 1 at (140, 240).
  EXPECT_RGB(out, 200, 280, 255, 0, 0);
  EXPECT_RGB(out, 140, 240, 255, 0, 0);
  // Connection 0-1 (green, 4 px) halfway: (170, 260).
  EXPECT_RGB(out, 170, 260, 0, 255, 0);
  // Hand rect (red, 4 px): corners (80, 80) - (320, 320); its top edge.
  EXPECT_RGB(out, 250, 80, 255, 0, 0);
  // Palm rect (125, 0, 122): (20, 20) - (380, 380); its right edge.
  EXPECT_RGB(out, 380, 200, 125, 0, 122);
  // Palm detection box (green): (240, 352) - (320, 372); its top edge.
  EXPECT_RGB(out, 280, 352, 0, 255, 0);
  // Handedness "Left" in red, thickness 10, baseline 113 from x = 30.
  int red = 0;
  for (int y = 63; y < 113; ++y) {
    for (int x = 30; x < 200; ++x) {
      const Rgb c = At(out, x, y);
      red += c.r == 255 && c.g == 0 && c.b == 0;
    }
  }
  EXPECT_GT(red, 500);
  // Outside everything: unchanged.
  for (const auto& [x, y] : {std::pair<int, int>{5, 5}, {395, 200}, {200, 395}, {200, 150}}) {
    const Rgb a = At(out, x, y), b = At(*lenna, x, y);
    EXPECT_TRUE(a.r == b.r && a.g == b.g && a.b == b.b) << "at " << x << "," << y;
  }
}

}  // namespace
}  // namespace sluice
