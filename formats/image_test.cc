#include "formats/image.h"

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace sluice {
namespace {

// Stands in for the GPU layer: "device" pixels all set to one value.
class FakeGpuStorage : public ImageGpuStorage {
 public:
  explicit FakeGpuStorage(uint8_t value, bool fail = false) : value_(value), fail_(fail) {}
  absl::Status DownloadTo(ImageFrame& dst) override {
    ++downloads;
    if (fail_) return absl::UnavailableError("device lost");
    for (int y = 0; y < dst.Height(); ++y) std::memset(dst.MutableRow(y), value_, dst.RowBytes());
    return absl::OkStatus();
  }
  std::atomic<int> downloads{0};

 private:
  uint8_t value_;
  bool fail_;
};

TEST(ImageTest, CpuImageSharesItsFrame) {
  absl::StatusOr<ImageFrame> f = ImageFrame::Create(ImageFormat::SRGBA, 4, 2);
  ASSERT_TRUE(f.ok());
  const uint8_t* pixels = f->PixelData();
  Image image(std::move(*f));
  Image copy = image;  // Reference semantics.
  EXPECT_EQ(copy.width(), 4);
  EXPECT_EQ(copy.height(), 2);
  EXPECT_EQ(copy.channels(), 4);
  EXPECT_EQ(copy.image_format(), ImageFormat::SRGBA);
  EXPECT_FALSE(copy.UsesGpu());
  ASSERT_TRUE(copy.CpuView().ok());
  EXPECT_EQ((*copy.CpuView())->PixelData(), pixels);
  EXPECT_EQ(image.GetImageFrameSharedPtr()->PixelData(), pixels);
}

TEST(ImageTest, GpuImageDownloadsOnceOnFirstCpuRead) {
  auto gpu = std::make_shared<FakeGpuStorage>(7);
  Image image(ImageFormat::GRAY8, 3, 3, gpu);
  EXPECT_TRUE(image.UsesGpu());
  EXPECT_FALSE(image.HasCpuView());
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&] {
      auto view = image.CpuView();
      ASSERT_TRUE(view.ok());
      EXPECT_EQ((*view)->Row(2)[2], 7);
    });
  }
  for (auto& t : readers) t.join();
  EXPECT_EQ(gpu->downloads.load(), 1);
  EXPECT_TRUE(image.HasCpuView());
  EXPECT_EQ(image.GpuStorage(), gpu);
}

TEST(ImageTest, FailedDownloadIsAnError) {
  Image image(ImageFormat::SRGB, 2, 2, std::make_shared<FakeGpuStorage>(0, /*fail=*/true));
  absl::StatusOr<std::shared_ptr<const ImageFrame>> v = image.CpuView();
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("device lost"), absl::string_view::npos);
  EXPECT_EQ(image.GetImageFrameSharedPtr(), nullptr);
}

TEST(ImageTest, EmptyImage) {
  Image image;
  EXPECT_TRUE(image.IsEmpty());
  EXPECT_EQ(image.width(), 0);
  EXPECT_FALSE(image.CpuView().ok());
}

}  // namespace
}  // namespace sluice
