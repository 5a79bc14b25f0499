#include "media/frame_sink.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "formats/image_frame_opencv.h"
#include "formats/image_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "media/frame_source.h"
#include "opencv2/core.hpp"

namespace sluice {
namespace {

namespace fs = std::filesystem;
using ::testing::AnyOf;
using ::testing::HasSubstr;

fs::path TempDir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("sluice_sink_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Frame i of the synthetic clip: a solid colour that changes with i.
cv::Scalar ClipColour(int i) { return cv::Scalar(20 * i, 120, 220 - 15 * i); }

ImageFrame ClipFrame(int i, int w, int h) {
  ImageFrame f = *ImageFrame::Create(ImageFormat::SRGB, w, h);
  MatView(&f).setTo(ClipColour(i));
  return f;
}

TEST(FrameSinkTest, VideoRoundTripKeepsCountSizeTimingAndColours) {
  const fs::path dir = TempDir("video");
  const std::string path = (dir / "clip.mp4").string();
  constexpr int kFrames = 10;
  constexpr int kWidth = 64, kHeight = 48;
  {
    absl::StatusOr<std::unique_ptr<FrameSink>> sink = OpenFrameSink(path, 25.0);
    ASSERT_TRUE(sink.ok()) << sink.status();
    for (int i = 0; i < kFrames; ++i) {
      ASSERT_TRUE((*sink)->Write(ClipFrame(i, kWidth, kHeight)).ok()) << i;
    }
    EXPECT_THAT((*sink)->Codec(), AnyOf("avc1", "mp4v"));
    RecordProperty("codec", (*sink)->Codec());
    EXPECT_THAT((*sink)->Description(), HasSubstr("clip.mp4"));
    ASSERT_TRUE((*sink)->Close().ok());
  }

  absl::StatusOr<std::unique_ptr<FrameSource>> source = OpenFrameSource(path);
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_NEAR((*source)->Fps(), 25.0, 0.01);
  EXPECT_EQ((*source)->FrameCount(), kFrames);
  SourceFrame f;
  int n = 0;
  while ((*source)->Next(&f)) {
    ASSERT_TRUE(f.status.ok()) << f.status;
    EXPECT_EQ(f.index, n);
    EXPECT_NEAR(f.timestamp_us, n * 40000, 1000) << n;
    ASSERT_EQ(f.image.Width(), kWidth);
    ASSERT_EQ(f.image.Height(), kHeight);
    const cv::Scalar mean = cv::mean(MatView(f.image));
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(mean[c], ClipColour(n)[c], 12) << n << " " << c;
    ++n;
  }
  EXPECT_EQ(n, kFrames);
  fs::remove_all(dir);
}

TEST(FrameSinkTest, VideoLetterboxesFramesOfAnotherSize) {
  const fs::path dir = TempDir("letterbox");
  const std::string path = (dir / "mixed.mp4").string();
  {
    absl::StatusOr<std::unique_ptr<FrameSink>> sink = OpenFrameSink(path, 30.0);
    ASSERT_TRUE(sink.ok()) << sink.status();
    ASSERT_TRUE((*sink)->Write(ClipFrame(0, 96, 48)).ok());
    ImageFrame square = *ImageFrame::Create(ImageFormat::SRGB, 30, 30);
    MatView(&square).setTo(cv::Scalar(250, 250, 250));
    ASSERT_TRUE((*sink)->Write(square).ok());
  }
  absl::StatusOr<std::unique_ptr<FrameSource>> source = OpenFrameSource(path);
  ASSERT_TRUE(source.ok()) << source.status();
  SourceFrame f;
  ASSERT_TRUE((*source)->Next(&f));
  ASSERT_TRUE((*source)->Next(&f));
  ASSERT_TRUE(f.status.ok()) << f.status;
  ASSERT_EQ(f.image.Width(), 96);
  ASSERT_EQ(f.image.Height(), 48);
  // The square is scaled to 48x48 in the middle; bars of 24 px either side.
  const cv::Mat m = MatView(f.image);
  EXPECT_GT(cv::mean(m(cv::Rect(30, 4, 36, 40)))[0], 230);
  EXPECT_LT(cv::mean(m(cv::Rect(0, 0, 16, 48)))[0], 20);
  EXPECT_LT(cv::mean(m(cv::Rect(80, 0, 16, 48)))[0], 20);
  fs::remove_all(dir);
}

TEST(FrameSinkTest, VideoOfOddSizeIsWritable) {
  const fs::path dir = TempDir("odd");
  const std::string path = (dir / "odd.mp4").string();
  {
    absl::StatusOr<std::unique_ptr<FrameSink>> sink = OpenFrameSink(path, 30.0);
    ASSERT_TRUE(sink.ok()) << sink.status();
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*sink)->Write(ClipFrame(i, 65, 49)).ok()) << i;
    RecordProperty("codec", (*sink)->Codec());
  }
  absl::StatusOr<std::unique_ptr<FrameSource>> source = OpenFrameSource(path);
  ASSERT_TRUE(source.ok()) << source.status();
  SourceFrame f;
  int n = 0;
  while ((*source)->Next(&f)) {
    ASSERT_TRUE(f.status.ok()) << f.status;
    EXPECT_EQ(f.image.Width(), 64);  // Cropped to even, not scaled.
    EXPECT_EQ(f.image.Height(), 48);
    ++n;
  }
  EXPECT_EQ(n, 3);
  fs::remove_all(dir);
}

TEST(FrameSinkTest, ImageFileTakesOneFrame) {
  const fs::path dir = TempDir("image");
  const std::string path = (dir / "out.png").string();
  absl::StatusOr<std::unique_ptr<FrameSink>> sink = OpenFrameSink(path);
  ASSERT_TRUE(sink.ok()) << sink.status();
  ASSERT_TRUE((*sink)->Write(ClipFrame(3, 20, 10)).ok());
  EXPECT_EQ((*sink)->Write(ClipFrame(4, 20, 10)).code(), absl::StatusCode::kFailedPrecondition);
  absl::StatusOr<ImageFrame> back = ReadImageFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->Row(5)[0], 60);  // Lossless PNG: R of frame 3.
  EXPECT_EQ(back->Row(5)[2], 175);

