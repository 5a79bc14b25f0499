#include "formats/tensor.h"

#include <cstring>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(TensorTest, ShapeTypeAndZeroFilledContiguousBuffer) {
  Tensor t(Tensor::ElementType::kFloat32, {1, 2, 3, 4});
  EXPECT_EQ(t.shape().num_elements(), 24);
  EXPECT_EQ(t.bytes(), 24 * sizeof(float));
  EXPECT_TRUE(t.ready_on_cpu());
  auto view = t.GetCpuReadView();
  const float* p = view.buffer<float>();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(p[i], 0.0f);
  EXPECT_EQ(view.buffer<int8_t>(), nullptr);  // Wrong type: no buffer.
}

TEST(TensorTest, WritesAreSeenByLaterReadsAndSurviveMoves) {
  Tensor t(Tensor::ElementType::kInt8, {2, 3}, {0.5f, -3});
  {
    auto w = t.GetCpuWriteView();
    for (int i = 0; i < 6; ++i) w.buffer<int8_t>()[i] = static_cast<int8_t>(i - 3);
  }
  std::vector<Tensor> v;
  v.push_back(std::move(t));
  EXPECT_EQ(t.bytes(), 0u);
  EXPECT_EQ(t.GetCpuReadView().data(), nullptr);
  const Tensor& m = v[0];
  EXPECT_EQ(m.quantization_parameters().zero_point, -3);
  EXPECT_EQ(m.GetCpuReadView().buffer<int8_t>()[5], 2);
  EXPECT_EQ(m.DebugString(), "Tensor<int8>[2x3]");
}

TEST(TensorTest, ElementSizes) {
  EXPECT_EQ(Tensor::ElementSize(Tensor::ElementType::kFloat16), 2u);
  EXPECT_EQ(Tensor::ElementSize(Tensor::ElementType::kInt32), 4u);
  EXPECT_EQ(Tensor::ElementSize(Tensor::ElementType::kInt64), 8u);
  EXPECT_EQ(Tensor::ElementSize(Tensor::ElementType::kUInt8), 1u);
  EXPECT_EQ(Tensor::Shape({2, 0, 3}).num_elements(), 0);
  EXPECT_EQ(Tensor::Shape().num_elements(), 1);
}

TEST(TensorTest, ConcurrentReadersAndAWriterDoNotRace) {
  Tensor t(Tensor::ElementType::kInt32, {1024});
  std::thread writer([&] {
    for (int round = 1; round <= 50; ++round) {
      auto w = t.GetCpuWriteView();
      for (int i = 0; i < 1024; ++i) w.buffer<int32_t>()[i] = round;
    }
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      for (int k = 0; k < 50; ++k) {
        auto view = t.GetCpuReadView();
        const int32_t* p = view.buffer<int32_t>();
        for (int i = 1; i < 1024; ++i) ASSERT_EQ(p[i], p[0]);  // Never a torn write.
      }
    });
  }
  writer.join();
  for (auto& th : readers) th.join();
}

// A host stand-in for the GPU layer's TensorGpuStorage: counts transfers.
class HostGpuStorage : public TensorGpuStorage {
 public:
  explicit HostGpuStorage(size_t bytes) : bytes_(bytes, 0) {}
  absl::Status DownloadTo(void* dst, size_t bytes) override {
    if (bytes != bytes_.size()) return absl::InvalidArgumentError("size");
    if (fail_downloads) return absl::InternalError("device lost");
    std::memcpy(dst, bytes_.data(), bytes);
    ++downloads;
    return absl::OkStatus();
  }
  absl::Status UploadFrom(const void* src, size_t bytes) override {
    if (bytes != bytes_.size()) return absl::InvalidArgumentError("size");
    std::memcpy(bytes_.data(), src, bytes);
    ++uploads;
    return absl::OkStatus();
  }
  float* floats() { return reinterpret_cast<float*>(bytes_.data()); }
  int uploads = 0, downloads = 0;
  bool fail_downloads = false;

 private:
  std::vector<uint8_t> bytes_;
};

Tensor::GpuStorageFactory FactoryFor(std::shared_ptr<HostGpuStorage>* made) {
  return [made](size_t bytes) -> absl::StatusOr<std::shared_ptr<TensorGpuStorage>> {
    *made = std::make_shared<HostGpuStorage>(bytes);
    return std::shared_ptr<TensorGpuStorage>(*made);
  };
}

