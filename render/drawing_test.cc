#include "render/drawing.h"

#include <cmath>
#include <set>

#include "formats/image_frame_opencv.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opencv2/core.hpp"

namespace sluice {
namespace {

using ::mediapipe::Detection;
using ::mediapipe::LocationData;
using ::mediapipe::NormalizedLandmarkList;
using ::mediapipe::NormalizedRect;

constexpr int kW = 200, kH = 100;

ImageFrame Blank(ImageFormat::Format format = ImageFormat::SRGB) {
  return *ImageFrame::Create(format, kW, kH);  // Zero-filled: black.
}

Rgb PixelAt(const ImageFrame& f, int x, int y) {
  const uint8_t* p = f.Row(y) + x * f.NumberOfChannels();
  return {p[0], p[1], p[2]};
}

bool IsBlack(const ImageFrame& f, int x, int y) { return PixelAt(f, x, y) == kBlack; }

int CountNonBlack(const ImageFrame& f) {
  int n = 0;
  for (int y = 0; y < f.Height(); ++y) {
    for (int x = 0; x < f.Width(); ++x) n += !IsBlack(f, x, y);
  }
  return n;
}

void AddLandmark(NormalizedLandmarkList* list, float x, float y) {
  auto* lm = list->add_landmark();
  lm->set_x(x);
  lm->set_y(y);
}

TEST(HandConnectionsTest, MatchesMediaPipeTopology) {
  EXPECT_EQ(kHandConnections.size(), 21u);
  std::set<Connection> unique(kHandConnections.begin(), kHandConnections.end());
  EXPECT_EQ(unique.size(), 21u);
  // A tree over the 21 landmarks plus the palm's closing edges: every landmark
  // is used and every fingertip (4, 8, 12, 16, 20) ends exactly one edge.
  std::map<int, int> degree;
  for (const Connection& c : kHandConnections) {
    ++degree[c.first];
    ++degree[c.second];
  }
  EXPECT_EQ(degree.size(), 21u);
  for (int tip : {4, 8, 12, 16, 20}) EXPECT_EQ(degree[tip], 1) << tip;
  EXPECT_TRUE(unique.count({0, 17}));
  EXPECT_TRUE(unique.count({5, 9}));
}

TEST(DrawLandmarksTest, DotsAtLandmarksAndLineAlongConnection) {
  ImageFrame frame = Blank();
  NormalizedLandmarkList list;
  AddLandmark(&list, 0.1f, 0.5f);  // (20, 50)
  AddLandmark(&list, 0.9f, 0.5f);  // (180, 50)
  LandmarksStyle style;
  style.landmark = {{0, 0, 255}, -1, 4};
  style.connection = {{0, 255, 0}, 2, 0};
  const Connection conn[] = {{0, 1}};
  ASSERT_TRUE(DrawLandmarks(&frame, list, conn, style).ok());
  EXPECT_EQ(PixelAt(frame, 20, 50), (Rgb{0, 0, 255}));
  EXPECT_EQ(PixelAt(frame, 180, 50), (Rgb{0, 0, 255}));
  // White border ring just outside the dot (radius max(5, 4) = 5; antialiased).
  const Rgb ring = PixelAt(frame, 20, 45);
  EXPECT_GT(ring.r, 128);
  EXPECT_GT(ring.g, 128);
  // The line between them, and nothing far from it.
  for (int x = 40; x <= 160; x += 20) EXPECT_EQ(PixelAt(frame, x, 50), (Rgb{0, 255, 0})) << x;
  EXPECT_TRUE(IsBlack(frame, 100, 10));
  EXPECT_TRUE(IsBlack(frame, 100, 90));
}

TEST(DrawLandmarksTest, SkipsOutOfRangeAndLowVisibilityLandmarks) {
  ImageFrame frame = Blank();
  NormalizedLandmarkList list;
  AddLandmark(&list, 0.5f, 0.5f);
  AddLandmark(&list, 1.2f, 0.5f);    // Outside: not drawn, nor its line.
  AddLandmark(&list, -0.01f, 0.3f);  // Outside.
  AddLandmark(&list, 0.2f, 0.2f);
  list.mutable_landmark(3)->set_visibility(0.3f);  // Below 0.5: skipped.
  AddLandmark(&list, 0.8f, 0.8f);
  list.mutable_landmark(4)->set_presence(0.2f);  // Below 0.5: skipped.
  const Connection conns[] = {{0, 1}, {0, 2}, {0, 3}, {0, 4}};
  LandmarksStyle style;
  style.white_border = false;
  ASSERT_TRUE(DrawLandmarks(&frame, list, conns, style).ok());
  // MediaPipe's default dot: a 2 px ring of radius 2, nearly solid red.
  EXPECT_GE(PixelAt(frame, 100, 50).r, 240);
  EXPECT_EQ(PixelAt(frame, 100, 50).g, 0);
  // Only the one dot was drawn: everything lit is near (100, 50).
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      if (!IsBlack(frame, x, y)) {
        EXPECT_LE(std::hypot(x - 100, y - 50), 4.5) << x << "," << y;
      }
    }
  }
}