  // JPEG is lossy but close.
  const std::string jpg = (dir / "out.jpg").string();
  ASSERT_TRUE(WriteImage(ClipFrame(3, 20, 10), jpg).ok());
  back = ReadImageFile(jpg);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_NEAR(back->Row(5)[1], 120, 6);
  fs::remove_all(dir);
}

TEST(FrameSinkTest, FolderGetsNumberedPngs) {
  const fs::path dir = TempDir("folder");
  const std::string out = (dir / "frames/").string();
  absl::StatusOr<std::unique_ptr<FrameSink>> sink = OpenFrameSink(out);
  ASSERT_TRUE(sink.ok()) << sink.status();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*sink)->Write(ClipFrame(i, 8, 8)).ok());
  EXPECT_TRUE(fs::exists(dir / "frames" / "000000.png"));
  EXPECT_TRUE(fs::exists(dir / "frames" / "000002.png"));
  fs::remove_all(dir);
}

TEST(FrameSinkTest, BadOutputsAreErrors) {
  EXPECT_FALSE(OpenFrameSink("").ok());
  EXPECT_FALSE(OpenFrameSink("/tmp/out.unknownext").ok());
  absl::StatusOr<std::unique_ptr<FrameSink>> sink = OpenFrameSink("/nonexistent/dir/out.png");
  ASSERT_TRUE(sink.ok());
  absl::Status written = (*sink)->Write(ClipFrame(0, 4, 4));
  EXPECT_FALSE(written.ok());
  EXPECT_THAT(std::string(written.message()), HasSubstr("/nonexistent/dir/out.png"));
  absl::StatusOr<std::unique_ptr<FrameSink>> video = OpenFrameSink("/nonexistent/dir/o.mp4");
  ASSERT_TRUE(video.ok());
  EXPECT_FALSE((*video)->Write(ClipFrame(0, 16, 16)).ok());
  EXPECT_FALSE((*video)->Write(ImageFrame()).ok());
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

// Overwrites the payload of the `n`th (0-based) MJPEG frame chunk ("00dc") of
// an AVI file with garbage, keeping its size, so that only that frame breaks.
bool CorruptAviFrame(const std::string& path, int n) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // Frame chunks: "00dc", a little-endian size, then a JPEG (FF D8).
  size_t pos = 0;
  for (int seen = -1; seen < n;) {
    pos = bytes.find("00dc", pos + 1);
    if (pos == std::string::npos || pos + 10 > bytes.size()) return false;
    if (static_cast<uint8_t>(bytes[pos + 8]) == 0xFF &&
        static_cast<uint8_t>(bytes[pos + 9]) == 0xD8) {
      ++seen;
    }
  }
  const uint32_t size = static_cast<uint8_t>(bytes[pos + 4]) |
                        static_cast<uint8_t>(bytes[pos + 5]) << 8 |
                        static_cast<uint8_t>(bytes[pos + 6]) << 16 |
                        static_cast<uint32_t>(static_cast<uint8_t>(bytes[pos + 7])) << 24;
  if (size < 16 || pos + 8 + size > bytes.size()) return false;
  for (uint32_t i = 0; i < size; ++i) bytes[pos + 8 + i] = static_cast<char>(0x5A ^ i);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return true;
}

TEST(FrameSourceVideoTest, CorruptFramesInTheMiddleAreReportedAndTheRestDelivered) {
  const fs::path dir = TempDir("corrupt_video");
  const std::string path = (dir / "clip.avi").string();
  constexpr int kFrames = 8;
  {
    absl::StatusOr<std::unique_ptr<FrameSink>> sink = OpenFrameSink(path, 10.0);
    ASSERT_TRUE(sink.ok()) << sink.status();
    for (int i = 0; i < kFrames; ++i) ASSERT_TRUE((*sink)->Write(ClipFrame(i, 32, 32)).ok());
    ASSERT_EQ((*sink)->Codec(), "MJPG");
  }
  // Two damaged frames in a row, then one; last first, as a damaged chunk no
  // longer counts as a frame for CorruptAviFrame.
  for (int n : {5, 4, 2}) ASSERT_TRUE(CorruptAviFrame(path, n)) << n;

  absl::StatusOr<std::unique_ptr<FrameSource>> source = OpenFrameSource(path);
  ASSERT_TRUE(source.ok()) << source.status();
  SourceFrame f;
  std::vector<int64_t> good, bad;
  while ((*source)->Next(&f)) {
    EXPECT_NEAR(f.timestamp_us, f.index * 100000, 1000) << f.index;  // 10 fps.
    if (f.status.ok()) {
      good.push_back(f.index);
      const cv::Scalar mean = cv::mean(MatView(f.image));
      EXPECT_NEAR(mean[0], ClipColour(static_cast<int>(f.index))[0], 12) << f.index;
    } else {
      bad.push_back(f.index);
      EXPECT_THAT(std::string(f.status.message()), HasSubstr("clip.avi"));
      EXPECT_TRUE(f.image.IsEmpty());
    }
  }
  EXPECT_THAT(bad, testing::ElementsAre(2, 4, 5));
  EXPECT_THAT(good, testing::ElementsAre(0, 1, 3, 6, 7));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sluice
