#include "media/frame_source.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "formats/image_frame_opencv.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "media/frame_sink.h"
#include "opencv2/core.hpp"

namespace sluice {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string SharedDir() {
  const char* dir = std::getenv("SLUICE_SHARED_DIR");
  return dir != nullptr ? dir : "/work/shared";
}

// A fresh, empty temporary folder for one test.
fs::path TempDir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("sluice_media_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

ImageFrame SolidFrame(int w, int h, uint8_t r, uint8_t g, uint8_t b) {
  ImageFrame f = *ImageFrame::Create(ImageFormat::SRGB, w, h);
  MatView(&f).setTo(cv::Scalar(r, g, b));
  return f;
}

std::vector<SourceFrame> ReadAll(FrameSource* source) {
  std::vector<SourceFrame> frames;
  SourceFrame f;
  while (source->Next(&f)) frames.push_back(std::move(f));
  return frames;
}

TEST(FrameSourceTest, ReadsTheHandPhotosFolderInNameOrder) {
  const std::string dir = SharedDir() + "/testdata/hands";
  absl::StatusOr<std::unique_ptr<FrameSource>> source = OpenFrameSource(dir);
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ((*source)->FrameCount(), 8);
  std::vector<SourceFrame> frames = ReadAll(source->get());
  ASSERT_EQ(frames.size(), 8u);
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_TRUE(frames[i].status.ok()) << frames[i].status;
    EXPECT_EQ(frames[i].index, static_cast<int64_t>(i));
    EXPECT_EQ(frames[i].timestamp_us, static_cast<int64_t>(i) * kStillFrameIntervalUs);
    EXPECT_EQ(frames[i].image.Format(), ImageFormat::SRGB);
    EXPECT_GT(frames[i].image.Width(), 0);
    EXPECT_GT(frames[i].image.Height(), 0);
    if (i > 0) EXPECT_LT(frames[i - 1].name, frames[i].name);
  }
  EXPECT_EQ(frames[0].name, "call_0413d5c5.jpg");
}

TEST(FrameSourceTest, ReadsOneImageFile) {
  const std::string path = SharedDir() + "/testdata/hands/rock_026fd791.jpg";
  absl::StatusOr<std::unique_ptr<FrameSource>> source = OpenFrameSource(path);
  ASSERT_TRUE(source.ok()) << source.status();
  std::vector<SourceFrame> frames = ReadAll(source->get());
  ASSERT_EQ(frames.size(), 1u);
  ASSERT_TRUE(frames[0].status.ok());
  EXPECT_EQ(frames[0].timestamp_us, 0);
  EXPECT_FALSE(frames[0].image.IsEmpty());
}

TEST(FrameSourceTest, CorruptImageInFolderIsReportedAndOthersDelivered) {
  const fs::path dir = TempDir("corrupt");
  ASSERT_TRUE(WriteImage(SolidFrame(16, 8, 255, 0, 0), (dir / "a.png").string()).ok());
  std::ofstream(dir / "b.jpg") << "this is not a jpeg at all";
  ASSERT_TRUE(WriteImage(SolidFrame(16, 8, 0, 0, 255), (dir / "c.png").string()).ok());
  std::ofstream(dir / "notes.txt") << "skipped: not an image";

  absl::StatusOr<std::unique_ptr<FrameSource>> source = OpenFrameSource(dir.string());
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ((*source)->FrameCount(), 3);
  std::vector<SourceFrame> frames = ReadAll(source->get());
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_TRUE(frames[0].status.ok());
  EXPECT_FALSE(frames[1].status.ok());
  EXPECT_THAT(std::string(frames[1].status.message()), HasSubstr("b.jpg"));
  EXPECT_TRUE(frames[1].image.IsEmpty());
  ASSERT_TRUE(frames[2].status.ok());
  EXPECT_EQ(frames[2].index, 2);
  EXPECT_EQ(frames[2].timestamp_us, 2 * kStillFrameIntervalUs);
  EXPECT_EQ(frames[2].image.Row(0)[2], 255);  // Blue channel of c.png.
  fs::remove_all(dir);
}

TEST(FrameSourceTest, MissingInputsNameThePath) {
  absl::StatusOr<std::unique_ptr<FrameSource>> missing = OpenFrameSource("/nonexistent/clip.mp4");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("/nonexistent/clip.mp4"));

  EXPECT_FALSE(OpenFrameSource("").ok());
}

TEST(FrameSourceTest, UnreadableFilesAreErrorsNotCrashes) {
  const fs::path dir = TempDir("unreadable");
  const std::string bad_image = (dir / "bad.png").string();
  std::ofstream(bad_image) << "garbage";
  absl::StatusOr<std::unique_ptr<FrameSource>> image = OpenFrameSource(bad_image);
  ASSERT_FALSE(image.ok());
  EXPECT_THAT(std::string(image.status().message()), HasSubstr("bad.png"));

  const std::string bad_video = (dir / "bad.mp4").string();
  std::ofstream(bad_video) << std::string(4096, 'x');
  absl::StatusOr<std::unique_ptr<FrameSource>> video = OpenFrameSource(bad_video);
  ASSERT_FALSE(video.ok());
  EXPECT_THAT(std::string(video.status().message()), HasSubstr("bad.mp4"));

  const fs::path empty = dir / "empty";
  fs::create_directories(empty);
  absl::StatusOr<std::unique_ptr<FrameSource>> folder = OpenFrameSource(empty.string());
  ASSERT_FALSE(folder.ok());
  EXPECT_THAT(std::string(folder.status().message()), HasSubstr("no image files"));
  fs::remove_all(dir);
}

TEST(FrameSourceTest, MissingCameraIsAnError) {
  absl::StatusOr<std::unique_ptr<FrameSource>> camera = OpenFrameSource("/dev/video97");
  ASSERT_FALSE(camera.ok());
  EXPECT_THAT(std::string(camera.status().message()), HasSubstr("/dev/video97"));
}

TEST(FrameSourceTest, KnowsImageExtensions) {
  EXPECT_TRUE(HasImageExtension("a/B.JPG"));
  EXPECT_TRUE(HasImageExtension("x.png"));
  EXPECT_FALSE(HasImageExtension("x.mp4"));
  EXPECT_FALSE(HasImageExtension("png"));
}

}  // namespace
}  // namespace sluice
