#include "formats/image_frame.h"

#include <vector>

#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(ImageFrameTest, CreateAlignsRowsAndZeroFills) {
  absl::StatusOr<ImageFrame> f = ImageFrame::Create(ImageFormat::SRGB, 5, 3);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->Width(), 5);
  EXPECT_EQ(f->Height(), 3);
  EXPECT_EQ(f->NumberOfChannels(), 3);
  EXPECT_EQ(f->ByteDepth(), 1);
  EXPECT_EQ(f->RowBytes(), 15);
  EXPECT_EQ(f->WidthStep(), 16);
  EXPECT_FALSE(f->IsContiguous());
  EXPECT_TRUE(f->IsAligned(16));
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 15; ++x) EXPECT_EQ(f->Row(y)[x], 0);
  }
}

TEST(ImageFrameTest, PackedRowsWithAlignmentOne) {
  absl::StatusOr<ImageFrame> f = ImageFrame::Create(ImageFormat::VEC32F2, 3, 2, 1);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->WidthStep(), 3 * 2 * 4);
  EXPECT_TRUE(f->IsContiguous());
  EXPECT_EQ(f->PixelDataSize(), 48u);
}

TEST(ImageFrameTest, FormatsHaveMediaPipeLayouts) {
  EXPECT_EQ(*ImageFrame::NumberOfChannelsForFormat(ImageFormat::SRGBA), 4);
  EXPECT_EQ(*ImageFrame::NumberOfChannelsForFormat(ImageFormat::GRAY8), 1);
  EXPECT_EQ(*ImageFrame::ByteDepthForFormat(ImageFormat::GRAY16), 2);
  EXPECT_EQ(*ImageFrame::ByteDepthForFormat(ImageFormat::VEC32F4), 4);
  EXPECT_FALSE(ImageFrame::NumberOfChannelsForFormat(ImageFormat::YCBCR420P).ok());
}

TEST(ImageFrameTest, RejectsBadArguments) {
  EXPECT_FALSE(ImageFrame::Create(ImageFormat::SRGB, 0, 3).ok());
  EXPECT_FALSE(ImageFrame::Create(ImageFormat::SRGB, 4, -1).ok());
  EXPECT_FALSE(ImageFrame::Create(ImageFormat::UNKNOWN, 4, 4).ok());
  EXPECT_FALSE(ImageFrame::Create(ImageFormat::SRGB, 4, 4, 3).ok());
  uint8_t buf[12];
  absl::StatusOr<ImageFrame> bad = ImageFrame::Adopt(ImageFormat::SRGB, 2, 2, 5, buf, nullptr);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("width_step"), absl::string_view::npos);
  EXPECT_FALSE(ImageFrame::Create(ImageFormat::SRGB, 1 << 30, 1 << 30).ok());
}

TEST(ImageFrameTest, AdoptRunsDeleterOnceAndClonesDeeply) {
  int deletes = 0;
  std::vector<uint8_t> pixels = {1, 2, 3, 4, 5, 6, 7, 8};  // 2x2 GRAY8, step 4
  {
    absl::StatusOr<ImageFrame> f =
        ImageFrame::Adopt(ImageFormat::GRAY8, 2, 2, 4, pixels.data(), [&](uint8_t*) { ++deletes; });
    ASSERT_TRUE(f.ok());
    ImageFrame moved = std::move(*f);
    EXPECT_TRUE(f->IsEmpty());
    EXPECT_EQ(moved.Row(1)[1], 6);
    absl::StatusOr<ImageFrame> copy = moved.Clone(1);
    ASSERT_TRUE(copy.ok());
    EXPECT_NE(copy->PixelData(), moved.PixelData());
    std::vector<uint8_t> packed(4);
    ASSERT_TRUE(copy->CopyToBuffer(packed.data(), packed.size()).ok());
    EXPECT_EQ(packed, (std::vector<uint8_t>{1, 2, 5, 6}));
    EXPECT_FALSE(copy->CopyToBuffer(packed.data(), 3).ok());
  }
  EXPECT_EQ(deletes, 1);
}

}  // namespace
}  // namespace sluice
