#include "formats/image_frame_opencv.h"

#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(ImageFrameOpenCvTest, MatViewSharesPixelsAndStride) {
  absl::StatusOr<ImageFrame> f = ImageFrame::Create(ImageFormat::SRGB, 5, 2);
  ASSERT_TRUE(f.ok());
  cv::Mat m = MatView(&*f);
  EXPECT_EQ(m.type(), CV_8UC3);
  EXPECT_EQ(m.step[0], static_cast<size_t>(f->WidthStep()));
  m.at<cv::Vec3b>(1, 4) = cv::Vec3b(9, 8, 7);
  EXPECT_EQ(f->Row(1)[12], 9);
  EXPECT_EQ(MatView(ImageFrame()).empty(), true);
  EXPECT_EQ(*CvTypeForFormat(ImageFormat::VEC32F1), CV_32FC1);
  EXPECT_EQ(*CvTypeForFormat(ImageFormat::GRAY16), CV_16UC1);
}

TEST(ImageFrameOpenCvTest, FrameFromMatKeepsTheBufferAlive) {
  ImageFrame f;
  const uint8_t* data = nullptr;
  {
    cv::Mat m(3, 4, CV_8UC4, cv::Scalar(1, 2, 3, 4));
    data = m.data;
    absl::StatusOr<ImageFrame> r = ImageFrameFromMat(m, ImageFormat::SRGBA);
    ASSERT_TRUE(r.ok()) << r.status();
    f = std::move(*r);
  }
  EXPECT_EQ(f.PixelData(), data);  // No copy.
  EXPECT_EQ(f.Row(2)[3], 4);       // Still readable after the Mat went away.
  cv::Mat wrong(3, 4, CV_8UC3);
  EXPECT_FALSE(ImageFrameFromMat(wrong, ImageFormat::SRGBA).ok());
}

}  // namespace
}  // namespace sluice
