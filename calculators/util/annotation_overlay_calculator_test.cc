// AnnotationOverlayCalculator's CPU path. Each annotation kind is drawn on a
// real image (../shared/testdata/images/lenna.png) and compared, pixel for
// pixel, with the OpenCV calls the test makes itself from hand-computed
// pixel coordinates. Also: normalized vs pixel coordinates, RenderData
// pass-through, canvas mode, formats, timestamps and errors.
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "calculators/util/annotation_overlay_calculator.pb.h"
#include "calculators/util/detections_to_render_data_calculator.pb.h"
#include "calculators/util/labels_to_render_data_calculator.pb.h"
#include "calculators/util/landmarks_to_render_data_calculator.pb.h"
#include "calculators/util/rect_to_render_data_calculator.pb.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_frame_opencv.h"
#include "formats/image_io.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "opencv2/core.hpp"
#include "opencv2/imgproc.hpp"

namespace sluice {
namespace {

using ::mediapipe::RenderData;
using ::sluice::testing::InitGraphWithCollectors;
using ::testing::HasSubstr;

std::string Testdata(const std::string& rel) {
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(d ? d : "../shared", "/testdata/", rel);
}

ImageFrame Lenna(ImageFormat::Format format = ImageFormat::SRGB) {
  auto f = ReadImageFile(Testdata("images/lenna.png"), format);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *std::move(f) : *ImageFrame::Create(format, 400, 400);
}

RenderData Parse(const std::string& text) {
  RenderData rd;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &rd)) << text;
  return rd;
}

struct RunResult {
  absl::Status status;
  std::vector<Packet> out;
};

// One node "overlay" with input image stream "in" (unless `image_tag` is
// empty), RenderData streams "rd0".. (untagged) and output "<out_tag>:out".
// Each step feeds the image (if any) and the listed RenderData at its
// timestamp.
struct Step {
  int64_t ts;
  Packet image;
  std::vector<Packet> render_data;  // by index; empty packets are not sent
};
RunResult RunOverlay(const std::string& image_tag, const std::string& out_tag, int render_inputs,
               const std::vector<Step>& steps, const std::string& options = "",
               const std::string& extra_inputs = "") {
  RunResult r;
  std::string config = "input_stream: \"in\"\n";
  std::string node = "node { name: \"overlay\" calculator: \"AnnotationOverlayCalculator\" ";
  if (!image_tag.empty()) absl::StrAppend(&node, "input_stream: \"", image_tag, ":in\" ");
  for (int i = 0; i < render_inputs; ++i) {
    absl::StrAppend(&config, "input_stream: \"rd", i, "\"\n");
    absl::StrAppend(&node, "input_stream: \"rd", i, "\" ");
  }
  absl::StrAppend(&node, extra_inputs, " output_stream: \"", out_tag, ":out\" ");
  if (!options.empty()) {
    absl::StrAppend(&node, "options { [mediapipe.AnnotationOverlayCalculatorOptions.ext] { ",
                    options, " } } ");
  }
  absl::StrAppend(&config, node, "}\n");
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, config, {"out"});
  if (!c.ok()) {
    r.status = c.status();
    return r;
  }
  r.status = graph.StartRun({});
  if (!r.status.ok()) return r;
  for (const Step& s : steps) {
    for (size_t i = 0; i < s.render_data.size(); ++i) {
      if (s.render_data[i].IsEmpty()) continue;
      (void)graph.AddPacketToInputStream(absl::StrCat("rd", i), s.render_data[i].At(Timestamp(s.ts)));
    }
    if (!s.image.IsEmpty()) (void)graph.AddPacketToInputStream("in", s.image.At(Timestamp(s.ts)));
  }
  (void)graph.CloseAllInputStreams();
  r.status = graph.WaitUntilDone();
  r.out = (*c)[0]->Packets();
  return r;
}

// Runs one RenderData over `frame` (as an ImageFrame packet) and returns the
// output frame.
absl::StatusOr<ImageFrame> Overlay(const ImageFrame& frame, const RenderData& rd,
                                   const std::string& options = "") {
  RunResult r = RunOverlay("IMAGE", "IMAGE", 1,
                     {{0, MakePacket<ImageFrame>(*frame.Clone()), {MakePacket<RenderData>(rd)}}},
                     options);
  if (!r.status.ok()) return r.status;
  if (r.out.size() != 1) return absl::InternalError(absl::StrCat(r.out.size(), " outputs"));
  return r.out[0].Get<ImageFrame>().Clone();
}

