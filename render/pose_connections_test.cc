#include "render/pose_connections.h"

#include <cstring>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace sluice {
namespace {

using ::mediapipe::NormalizedLandmarkList;

TEST(PoseConnectionsTest, IsMediaPipesTopology) {
  absl::Span<const Connection> edges = PoseConnections();
  ASSERT_EQ(edges.size(), 35u);
  std::set<Connection> unique(edges.begin(), edges.end());
  EXPECT_EQ(unique.size(), 35u);
  std::map<int, int> degree;
  for (const Connection& c : edges) {
    EXPECT_LT(c.first, c.second);
    EXPECT_LT(c.second, 33);
    ++degree[c.first];
    ++degree[c.second];
  }
  EXPECT_EQ(degree.size(), 33u);  // every landmark is drawn connected
  // Ears and mouth corners end one edge; each wrist fans out to the hand.
  for (int i : {7, 8, 9, 10}) EXPECT_EQ(degree[i], 1) << i;
  EXPECT_EQ(degree[15], 4);
  EXPECT_EQ(degree[16], 4);
  for (Connection c : {Connection{11, 12}, Connection{23, 24}, Connection{11, 23},
                       Connection{27, 31}, Connection{29, 31}, Connection{3, 7}}) {
    EXPECT_TRUE(unique.count(c)) << c.first << "-" << c.second;
  }
}

TEST(PoseLandmarkNamesTest, FollowMediaPipesOrder) {
  absl::Span<const char* const> names = PoseLandmarkNames();
  ASSERT_EQ(names.size(), 33u);
  EXPECT_STREQ(names[0], "nose");
  EXPECT_STREQ(names[7], "left_ear");
  EXPECT_STREQ(names[10], "mouth_right");
  EXPECT_STREQ(names[11], "left_shoulder");
  EXPECT_STREQ(names[16], "right_wrist");
  EXPECT_STREQ(names[24], "right_hip");
  EXPECT_STREQ(names[32], "right_foot_index");
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), 33u);
}

TEST(PoseLandmarksStyleTest, LeftOrangeRightCyanNoseWhite) {
  const LandmarksStyle style = PoseLandmarksStyle();
  ASSERT_EQ(style.landmark_specs.size(), 33u);
  const Rgb orange{255, 138, 0}, cyan{0, 217, 231};
  for (int left : {1, 2, 3, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31}) {
    EXPECT_EQ(style.landmark_specs.at(left).color, orange) << left;
    EXPECT_EQ(style.landmark_specs.at(left + (left <= 3 ? 3 : 1)).color, cyan) << left;
  }
  EXPECT_EQ(style.landmark_specs.at(0).color, kWhite);
  EXPECT_EQ(style.landmark_specs.at(11).thickness, 2);
  EXPECT_EQ(style.landmark_specs.at(11).circle_radius, 2);
  EXPECT_EQ(style.connection.color, kWhite);
  EXPECT_EQ(style.connection.thickness, 2);
  EXPECT_TRUE(style.connection_specs.empty());
}

// A standing figure in a 400x400 frame: head at the top, feet at the bottom.
NormalizedLandmarkList Figure() {
  NormalizedLandmarkList list;
  for (int i = 0; i < 33; ++i) {
    auto* l = list.add_landmark();
    // x: the person's left is the image's right (they face the camera).
    const bool left = (i >= 1 && i <= 3) || (i % 2 == 1 && i >= 7);
    const bool right = (i >= 4 && i <= 6) || (i % 2 == 0 && i >= 8);
    const float side = left ? 1.0f : right ? -1.0f : 0.0f;
    l->set_x(0.5f + side * (0.05f + 0.004f * static_cast<float>(i)));
    l->set_y(0.1f + 0.8f * static_cast<float>(i) / 32.0f);
    l->set_visibility(0.9f);
    l->set_presence(0.9f);
  }
  return list;
}