TEST(DrawLandmarksTest, HandStyleColoursEachFinger) {
  ImageFrame frame = Blank();
  NormalizedLandmarkList list;
  for (int i = 0; i < 21; ++i) AddLandmark(&list, 0.04f + 0.045f * i, i % 2 ? 0.3f : 0.7f);
  const LandmarksStyle style = HandLandmarksStyle();
  ASSERT_TRUE(DrawLandmarks(&frame, list, kHandConnections, style).ok());
  auto at = [&](int i) {
    return PixelAt(frame, static_cast<int>(list.landmark(i).x() * kW),
                   static_cast<int>(list.landmark(i).y() * kH));
  };
  EXPECT_EQ(at(0), (Rgb{255, 48, 48}));    // Wrist: red.
  EXPECT_EQ(at(4), (Rgb{255, 229, 180}));  // Thumb tip: peach.
  EXPECT_EQ(at(8), (Rgb{128, 64, 128}));   // Index tip: purple.
  EXPECT_EQ(at(12), (Rgb{255, 204, 0}));   // Middle tip: yellow.
  EXPECT_EQ(at(16), (Rgb{48, 255, 48}));   // Ring tip: green.
  EXPECT_EQ(at(20), (Rgb{21, 101, 192}));  // Pinky tip: blue.
  EXPECT_EQ(style.connection_specs.size(), 21u);
}

TEST(DrawLandmarksTest, RejectsBadInputs) {
  ImageFrame frame = Blank();
  NormalizedLandmarkList list;
  AddLandmark(&list, 0.5f, 0.5f);
  const Connection bad[] = {{0, 5}};
  EXPECT_EQ(DrawLandmarks(&frame, list, bad).code(), absl::StatusCode::kInvalidArgument);
  ImageFrame gray = Blank(ImageFormat::GRAY8);
  EXPECT_FALSE(DrawLandmarks(&gray, list, {}).ok());
  EXPECT_FALSE(DrawLandmarks(nullptr, list, {}).ok());
  EXPECT_EQ(CountNonBlack(frame), 0);
}

TEST(DrawDetectionTest, DrawsBoxAndKeypoints) {
  ImageFrame frame = Blank();
  Detection det;
  LocationData* loc = det.mutable_location_data();
  loc->set_format(LocationData::RELATIVE_BOUNDING_BOX);
  auto* box = loc->mutable_relative_bounding_box();
  box->set_xmin(0.25f);
  box->set_ymin(0.2f);
  box->set_width(0.5f);
  box->set_height(0.6f);  // (50, 20) - (150, 80).
  auto* kp = loc->add_relative_keypoints();
  kp->set_x(0.5f);
  kp->set_y(0.5f);
  ASSERT_TRUE(DrawDetection(&frame, det, {kRed, -1, 3}, {{0, 255, 0}, 3, 0}).ok());
  EXPECT_EQ(PixelAt(frame, 100, 50), kRed);
  EXPECT_EQ(PixelAt(frame, 100, 20), (Rgb{0, 255, 0}));  // Top edge.
  EXPECT_EQ(PixelAt(frame, 50, 60), (Rgb{0, 255, 0}));   // Left edge.
  EXPECT_EQ(PixelAt(frame, 150, 30), (Rgb{0, 255, 0}));  // Right edge.
  EXPECT_TRUE(IsBlack(frame, 75, 35));                   // Inside, away from all.

  loc->set_format(LocationData::BOUNDING_BOX);
  EXPECT_EQ(DrawDetection(&frame, det).code(), absl::StatusCode::kInvalidArgument);
}

TEST(DrawNormalizedRectTest, RotatedRectCornersMove) {
  NormalizedRect rect;
  rect.set_x_center(0.5f);
  rect.set_y_center(0.5f);
  rect.set_width(0.2f);   // 40 px
  rect.set_height(0.4f);  // 40 px
  ImageFrame upright = Blank();
  ASSERT_TRUE(DrawNormalizedRect(&upright, rect, {kBlue, 1, 0}).ok());
  EXPECT_FALSE(IsBlack(upright, 80, 30));   // Corner (80, 30).
  EXPECT_FALSE(IsBlack(upright, 100, 30));  // Top edge midpoint.
  EXPECT_TRUE(IsBlack(upright, 100, 50));   // Centre.

  // 45 degrees: the corners go to the axes, at 20*sqrt(2) from the centre.
  rect.set_rotation(static_cast<float>(M_PI / 4));
  ImageFrame turned = Blank();
  ASSERT_TRUE(DrawNormalizedRect(&turned, rect, {kBlue, 1, 0}).ok());
  EXPECT_TRUE(IsBlack(turned, 80, 30));
  EXPECT_FALSE(IsBlack(turned, 100, 50 - 28));
  EXPECT_FALSE(IsBlack(turned, 100 + 28, 50));
  EXPECT_TRUE(IsBlack(turned, 100, 50));
}