TEST(TensorGpuSideTest, GpuReadUploadsOnceAndBothSidesStayValid) {
  Tensor t(Tensor::ElementType::kFloat32, {2, 2});
  t.GetCpuWriteView().buffer<float>()[3] = 7.f;
  std::shared_ptr<HostGpuStorage> gpu;
  auto a = t.GpuStorageForRead(FactoryFor(&gpu));
  ASSERT_TRUE(a.ok()) << a.status();
  auto b = t.GpuStorageForRead(FactoryFor(&gpu));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(gpu->uploads, 1);
  EXPECT_EQ(gpu->floats()[3], 7.f);
  EXPECT_TRUE(t.ready_on_cpu());
  EXPECT_TRUE(t.ready_on_gpu());
  EXPECT_EQ(t.GetCpuReadView().buffer<float>()[3], 7.f);
  EXPECT_EQ(gpu->downloads, 0);
}

TEST(TensorGpuSideTest, GpuResidentTensorDownloadsOnceOnCpuRead) {
  auto gpu = std::make_shared<HostGpuStorage>(4 * sizeof(float));
  gpu->floats()[1] = 3.5f;
  Tensor t(Tensor::ElementType::kFloat32, {4}, gpu);
  EXPECT_TRUE(t.ready_on_gpu());
  EXPECT_FALSE(t.ready_on_cpu());
  EXPECT_EQ(t.GpuStorage(), gpu);
  EXPECT_EQ(t.GetCpuReadView().buffer<float>()[1], 3.5f);
  EXPECT_EQ(t.GetCpuReadView().buffer<float>()[1], 3.5f);
  EXPECT_EQ(gpu->downloads, 1);
  EXPECT_TRUE(t.ready_on_cpu());
  EXPECT_TRUE(t.ready_on_gpu());
}

TEST(TensorGpuSideTest, WritesInvalidateTheOtherSide) {
  auto gpu = std::make_shared<HostGpuStorage>(4 * sizeof(float));
  Tensor t(Tensor::ElementType::kFloat32, {4}, gpu);
  t.GetCpuWriteView().buffer<float>()[0] = 1.f;  // no download first
  EXPECT_EQ(gpu->downloads, 0);
  EXPECT_FALSE(t.ready_on_gpu());
  std::shared_ptr<HostGpuStorage> unused;
  ASSERT_TRUE(t.GpuStorageForRead(FactoryFor(&unused)).ok());
  EXPECT_EQ(unused, nullptr);  // the existing storage is reused
  EXPECT_EQ(gpu->uploads, 1);
  EXPECT_EQ(gpu->floats()[0], 1.f);
  ASSERT_TRUE(t.GpuStorageForWrite(FactoryFor(&unused)).ok());
  EXPECT_FALSE(t.ready_on_cpu());
  gpu->floats()[0] = 2.f;  // "the kernel"
  EXPECT_EQ(t.GetCpuReadView().buffer<float>()[0], 2.f);
  EXPECT_EQ(gpu->downloads, 1);
}

TEST(TensorGpuSideTest, FailedDownloadGivesANullViewAndTheError) {
  auto gpu = std::make_shared<HostGpuStorage>(sizeof(float));
  gpu->fail_downloads = true;
  Tensor t(Tensor::ElementType::kFloat32, {1}, gpu);
  EXPECT_EQ(t.GetCpuReadView().buffer<float>(), nullptr);
  absl::Status s = t.SyncToCpu();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("device lost"), absl::string_view::npos);
  EXPECT_FALSE(t.ready_on_cpu());
}

TEST(TensorGpuSideTest, MoveKeepsTheGpuSide) {
  auto gpu = std::make_shared<HostGpuStorage>(sizeof(float));
  Tensor a(Tensor::ElementType::kFloat32, {1}, gpu);
  Tensor b(std::move(a));
  EXPECT_EQ(b.GpuStorage(), gpu);
  EXPECT_TRUE(b.ready_on_gpu());
  Tensor c(Tensor::ElementType::kFloat32, {1});
  c = std::move(b);
  EXPECT_EQ(c.GpuStorage(), gpu);
  EXPECT_FALSE(c.ready_on_cpu());
}

}  // namespace
}  // namespace sluice