Rgb PixelAt(const ImageFrame& f, int x, int y) {
  const uint8_t* p = f.Row(y) + x * f.NumberOfChannels();
  return {p[0], p[1], p[2]};
}

// Whether a pixel of `color` lies within `r` pixels of normalized (x, y).
bool ColorNear(const ImageFrame& f, float x, float y, Rgb color, int r = 4) {
  const int cx = static_cast<int>(x * f.Width()), cy = static_cast<int>(y * f.Height());
  for (int dy = -r; dy <= r; ++dy) {
    for (int dx = -r; dx <= r; ++dx) {
      const int px = cx + dx, py = cy + dy;
      if (px >= 0 && py >= 0 && px < f.Width() && py < f.Height() && PixelAt(f, px, py) == color) {
        return true;
      }
    }
  }
  return false;
}

TEST(DrawPoseTest, DrawsSidesInTheirColoursAndSkipsHiddenLandmarks) {
  NormalizedLandmarkList figure = Figure();
  figure.mutable_landmark(25)->set_visibility(0.2f);  // left knee hidden
  ImageFrame frame = *ImageFrame::Create(ImageFormat::SRGB, 400, 400);
  ASSERT_TRUE(DrawPose(&frame, figure).ok());
  const Rgb orange{255, 138, 0}, cyan{0, 217, 231};
  const auto& lm = figure.landmark();
  EXPECT_TRUE(ColorNear(frame, lm[11].x(), lm[11].y(), orange));
  EXPECT_TRUE(ColorNear(frame, lm[12].x(), lm[12].y(), cyan));
  EXPECT_TRUE(ColorNear(frame, lm[0].x(), lm[0].y(), kWhite));
  EXPECT_FALSE(ColorNear(frame, lm[25].x(), lm[25].y(), orange));
  // The shoulder line (11-12) is white in its middle.
  EXPECT_TRUE(ColorNear(frame, (lm[11].x() + lm[12].x()) / 2, (lm[11].y() + lm[12].y()) / 2,
                        kWhite, 1));
  // No line from the left hip (23) to the hidden knee (25): the pixels half way
  // between stay black.
  const float mx = (lm[23].x() + lm[25].x()) / 2, my = (lm[23].y() + lm[25].y()) / 2;
  EXPECT_EQ(PixelAt(frame, static_cast<int>(mx * 400), static_cast<int>(my * 400)), kBlack);
}

TEST(DrawPoseTest, IgnoresLandmarksAfterTheBody) {
  NormalizedLandmarkList with_aux = Figure();
  for (int i = 0; i < 2; ++i) {
    auto* l = with_aux.add_landmark();
    l->set_x(0.05f);
    l->set_y(0.05f + 0.1f * i);
  }
  ImageFrame a = *ImageFrame::Create(ImageFormat::SRGB, 400, 400);
  ImageFrame b = *ImageFrame::Create(ImageFormat::SRGB, 400, 400);
  ASSERT_TRUE(DrawPose(&a, Figure()).ok());
  ASSERT_TRUE(DrawPose(&b, with_aux).ok());
  EXPECT_EQ(0, memcmp(a.PixelData(), b.PixelData(), a.PixelDataSize()));
}

TEST(DrawPoseTest, RejectsShortListsAndFramesItCannotDrawOn) {
  ImageFrame frame = *ImageFrame::Create(ImageFormat::SRGB, 50, 50);
  NormalizedLandmarkList hand;
  for (int i = 0; i < 21; ++i) hand.add_landmark();
  absl::Status s = DrawPose(&frame, hand);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("33"), std::string::npos) << s;
  ImageFrame empty;
  EXPECT_FALSE(DrawPose(&empty, Figure()).ok());
  ImageFrame gray = *ImageFrame::Create(ImageFormat::GRAY8, 50, 50);
  EXPECT_FALSE(DrawPose(&gray, Figure()).ok());
}

}  // namespace
}  // namespace sluice