int64_t DifferingBytes(const ImageFrame& a, const ImageFrame& b) {
  if (a.Width() != b.Width() || a.Height() != b.Height() || a.Format() != b.Format()) return -1;
  int64_t n = 0;
  const int row = a.Width() * a.NumberOfChannels();
  for (int y = 0; y < a.Height(); ++y) {
    for (int x = 0; x < row; ++x) n += a.Row(y)[x] != b.Row(y)[x];
  }
  return n;
}

struct Primitive {
  const char* name;
  std::string annotation;  // one RenderAnnotation in text format
  std::function<void(cv::Mat&)> expected;
};

const cv::Scalar kRed(255, 0, 0), kGreen(0, 200, 0), kBlue(30, 60, 250);

std::vector<Primitive> Primitives() {
  return {
      {"rectangle",
       "rectangle { left: 10.7 top: 20 right: 110 bottom: 80 } thickness: 2.5 "
       "color { r: 255 }",
       // Pixel coordinates truncate, thickness rounds (2.5 -> 3).
       [](cv::Mat& m) { cv::rectangle(m, cv::Rect(10, 20, 100, 60), kRed, 3); }},
      {"rotated rectangle",
       "rectangle { left: 100 top: 100 right: 200 bottom: 160 rotation: 1.5707963267948966 } "
       "thickness: 2 color { g: 200 }",
       // A quarter turn about (150, 130): 60 wide, 100 tall.
       [](cv::Mat& m) {
         const cv::Point v[4] = {{120, 80}, {180, 80}, {180, 180}, {120, 180}};
         for (int i = 0; i < 4; ++i) cv::line(m, v[i], v[(i + 1) % 4], kGreen, 2);
       }},
      {"rectangle with top-left dot",
       "rectangle { left: 40 top: 50 right: 140 bottom: 90 top_left_thickness: 6 } "
       "thickness: 1 color { r: 30 g: 60 b: 250 }",
       [](cv::Mat& m) {
         cv::rectangle(m, cv::Rect(40, 50, 100, 40), kBlue, 1);
         cv::ellipse(m, cv::Point(40, 50), cv::Size(6, 6), 0, 0, 360, kBlue, cv::FILLED);
       }},
      {"filled rectangle",
       "filled_rectangle { rectangle { left: 300 top: 10 right: 390 bottom: 60 } "
       "fill_color { r: 1 } } color { r: 255 }",
       [](cv::Mat& m) { cv::rectangle(m, cv::Rect(300, 10, 90, 50), kRed, cv::FILLED); }},
      {"filled rotated rectangle",
       "filled_rectangle { rectangle { left: 100 top: 100 right: 200 bottom: 160 "
       "rotation: -1.5707963267948966 } } color { g: 200 }",
       [](cv::Mat& m) {
         const cv::Point v[4] = {{120, 80}, {180, 80}, {180, 180}, {120, 180}};
         cv::fillConvexPoly(m, v, 4, kGreen);
       }},
      {"rounded rectangle",
       "rounded_rectangle { rectangle { left: 20 top: 220 right: 120 bottom: 280 } "
       "corner_radius: 10 line_type: 8 } thickness: 2 color { b: 250 r: 30 g: 60 }",
       // Four edges stopping `radius` short of the corners, four quarter arcs.
       [](cv::Mat& m) {
         cv::line(m, {30, 220}, {110, 220}, kBlue, 2, cv::LINE_8);
         cv::line(m, {120, 230}, {120, 270}, kBlue, 2, cv::LINE_8);
         cv::line(m, {30, 280}, {110, 280}, kBlue, 2, cv::LINE_8);
         cv::line(m, {20, 230}, {20, 270}, kBlue, 2, cv::LINE_8);
         cv::ellipse(m, {30, 230}, {10, 10}, 180, 0, 90, kBlue, 2, cv::LINE_8);
         cv::ellipse(m, {110, 230}, {10, 10}, 270, 0, 90, kBlue, 2, cv::LINE_8);
         cv::ellipse(m, {110, 270}, {10, 10}, 0, 0, 90, kBlue, 2, cv::LINE_8);
         cv::ellipse(m, {30, 270}, {10, 10}, 90, 0, 90, kBlue, 2, cv::LINE_8);
       }},
      {"filled rounded rectangle, radius 0",
       "filled_rounded_rectangle { rounded_rectangle { rectangle { left: 200 top: 300 "
       "right: 260 bottom: 340 } } } color { r: 255 }",
       [](cv::Mat& m) { cv::rectangle(m, {200, 300}, {260, 340}, kRed, cv::FILLED); }},
      {"oval",
       "oval { rectangle { left: 200 top: 200 right: 300 bottom: 260 } } thickness: 2 "
       "color { g: 200 }",
       [](cv::Mat& m) { cv::ellipse(m, {250, 230}, {50, 30}, 0, 0, 360, kGreen, 2); }},
      {"filled oval",
       "filled_oval { oval { rectangle { left: 250 top: 300 right: 350 bottom: 390 } } } "
       "color { r: 30 g: 60 b: 250 }",
       [](cv::Mat& m) { cv::ellipse(m, {300, 345}, {50, 45}, 0, 0, 360, kBlue, cv::FILLED); }},
      {"point",
       "point { x: 200 y: 200 } thickness: 4 color { r: 255 }",
       [](cv::Mat& m) { cv::circle(m, {200, 200}, 4, kRed, cv::FILLED); }},
      {"line",
       "line { x_start: 10 y_start: 390 x_end: 390 y_end: 10 } thickness: 3 color { g: 200 }",
       [](cv::Mat& m) { cv::line(m, {10, 390}, {390, 10}, kGreen, 3); }},
      {"gradient line",
       "gradient_line { x_start: 20 y_start: 350 x_end: 120 y_end: 350 color1 { r: 255 } "
       "color2 { b: 250 r: 30 g: 60 } } thickness: 3",
       // 101 pixels; the i-th square is i/101 of the way from color1 to color2.
       [](cv::Mat& m) {
         for (int i = 0; i <= 100; ++i) {
           const double t = i / 101.0;
           cv::rectangle(m, cv::Rect(20 + i, 350, 3, 3), kRed * (1 - t) + kBlue * t, cv::FILLED,
                         cv::LINE_4);
         }
       }},
      {"arrow",
       "arrow { x_start: 50 y_start: 300 x_end: 150 y_end: 300 } thickness: 2 color { r: 255 }",
       // Head strokes from 20 px back and 20 px to either side.
       [](cv::Mat& m) {
         cv::line(m, {50, 300}, {150, 300}, kRed, 2);
         cv::line(m, {130, 320}, {150, 300}, kRed, 2);
         cv::line(m, {130, 280}, {150, 300}, kRed, 2);
       }},
      {"text",
       "text { display_text: \"Sluice 42\" left: 50 baseline: 200 font_height: 20 } "
       "thickness: 2 color { r: 255 g: 255 b: 255 }",
       // Font scale: (height - (thickness + 1) / 2) / (cap 12 + base 9).
       [](cv::Mat& m) {
         cv::putText(m, "Sluice 42", {50, 200}, cv::FONT_HERSHEY_SIMPLEX, 18.5 / 21,
                     cv::Scalar(255, 255, 255), 2, cv::LINE_8);
       }},
      {"outlined plain text",
       "text { display_text: \"ok\" left: 300 baseline: 120 font_height: 30 font_face: 1 "
       "outline_thickness: 2 outline_color { g: 200 } } thickness: 1 color { r: 255 }",
       [](cv::Mat& m) {
         const double scale = (30 - 1.0) / 9;  // PLAIN: cap 4 + base 5
         cv::putText(m, "ok", {300, 120}, cv::FONT_HERSHEY_PLAIN, scale, kGreen, 5, cv::LINE_8);
         cv::putText(m, "ok", {300, 120}, cv::FONT_HERSHEY_PLAIN, scale, kRed, 1, cv::LINE_8);
       }},
      {"scribble",
       "scribble { point { x: 10 y: 10 } point { x: 30 y: 12 } point { x: 0.25 y: 0.1 "
       "normalized: true } } thickness: 2 color { g: 200 }",
       [](cv::Mat& m) {
         for (cv::Point p : {cv::Point(10, 10), cv::Point(30, 12), cv::Point(100, 40)}) {
           cv::circle(m, p, 2, kGreen, cv::FILLED);
         }
       }},
  };
}

