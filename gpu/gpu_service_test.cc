// GpuResources on a real device (label `gpu`; skipped without one).
#include "gpu/gpu_service.h"

#include <cuda_runtime_api.h>

#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(GpuServiceTest, CreatesTheSharedContextAndNamedOnes) {
  auto gpu = GpuResources::Create();
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  EXPECT_FALSE((*gpu)->device_name().empty());
  auto shared = (*gpu)->Context("");
  auto shared_again = (*gpu)->Context();
  auto other = (*gpu)->Context("auto:ImageFrameToGpuBufferCalculator");
  ASSERT_TRUE(shared.ok() && shared_again.ok() && other.ok());
  EXPECT_EQ(*shared, *shared_again);
  EXPECT_NE((*shared)->stream(), (*other)->stream());
}

TEST(GpuServiceTest, RejectsADeviceIndexThatDoesNotExist) {
  auto gpu = GpuResources::Create(1 << 20);
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(gpu.status().message().find("does not exist"), std::string::npos);
}

TEST(GpuServiceTest, DeviceMemoryIsReusedBySize) {
  auto gpu = *GpuResources::Create();
  cudaStream_t s = (*gpu->Context())->stream();
  void* a = *gpu->AcquireDeviceMemory(4096, s);
  void* b = *gpu->AcquireDeviceMemory(8192, s);
  EXPECT_EQ(gpu->Stats().device_allocations, 2);
  gpu->ReleaseDeviceMemory(a, 4096, {});
  gpu->ReleaseDeviceMemory(b, 8192, {});
  void* a2 = *gpu->AcquireDeviceMemory(4096, s);
  void* b2 = *gpu->AcquireDeviceMemory(8192, s);
  EXPECT_EQ(a2, a);
  EXPECT_EQ(b2, b);
  EXPECT_EQ(gpu->Stats().device_allocations, 2);  // no cudaMalloc on reuse
  gpu->ReleaseDeviceMemory(a2, 4096, {});
  gpu->ReleaseDeviceMemory(b2, 8192, {});
  EXPECT_TRUE(gpu->Trim().ok());
}

TEST(GpuServiceTest, ReusedMemoryWaitsForItsLastUserOnTheDevice) {
  // A block released with a pending event is handed out again at once; the
  // new owner's stream is ordered after the event (no host wait).
  auto gpu = *GpuResources::Create();
  cudaStream_t s1 = (*gpu->Context("one"))->stream();
  cudaStream_t s2 = (*gpu->Context("two"))->stream();
  void* p = *gpu->AcquireDeviceMemory(1 << 20, s1);
  ASSERT_EQ(cudaMemsetAsync(p, 7, 1 << 20, s1), cudaSuccess);
  cudaEvent_t done = *gpu->AcquireEvent();
  ASSERT_EQ(cudaEventRecord(done, s1), cudaSuccess);
  gpu->ReleaseDeviceMemory(p, 1 << 20, {done});
  void* q = *gpu->AcquireDeviceMemory(1 << 20, s2);
  ASSERT_EQ(q, p);
  ASSERT_EQ(cudaMemsetAsync(q, 9, 1 << 20, s2), cudaSuccess);
  unsigned char host[16];
  ASSERT_EQ(cudaMemcpyAsync(host, q, sizeof(host), cudaMemcpyDeviceToHost, s2), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s2), cudaSuccess);
  for (unsigned char c : host) EXPECT_EQ(c, 9);
  // Once both streams are idle the later owner's write must be the one left.
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(host, q, sizeof(host), cudaMemcpyDeviceToHost, s2), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s2), cudaSuccess);
  for (unsigned char c : host) EXPECT_EQ(c, 9);
  gpu->ReleaseDeviceMemory(q, 1 << 20, {});
}

TEST(GpuServiceTest, PinnedMemoryAndEventsArePooled) {
  auto gpu = *GpuResources::Create();
  void* h = *gpu->AcquirePinnedMemory(1000);
  gpu->ReleasePinnedMemory(h, 1000, nullptr);
  EXPECT_EQ(*gpu->AcquirePinnedMemory(1000), h);
  gpu->ReleasePinnedMemory(h, 1000, nullptr);
  EXPECT_EQ(gpu->Stats().pinned_allocations, 1);
  cudaEvent_t e = *gpu->AcquireEvent();
  gpu->ReleaseEvent(e);
  EXPECT_EQ(*gpu->AcquireEvent(), e);
  gpu->ReleaseEvent(e);
  EXPECT_EQ(gpu->Stats().event_creations, 1);
}

TEST(GpuServiceTest, ZeroBytesIsAnError) {
  auto gpu = *GpuResources::Create();
  EXPECT_FALSE(gpu->AcquireDeviceMemory(0, nullptr).ok());
  EXPECT_FALSE(gpu->AcquirePinnedMemory(0).ok());
}

}  // namespace
}  // namespace sluice
