#include "render/face_mesh_connections.h"

#include <set>

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(FaceMeshConnectionsTest, SizesAndRangesAreMediaPipes) {
  EXPECT_EQ(FaceMeshTesselation().size(), 2556u);
  EXPECT_EQ(FaceMeshLips().size(), 40u);
  EXPECT_EQ(FaceMeshLeftEye().size(), 16u);
  EXPECT_EQ(FaceMeshRightEye().size(), 16u);
  EXPECT_EQ(FaceMeshLeftEyebrow().size(), 8u);
  EXPECT_EQ(FaceMeshRightEyebrow().size(), 8u);
  EXPECT_EQ(FaceMeshFaceOval().size(), 36u);
  EXPECT_EQ(FaceMeshNose().size(), 25u);
  EXPECT_EQ(FaceMeshLeftIris().size(), 4u);
  EXPECT_EQ(FaceMeshRightIris().size(), 4u);
  std::set<Connection> unique(FaceMeshTesselation().begin(), FaceMeshTesselation().end());
  EXPECT_EQ(unique.size(), 2556u);
  for (const Connection& c : FaceMeshTesselation()) {
    EXPECT_LT(c.first, 468);
    EXPECT_LT(c.second, 468);
  }
  for (const Connection& c : FaceMeshLeftIris()) {
    EXPECT_GE(c.first, 468);
    EXPECT_LT(c.second, 478);
  }
}

mediapipe::NormalizedLandmarkList Grid(int n) {
  mediapipe::NormalizedLandmarkList list;
  for (int i = 0; i < n; ++i) {
    auto* l = list.add_landmark();
    l->set_x(0.1f + 0.8f * static_cast<float>(i % 22) / 21.0f);
    l->set_y(0.1f + 0.8f * static_cast<float>(i / 22) / 21.0f);
  }
  return list;
}

int NonBlack(const ImageFrame& f) {
  int count = 0;
  for (int y = 0; y < f.Height(); ++y) {
    const uint8_t* row = f.PixelData() + y * f.WidthStep();
    for (int x = 0; x < f.Width() * 3; ++x) count += row[x] != 0;
  }
  return count;
}

TEST(DrawFaceMeshTest, DrawsLinesAndIrisesOnlyWithRefinedLandmarks) {
  ImageFrame plain = *ImageFrame::Create(ImageFormat::SRGB, 200, 200);
  ASSERT_TRUE(DrawFaceMesh(&plain, Grid(468)).ok());
  const int mesh_pixels = NonBlack(plain);
  EXPECT_GT(mesh_pixels, 1000);
  ImageFrame refined = *ImageFrame::Create(ImageFormat::SRGB, 200, 200);
  ASSERT_TRUE(DrawFaceMesh(&refined, Grid(478)).ok());
  EXPECT_GT(NonBlack(refined), mesh_pixels);
}

TEST(DrawFaceMeshTest, RejectsShortListsAndEmptyFrames) {
  ImageFrame frame = *ImageFrame::Create(ImageFormat::SRGB, 50, 50);
  EXPECT_FALSE(DrawFaceMesh(&frame, Grid(21)).ok());
  ImageFrame empty;
  EXPECT_FALSE(DrawFaceMesh(&empty, Grid(468)).ok());
}

}  // namespace
}  // namespace sluice
