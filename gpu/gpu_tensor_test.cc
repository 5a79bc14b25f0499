// Tensor's CUDA view (gpu_tensor.h): transfers only when the other side is
// read, cached, counted; writers and readers ordered by events. Label `gpu`
// (a real device) and `gpu_fake` (the fake runtime, both execution orders,
// where a missing event wait reads stale memory and fails these tests).
#include "gpu/gpu_tensor.h"

#include <cuda_runtime_api.h>

#include <cstring>
#include <vector>

#include "formats/tensor.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

constexpr int kH = 4, kW = 5, kC = 3;
constexpr size_t kBytes = sizeof(float) * kH * kW * kC;

Tensor PatternTensor(float base) {
  Tensor t(Tensor::ElementType::kFloat32, {1, kH, kW, kC});
  float* p = t.GetCpuWriteView().buffer<float>();
  for (int i = 0; i < kH * kW * kC; ++i) p[i] = base + i;
  return t;
}

std::vector<float> CpuValues(const Tensor& t) {
  auto view = t.GetCpuReadView();
  const float* p = view.buffer<float>();
  if (p == nullptr) return {};
  return std::vector<float>(p, p + t.shape().num_elements());
}

std::vector<float> Pattern(float base) {
  std::vector<float> v(kH * kW * kC);
  for (size_t i = 0; i < v.size(); ++i) v[i] = base + i;
  return v;
}

class GpuTensorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto gpu = GpuResources::Create();
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    gpu_ = *gpu;
    stream_ = (*gpu_->Context())->stream();
  }

  // A GPU-only tensor whose content is a device copy of `src`'s read view,
  // made on stream_ (what a GPU calculator does).
  Tensor CopyOnGpu(const Tensor& src) {
    auto in = GetCudaReadView(src, gpu_, stream_);
    EXPECT_TRUE(in.ok()) << in.status();
    auto out = GpuTensorBuffer::Create(gpu_, src.bytes(), stream_);
    EXPECT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(cudaMemcpyAsync((*out)->data(), (*in)->data(), src.bytes(), cudaMemcpyDeviceToDevice,
                              stream_),
              cudaSuccess);
    EXPECT_TRUE((*in)->MarkRead(stream_).ok());
    EXPECT_TRUE((*out)->MarkReady(stream_).ok());
    auto t = MakeGpuTensor(src.element_type(), src.shape(), *out);
    EXPECT_TRUE(t.ok()) << t.status();
    return *std::move(t);
  }

  std::shared_ptr<GpuResources> gpu_;
  cudaStream_t stream_ = nullptr;
};

TEST_F(GpuTensorTest, CpuTensorIsUploadedOnceForGpuReads) {
  Tensor t = PatternTensor(1);
  EXPECT_TRUE(t.ready_on_cpu());
  EXPECT_FALSE(t.ready_on_gpu());
  auto a = GetCudaReadView(t, gpu_, stream_);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(t.ready_on_gpu());
  EXPECT_TRUE(t.ready_on_cpu());  // Both sides stay valid.
  auto b = GetCudaReadView(t, gpu_, stream_);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->get(), b->get());  // Cached.
  GpuTransferStats st = gpu_->Stats();
  EXPECT_EQ(st.uploads, 1);
  EXPECT_EQ(st.upload_bytes, static_cast<int64_t>(kBytes));
  EXPECT_EQ(st.downloads, 0);
  // Reading the CPU side of a tensor that is valid there downloads nothing.
  EXPECT_EQ(CpuValues(t), Pattern(1));
  EXPECT_EQ(gpu_->Stats().downloads, 0);
}