// RenderData and the options keep MediaPipe's field numbers, defaults and
// extension numbers, so MediaPipe's graphs and packets read the same.
TEST(AnnotationOverlayCalculatorTest, ProtosKeepMediaPipesNumbersAndDefaults) {
  using google::protobuf::Descriptor;
  auto number = [](const Descriptor* d, const char* field) {
    const auto* f = d->FindFieldByName(field);
    return f == nullptr ? -1 : f->number();
  };
  const Descriptor* a = mediapipe::RenderAnnotation::descriptor();
  EXPECT_EQ(a->full_name(), "mediapipe.RenderAnnotation");
  EXPECT_EQ(number(a, "rounded_rectangle"), 9);
  EXPECT_EQ(number(a, "filled_rounded_rectangle"), 10);
  EXPECT_EQ(number(a, "thickness"), 11);
  EXPECT_EQ(number(a, "color"), 12);
  EXPECT_EQ(number(a, "scene_tag"), 13);
  EXPECT_EQ(number(a, "gradient_line"), 14);
  EXPECT_EQ(number(a, "scribble"), 15);
  EXPECT_EQ(number(mediapipe::RenderAnnotation::Text::descriptor(), "outline_thickness"), 11);
  EXPECT_EQ(number(mediapipe::RenderAnnotation::Text::descriptor(), "outline_color"), 12);
  EXPECT_EQ(number(mediapipe::RenderData::descriptor(), "scene_viewport"), 3);
  const mediapipe::RenderAnnotation def;
  EXPECT_EQ(def.thickness(), 1.0);
  EXPECT_EQ(def.text().font_height(), 8);
  EXPECT_EQ(def.rounded_rectangle().line_type(), 4);
  EXPECT_EQ(def.line().line_type(), mediapipe::RenderAnnotation::Line::SOLID);

  const mediapipe::AnnotationOverlayCalculatorOptions o;
  EXPECT_EQ(o.canvas_width_px(), 1920);
  EXPECT_EQ(o.canvas_height_px(), 1080);
  EXPECT_TRUE(o.gpu_uses_top_left_origin());
  EXPECT_EQ(o.gpu_scale_factor(), 1.0f);
  EXPECT_EQ(number(o.GetDescriptor(), "gpu_scale_factor"), 7);
  EXPECT_EQ(mediapipe::AnnotationOverlayCalculatorOptions::ext.number(), 250607623);
  EXPECT_EQ(mediapipe::DetectionsToRenderDataCalculatorOptions::ext.number(), 248360806);
  EXPECT_EQ(mediapipe::LandmarksToRenderDataCalculatorOptions::ext.number(), 258435389);
  EXPECT_EQ(mediapipe::RectToRenderDataCalculatorOptions::ext.number(), 262270380);
  EXPECT_EQ(mediapipe::LabelsToRenderDataCalculatorOptions::ext.number(), 271660364);
  EXPECT_EQ(number(mediapipe::LandmarksToRenderDataCalculatorOptions::descriptor(),
                   "render_landmarks"),
            14);
  EXPECT_EQ(mediapipe::LandmarksToRenderDataCalculatorOptions().max_depth_circle_thickness(), 18);
  EXPECT_EQ(mediapipe::DetectionsToRenderDataCalculatorOptions().scene_class(), "DETECTION");
  EXPECT_EQ(mediapipe::LabelsToRenderDataCalculatorOptions().font_height_px(), 50);
}

