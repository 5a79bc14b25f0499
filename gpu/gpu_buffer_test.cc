// GpuBuffer and the Image GPU view on a real device (label `gpu`).
#include "gpu/gpu_buffer.h"

#include <cstdint>

#include "formats/image.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

ImageFrame Pattern(ImageFormat::Format format, int w, int h) {
  ImageFrame f = *ImageFrame::Create(format, w, h);
  for (int y = 0; y < h; ++y) {
    uint8_t* row = f.MutableRow(y);
    for (int i = 0; i < f.RowBytes(); ++i) row[i] = static_cast<uint8_t>(y * 31 + i * 7);
  }
  return f;
}

void ExpectSamePixels(const ImageFrame& a, const ImageFrame& b) {
  ASSERT_EQ(a.Width(), b.Width());
  ASSERT_EQ(a.Height(), b.Height());
  ASSERT_EQ(a.Format(), b.Format());
  for (int y = 0; y < a.Height(); ++y) {
    for (int i = 0; i < a.RowBytes(); ++i) ASSERT_EQ(a.Row(y)[i], b.Row(y)[i]) << y << "," << i;
  }
}

TEST(GpuBufferTest, UploadThenDownloadRoundTripsAndIsCounted) {
  auto gpu = *GpuResources::Create();
  cudaStream_t s = (*gpu->Context())->stream();
  for (ImageFormat::Format f : {ImageFormat::SRGB, ImageFormat::SRGBA, ImageFormat::GRAY8,
                                ImageFormat::VEC32F1}) {
    ImageFrame frame = Pattern(f, 37, 11);  // odd width: pitch != row bytes
    auto buffer = GpuBuffer::Upload(gpu, frame, s);
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    EXPECT_EQ((*buffer)->pitch() % GpuBuffer::kPitchAlignment, 0u);
    auto back = (*buffer)->Download(s);
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectSamePixels(frame, *back);
  }
  GpuTransferStats st = gpu->Stats();
  EXPECT_EQ(st.uploads, 4);
  EXPECT_EQ(st.downloads, 4);
  EXPECT_EQ(st.upload_bytes, st.download_bytes);
}

TEST(GpuBufferTest, ImageCpuViewDownloadsOnceAndCaches) {
  auto gpu = *GpuResources::Create();
  cudaStream_t s = (*gpu->Context())->stream();
  ImageFrame frame = Pattern(ImageFormat::SRGBA, 16, 9);
  Image image = MakeGpuImage(*GpuBuffer::Upload(gpu, frame, s));
  EXPECT_TRUE(image.UsesGpu());
  EXPECT_FALSE(image.HasCpuView());
  auto cpu = image.CpuView();
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  ExpectSamePixels(frame, **cpu);
  ASSERT_TRUE(image.CpuView().ok());
  EXPECT_EQ(gpu->Stats().downloads, 1);
}

TEST(GpuBufferTest, GpuBufferOfUploadsACpuImageOnceAndReusesIt) {
  auto gpu = *GpuResources::Create();
  cudaStream_t s = (*gpu->Context())->stream();
  Image image(Pattern(ImageFormat::SRGB, 8, 8));
  auto a = GpuBufferOf(image, gpu, s);
  auto b = GpuBufferOf(image, gpu, s);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(gpu->Stats().uploads, 1);
}

TEST(GpuBufferTest, EqualFramesReuseDeviceMemoryAfterWarmUp) {
  auto gpu = *GpuResources::Create();
  cudaStream_t s = (*gpu->Context())->stream();
  ImageFrame frame = Pattern(ImageFormat::SRGB, 64, 48);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(GpuBuffer::Upload(gpu, frame, s).ok());
  const GpuTransferStats warm = gpu->Stats();
  for (int i = 0; i < 20; ++i) {
    auto b = GpuBuffer::Upload(gpu, frame, s);
    ASSERT_TRUE(b.ok());
    ASSERT_TRUE((*b)->Download(s).ok());
  }
  const GpuTransferStats st = gpu->Stats();
  EXPECT_EQ(st.device_allocations, warm.device_allocations);
  EXPECT_LE(st.pinned_allocations, warm.pinned_allocations + 1);  // the download block
  EXPECT_LE(st.event_creations, warm.event_creations + 1);
}

TEST(GpuBufferTest, RejectsBadSizes) {
  auto gpu = *GpuResources::Create();
  cudaStream_t s = (*gpu->Context())->stream();
  EXPECT_FALSE(GpuBuffer::Create(gpu, ImageFormat::SRGB, 0, 4, s).ok());
  EXPECT_FALSE(GpuBuffer::Create(nullptr, ImageFormat::SRGB, 4, 4, s).ok());
  EXPECT_FALSE(GpuBuffer::Upload(gpu, ImageFrame(), s).ok());
}

}  // namespace
}  // namespace sluice