TEST_F(GpuTensorTest, GpuTensorDownloadsOnlyWhenTheCpuSideIsRead) {
  Tensor src = PatternTensor(10);
  Tensor t = CopyOnGpu(src);
  EXPECT_TRUE(t.ready_on_gpu());
  EXPECT_FALSE(t.ready_on_cpu());
  EXPECT_EQ(gpu_->Stats().downloads, 0);
  EXPECT_EQ(CpuValues(t), Pattern(10));
  EXPECT_TRUE(t.ready_on_cpu());
  EXPECT_TRUE(t.ready_on_gpu());
  EXPECT_EQ(CpuValues(t), Pattern(10));  // Cached: no second download.
  GpuTransferStats st = gpu_->Stats();
  EXPECT_EQ(st.downloads, 1);
  EXPECT_EQ(st.download_bytes, static_cast<int64_t>(kBytes));
  EXPECT_EQ(st.uploads, 1);  // src only.
  // The GPU side is still current: a GPU read uploads nothing.
  ASSERT_TRUE(GetCudaReadView(t, gpu_, stream_).ok());
  EXPECT_EQ(gpu_->Stats().uploads, 1);
}

TEST_F(GpuTensorTest, CpuWriteMakesTheNextGpuReadUploadAfterEarlierReaders) {
  Tensor t = PatternTensor(0);
  // A GPU reader of the old content, still queued when the CPU rewrites it.
  Tensor copy = CopyOnGpu(t);
  {
    float* p = t.GetCpuWriteView().buffer<float>();
    for (int i = 0; i < kH * kW * kC; ++i) p[i] = 100.f + i;
  }
  EXPECT_FALSE(t.ready_on_gpu());
  auto again = GetCudaReadView(t, gpu_, stream_);  // re-uploads into the same memory
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(gpu_->Stats().uploads, 2);
  // The earlier reader saw the old content: the upload waited for it.
  EXPECT_EQ(CpuValues(copy), Pattern(0));
  Tensor copy2 = CopyOnGpu(t);
  EXPECT_EQ(CpuValues(copy2), Pattern(100));
}

TEST_F(GpuTensorTest, GpuWriteMakesTheCpuSideStale) {
  Tensor t = PatternTensor(5);
  ASSERT_TRUE(GetCudaReadView(t, gpu_, stream_).ok());
  auto w = GetCudaWriteView(t, gpu_, stream_);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_FALSE(t.ready_on_cpu());
  EXPECT_TRUE(t.ready_on_gpu());
  ASSERT_EQ(cudaMemsetAsync((*w)->data(), 0, kBytes, stream_), cudaSuccess);
  ASSERT_TRUE((*w)->MarkReady(stream_).ok());
  EXPECT_EQ(CpuValues(t), std::vector<float>(kH * kW * kC, 0.f));
  EXPECT_EQ(gpu_->Stats().downloads, 1);
}

TEST_F(GpuTensorTest, WriteViewOfAFreshTensorUploadsNothing) {
  Tensor t(Tensor::ElementType::kFloat32, {1, kH, kW, kC});
  auto w = GetCudaWriteView(t, gpu_, stream_);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(cudaMemsetAsync((*w)->data(), 0, kBytes, stream_), cudaSuccess);
  ASSERT_TRUE((*w)->MarkReady(stream_).ok());
  EXPECT_EQ(gpu_->Stats().uploads, 0);
  EXPECT_EQ(CpuValues(t), std::vector<float>(kH * kW * kC, 0.f));
}

TEST_F(GpuTensorTest, MakeGpuTensorChecksTheSize) {
  auto b = GpuTensorBuffer::Create(gpu_, 16, stream_);
  ASSERT_TRUE(b.ok()) << b.status();
  auto t = MakeGpuTensor(Tensor::ElementType::kFloat32, {1, 2, 3}, *b);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(GpuTensorTest, MovedTensorKeepsItsGpuSide) {
  Tensor src = PatternTensor(3);
  Tensor t = CopyOnGpu(src);
  Tensor moved(std::move(t));
  EXPECT_TRUE(moved.ready_on_gpu());
  EXPECT_EQ(CpuValues(moved), Pattern(3));
}

}  // namespace
}  // namespace sluice