TEST(AnnotationOverlayCalculatorTest, DrawsEveryPrimitiveAsTheOpenCvCallsDo) {
  const ImageFrame lenna = Lenna();
  for (const Primitive& p : Primitives()) {
    SCOPED_TRACE(p.name);
    absl::StatusOr<ImageFrame> got =
        Overlay(lenna, Parse(absl::StrCat("render_annotations { ", p.annotation, " }")));
    ASSERT_TRUE(got.ok()) << got.status();
    ImageFrame want = *lenna.Clone();
    cv::Mat m = MatView(&want);
    p.expected(m);
    EXPECT_GT(DifferingBytes(want, lenna), 0) << "the expectation draws nothing";
    EXPECT_EQ(DifferingBytes(*got, want), 0);
  }
}

TEST(AnnotationOverlayCalculatorTest, DrawsAllAnnotationsOfAllInputsInOrder) {
  // Later annotations cover earlier ones; untagged inputs by index, then VECTOR.
  const ImageFrame lenna = Lenna();
  const RenderData a = Parse(
      "render_annotations { filled_rectangle { rectangle { left: 10 top: 10 right: 200 "
      "bottom: 200 } } color { r: 255 } }");
  const RenderData b = Parse(
      "render_annotations { filled_oval { oval { rectangle { left: 50 top: 50 right: 150 "
      "bottom: 150 } } } color { g: 200 } }");
  const RenderData c = Parse(
      "render_annotations { point { x: 100 y: 100 } thickness: 5 color { b: 250 r: 30 g: 60 } }");
  std::string config = absl::StrCat(
      "input_stream: \"in\" input_stream: \"rd0\" input_stream: \"rd1\" input_stream: \"v\"\n"
      "node { calculator: \"AnnotationOverlayCalculator\" input_stream: \"IMAGE:in\" "
      "input_stream: \"VECTOR:v\" input_stream: \"rd1\" input_stream: \"rd0\" "
      "output_stream: \"IMAGE:out\" }");
  CalculatorGraph graph;
  auto col = InitGraphWithCollectors(&graph, config, {"out"});
  ASSERT_TRUE(col.ok()) << col.status();
  ASSERT_TRUE(graph.StartRun({}).ok());
  const Timestamp ts(7);
  ASSERT_TRUE(graph.AddPacketToInputStream("rd0", MakePacket<RenderData>(b).At(ts)).ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("rd1", MakePacket<RenderData>(a).At(ts)).ok());
  ASSERT_TRUE(graph
                  .AddPacketToInputStream(
                      "v", MakePacket<std::vector<RenderData>>(std::vector<RenderData>{c}).At(ts))
                  .ok());
  ASSERT_TRUE(
      graph.AddPacketToInputStream("in", MakePacket<ImageFrame>(*lenna.Clone()).At(ts)).ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  ASSERT_EQ((*col)[0]->Size(), 1u);
  // Input order in the node: untagged index 0 is "rd1" (a), index 1 "rd0" (b).
  ImageFrame want = *lenna.Clone();
  cv::Mat m = MatView(&want);
  cv::rectangle(m, cv::Rect(10, 10, 190, 190), kRed, cv::FILLED);
  cv::ellipse(m, {100, 100}, {50, 50}, 0, 0, 360, kGreen, cv::FILLED);
  cv::circle(m, {100, 100}, 5, kBlue, cv::FILLED);
  EXPECT_EQ(DifferingBytes((*col)[0]->Packets()[0].Get<ImageFrame>(), want), 0);
  EXPECT_EQ((*col)[0]->Timestamps()[0], 7);
}

TEST(AnnotationOverlayCalculatorTest, NormalizedCoordinatesRoundAgainstTheImageSize) {
  ImageFrame frame = *ImageFrame::Create(ImageFormat::SRGB, 300, 200);
  MatView(&frame).setTo(cv::Scalar(10, 20, 30));
  // 0.123 * 300 = 36.9 -> 37, 0.4567 * 200 = 91.34 -> 91, 0.805 * 300 =
  // 241.5 -> 242, 0.9 * 200 = 180; font height 0.1 * 200 = 20.
  absl::StatusOr<ImageFrame> got = Overlay(
      frame, Parse("render_annotations { rectangle { left: 0.123 top: 0.4567 right: 0.805 "
                   "bottom: 0.9 normalized: true } thickness: 2 color { r: 255 } } "
                   "render_annotations { text { display_text: \"n\" left: 0.5 baseline: 0.25 "
                   "font_height: 0.1 normalized: true } color { g: 200 } }"));
  ASSERT_TRUE(got.ok()) << got.status();
  ImageFrame want = *frame.Clone();
  cv::Mat m = MatView(&want);
  cv::rectangle(m, cv::Rect(37, 91, 242 - 37, 180 - 91), kRed, 2);
  cv::putText(m, "n", {150, 50}, cv::FONT_HERSHEY_SIMPLEX, 19.0 / 21, kGreen, 1, cv::LINE_8);
  EXPECT_EQ(DifferingBytes(*got, want), 0);
}

TEST(AnnotationOverlayCalculatorTest, CentredTextMovesByHalfItsSize) {
  const ImageFrame lenna = Lenna();
  absl::StatusOr<ImageFrame> got = Overlay(
      lenna, Parse("render_annotations { text { display_text: \"mid\" left: 200 baseline: 200 "
                   "font_height: 24 center_horizontally: true center_vertically: true } "
                   "color { r: 255 } }"));
  ASSERT_TRUE(got.ok()) << got.status();
  const double scale = 23.0 / 21;
  int base = 0;
  const cv::Size size = cv::getTextSize("mid", cv::FONT_HERSHEY_SIMPLEX, scale, 1, &base);
  ImageFrame want = *lenna.Clone();
  cv::Mat m = MatView(&want);
  cv::putText(m, "mid", {200 - size.width / 2, 200 + size.height / 2}, cv::FONT_HERSHEY_SIMPLEX,
              scale, kRed, 1, cv::LINE_8);
  EXPECT_EQ(DifferingBytes(*got, want), 0);
}

TEST(AnnotationOverlayCalculatorTest, EmptyRenderDataPassesTheImageThroughUnchanged) {
  const ImageFrame lenna = Lenna();
  // A RenderData without annotations, and a timestamp without RenderData.
  RunResult r = RunOverlay("IMAGE", "IMAGE", 1,
                     {{0, MakePacket<ImageFrame>(*lenna.Clone()), {MakePacket<RenderData>()}},
                      {1, MakePacket<ImageFrame>(*lenna.Clone()), {}}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.out.size(), 2u);
  for (const Packet& p : r.out) EXPECT_EQ(DifferingBytes(p.Get<ImageFrame>(), lenna), 0);
}

TEST(AnnotationOverlayCalculatorTest, KeepsTimestampsAndSkipsFramesWithoutImage) {
  const ImageFrame lenna = Lenna();
  const RenderData rd = Parse("render_annotations { point { x: 5 y: 5 } color { r: 255 } }");
  RunResult r = RunOverlay("IMAGE", "IMAGE", 1,
                     {{10, MakePacket<ImageFrame>(*lenna.Clone()), {MakePacket<RenderData>(rd)}},
                      {20, Packet(), {MakePacket<RenderData>(rd)}},
                      {33, MakePacket<ImageFrame>(*lenna.Clone()), {MakePacket<RenderData>(rd)}}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  std::vector<int64_t> ts;
  for (const Packet& p : r.out) ts.push_back(p.Timestamp().Value());
  EXPECT_EQ(ts, (std::vector<int64_t>{10, 33}));
}

TEST(AnnotationOverlayCalculatorTest, ImageInImageOutSrgbaGetsOpaqueAnnotations) {
  const ImageFrame lenna = Lenna(ImageFormat::SRGBA);
  const RenderData rd = Parse(
      "render_annotations { filled_rectangle { rectangle { left: 10 top: 10 right: 20 "
      "bottom: 20 } } color { r: 1 g: 2 b: 3 } }");
  RunResult r = RunOverlay("IMAGE", "IMAGE", 1,
                     {{0, MakePacket<Image>(*lenna.Clone()), {MakePacket<RenderData>(rd)}}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.out.size(), 1u);
  auto view = r.out[0].Get<Image>().CpuView();
  ASSERT_TRUE(view.ok()) << view.status();
  ASSERT_EQ((*view)->Format(), ImageFormat::SRGBA);
  const uint8_t* px = (*view)->Row(15) + 15 * 4;
  EXPECT_EQ(px[0], 1);
  EXPECT_EQ(px[1], 2);
  EXPECT_EQ(px[2], 3);
  EXPECT_EQ(px[3], 255);
  // UIMAGE is MediaPipe's Image tag: same result.
  RunResult u = RunOverlay("UIMAGE", "UIMAGE", 1,
                     {{0, MakePacket<Image>(*lenna.Clone()), {MakePacket<RenderData>(rd)}}});
  ASSERT_TRUE(u.status.ok()) << u.status;
  ASSERT_EQ(u.out.size(), 1u);
  EXPECT_EQ(DifferingBytes(**u.out[0].Get<Image>().CpuView(), **view), 0);
}

TEST(AnnotationOverlayCalculatorTest, Gray8InputBecomesSrgb) {
  const ImageFrame gray = Lenna(ImageFormat::GRAY8);
  absl::StatusOr<ImageFrame> got =
      Overlay(gray, Parse("render_annotations { line { x_start: 0 y_start: 0 x_end: 399 "
                          "y_end: 399 } color { r: 255 } }"));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->Format(), ImageFormat::SRGB);
  ImageFrame want = *ImageFrame::Create(ImageFormat::SRGB, 400, 400);
  cv::Mat m = MatView(&want);
  cv::cvtColor(MatView(gray), m, cv::COLOR_GRAY2RGB);
  cv::line(m, {0, 0}, {399, 399}, kRed, 1);
  EXPECT_EQ(DifferingBytes(*got, want), 0);
}

TEST(AnnotationOverlayCalculatorTest, DrawsOnACanvasWithoutImageInput) {
  const RenderData rd = Parse(
      "render_annotations { rectangle { left: 0.25 top: 0.25 right: 0.75 bottom: 0.75 "
      "normalized: true } color { g: 200 } }");
  RunResult r = RunOverlay("", "IMAGE", 1, {{3, Packet(), {MakePacket<RenderData>(rd)}}},
                     "canvas_width_px: 64 canvas_height_px: 32 canvas_color { r: 9 g: 8 b: 7 }");
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.out.size(), 1u);
  EXPECT_EQ(r.out[0].Timestamp().Value(), 3);
  const ImageFrame& got = r.out[0].Get<ImageFrame>();
  ImageFrame want = *ImageFrame::Create(ImageFormat::SRGB, 64, 32);
  cv::Mat m = MatView(&want);
  m.setTo(cv::Scalar(9, 8, 7));
  cv::rectangle(m, cv::Rect(16, 8, 32, 16), kGreen, 1);
  EXPECT_EQ(DifferingBytes(got, want), 0);
}

TEST(AnnotationOverlayCalculatorTest, BadFormatsAndAnnotationsNameTheNode) {
  ImageFrame floats = *ImageFrame::Create(ImageFormat::VEC32F1, 8, 8);
  RunResult r = RunOverlay("IMAGE", "IMAGE", 1,
                     {{0, MakePacket<ImageFrame>(std::move(floats)), {MakePacket<RenderData>()}}});
  ASSERT_FALSE(r.status.ok());
  EXPECT_THAT(r.status.message(), HasSubstr("\"overlay\""));
  EXPECT_THAT(r.status.message(), HasSubstr("VEC32F1"));

  const ImageFrame lenna = Lenna();
  for (const char* bad : {"render_annotations { text { display_text: \"x\" font_face: 9 } }",
                          "render_annotations { color { r: 1 } }",
                          "render_annotations { rounded_rectangle { line_type: 3 } }",
                          "render_annotations { point { x: nan y: 1 } }"}) {
    SCOPED_TRACE(bad);
    absl::StatusOr<ImageFrame> got = Overlay(lenna, Parse(bad));
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr("\"overlay\""));
    EXPECT_THAT(got.status().message(), HasSubstr("annotation 0"));
  }
}

TEST(AnnotationOverlayCalculatorTest, BadConfigurationsNameTheNode) {
  // No canvas size without an image input.
  RunResult canvas = RunOverlay("", "IMAGE", 1, {{0, Packet(), {MakePacket<RenderData>()}}});
  ASSERT_FALSE(canvas.status.ok());
  EXPECT_THAT(canvas.status.message(), HasSubstr("\"overlay\""));
  EXPECT_THAT(canvas.status.message(), HasSubstr("canvas_width_px"));
  // Output tag other than the input's.
  RunResult mismatch = RunOverlay("IMAGE", "UIMAGE", 1, {});
  ASSERT_FALSE(mismatch.status.ok());
  EXPECT_THAT(mismatch.status.message(), HasSubstr("\"overlay\""));
  // An unknown tag.
  RunResult unknown = RunOverlay("IMAGE", "IMAGE", 0, {}, "", "input_stream: \"MASK:in\"");
  ASSERT_FALSE(unknown.status.ok());
  EXPECT_THAT(unknown.status.message(), HasSubstr("MASK"));
  EXPECT_THAT(unknown.status.message(), HasSubstr("\"overlay\""));
  // No output.
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(
      &graph,
      "input_stream: \"in\" node { name: \"overlay\" calculator: \"AnnotationOverlayCalculator\" "
      "input_stream: \"IMAGE:in\" }",
      {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("\"overlay\""));
}

}  // namespace
}  // namespace sluice