TEST(DrawLabelTest, DrawsTextInsideTheImage) {
  ImageFrame frame = Blank();
  LabelStyle style;
  style.draw_background = false;
  // Anchored at the right edge: must be moved in, not clipped away.
  ASSERT_TRUE(DrawLabel(&frame, "Left 0.98", 0.99f, 0.5f, style).ok());
  int lit = 0;
  int max_x = 0;
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      if (PixelAt(frame, x, y).r > 128) {
        ++lit;
        max_x = std::max(max_x, x);
      }
    }
  }
  EXPECT_GT(lit, 50);
  EXPECT_LT(max_x, kW - 1);

  ImageFrame boxed = Blank();
  style.draw_background = true;
  style.background = {0, 0, 200};
  ASSERT_TRUE(DrawLabel(&boxed, "R", 0.5f, 0.5f, style).ok());
  EXPECT_EQ(PixelAt(boxed, 99, 50 + 2), (Rgb{0, 0, 200}));  // Padding below the baseline.
  EXPECT_TRUE(DrawLabel(&boxed, "", 0.5f, 0.5f, style).ok());
}

TEST(HandednessTextTest, PicksBestClassAndFormatsScore) {
  ::mediapipe::ClassificationList list;
  EXPECT_EQ(HandednessText(list), "");
  auto* a = list.add_classification();
  a->set_label("Right");
  a->set_score(0.1f);
  auto* b = list.add_classification();
  b->set_label("Left");
  b->set_score(0.976f);
  EXPECT_EQ(HandednessText(list), "Left 0.98");
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

TEST(DrawHandTest, DrawsSkeletonAndHandednessLabel) {
  ImageFrame frame = *ImageFrame::Create(ImageFormat::SRGB, 320, 240);
  ::mediapipe::NormalizedLandmarkList hand;
  // A rough open hand: wrist low in the middle, fingers fanning upwards.
  auto add = [&](float x, float y) {
    auto* lm = hand.add_landmark();
    lm->set_x(x);
    lm->set_y(y);
  };
  add(0.5f, 0.6f);
  for (int f = 0; f < 5; ++f) {
    for (int j = 0; j < 4; ++j) add(0.3f + 0.1f * f, 0.5f - 0.08f * j);
  }
  ::mediapipe::ClassificationList handedness;
  auto* c = handedness.add_classification();
  c->set_label("Left");
  c->set_score(0.98f);
  ASSERT_TRUE(DrawHand(&frame, hand, &handedness).ok());
  EXPECT_EQ(PixelAt(frame, 160, 144), (Rgb{255, 48, 48}));  // Wrist dot.
  // The label's black box with white text lies below the wrist.
  int white = 0;
  for (int y = 150; y < 240; ++y) {
    for (int x = 0; x < 320; ++x) {
      const Rgb p = PixelAt(frame, x, y);
      white += p.r > 200 && p.g > 200 && p.b > 200;
    }
  }
  EXPECT_GT(white, 20);

  ::mediapipe::NormalizedLandmarkList short_list;
  short_list.add_landmark();
  EXPECT_FALSE(DrawHand(&frame, short_list).ok());
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

TEST(DrawingSpecTest, ExtremeSpecsAreClampedNotFatal) {
  ImageFrame frame = *ImageFrame::Create(ImageFormat::SRGB, 50, 50);
  ::mediapipe::NormalizedLandmarkList list;
  for (float x : {0.2f, 0.8f}) {
    auto* lm = list.add_landmark();
    lm->set_x(x);
    lm->set_y(0.5f);
  }
  LandmarksStyle style;
  style.landmark = {kRed, 1 << 30, 1 << 30};
  style.connection = {kBlue, 1 << 30, -5};
  const Connection conn[] = {{0, 1}};
  EXPECT_TRUE(DrawLandmarks(&frame, list, conn, style).ok());
  ::mediapipe::NormalizedRect rect;
  rect.set_width(1e30f);
  rect.set_height(1e30f);
  EXPECT_TRUE(DrawNormalizedRect(&frame, rect, {kGreen, -7, 0}).ok());
  LabelStyle label;
  label.font_scale = -1;
  EXPECT_FALSE(DrawLabel(&frame, "x", 0.5f, 0.5f, label).ok());
  label.font_scale = 1;
  label.thickness = 1 << 30;
  EXPECT_TRUE(DrawLabel(&frame, "x", 1e30f, -1e30f, label).ok());
}

}  // namespace
}  // namespace sluice
