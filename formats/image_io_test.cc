#include "formats/image_io.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace sluice {
namespace {

std::string SharedDir() {
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  return d ? d : "../shared";
}

TEST(ImageIoTest, ReadsJpegAsRgbRgbaAndGray) {
  const std::string path = SharedDir() + "/testdata/image_to_tensor/input.jpg";
  absl::StatusOr<ImageFrame> rgb = ReadImageFile(path);
  ASSERT_TRUE(rgb.ok()) << rgb.status();
  EXPECT_EQ(rgb->Format(), ImageFormat::SRGB);
  EXPECT_EQ(rgb->Width(), 64);
  EXPECT_EQ(rgb->Height(), 128);
  absl::StatusOr<ImageFrame> rgba = ReadImageFile(path, ImageFormat::SRGBA);
  ASSERT_TRUE(rgba.ok());
  EXPECT_EQ(rgba->Row(10)[4 * 7 + 3], 255);                  // Opaque alpha.
  EXPECT_EQ(rgba->Row(10)[4 * 7 + 0], rgb->Row(10)[3 * 7]);  // Same red.
  absl::StatusOr<ImageFrame> gray = ReadImageFile(path, ImageFormat::GRAY8);
  ASSERT_TRUE(gray.ok());
  EXPECT_EQ(gray->NumberOfChannels(), 1);
}

TEST(ImageIoTest, PngRoundTripIsLossless) {
  absl::StatusOr<ImageFrame> f = ImageFrame::Create(ImageFormat::SRGB, 7, 5);
  ASSERT_TRUE(f.ok());
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 21; ++x) f->MutableRow(y)[x] = static_cast<uint8_t>(y * 40 + x);
  }
  const std::string path = ::testing::TempDir() + "/sluice_image_io_test.png";
  ASSERT_TRUE(WritePngFile(*f, path).ok());
  absl::StatusOr<ImageFrame> back = ReadImageFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 21; ++x) ASSERT_EQ(back->Row(y)[x], f->Row(y)[x]);
  }
  std::remove(path.c_str());
}

TEST(ImageIoTest, ErrorsNameTheFile) {
  absl::StatusOr<ImageFrame> missing = ReadImageFile("/nonexistent/x.png");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/x.png"), absl::string_view::npos);

  const std::string path = ::testing::TempDir() + "/sluice_not_an_image.png";
  FILE* fp = std::fopen(path.c_str(), "wb");
  ASSERT_NE(fp, nullptr);
  std::fputs("hello", fp);
  std::fclose(fp);
  absl::StatusOr<ImageFrame> garbage = ReadImageFile(path);
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find(path), absl::string_view::npos);
  std::remove(path.c_str());

  absl::StatusOr<ImageFrame> f = ImageFrame::Create(ImageFormat::VEC32F1, 2, 2);
  ASSERT_TRUE(f.ok());
  absl::Status s = WritePngFile(*f, "/tmp/out.png");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/tmp/out.png"), absl::string_view::npos);
  EXPECT_FALSE(WritePngFile(*f, "/nonexistent/dir/out.png").ok());
}

}  // namespace
}  // namespace sluice
