// The fake runtime itself: work is lazy per stream and ordered only by
// events, so code that forgets a wait sees stale data here too.
#include "gpu/testing/fake_cuda_runtime.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace sluice {
namespace {

class FakeCudaRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudaStreamCreateWithFlags(&a_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&b_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dev_, 64), cudaSuccess);
  }
  void TearDown() override {
    EXPECT_EQ(cudaFree(dev_), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(a_), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(b_), cudaSuccess);
  }
  cudaStream_t a_ = nullptr, b_ = nullptr;
  void* dev_ = nullptr;
};

TEST_F(FakeCudaRuntimeTest, LazyOrderShowsStaleDataToAReaderThatDidNotWait) {
  fake_cuda::SetOthersFirst(false);
  uint8_t host[4] = {};
  ASSERT_EQ(cudaMemsetAsync(dev_, 7, 64, a_), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(host, dev_, 4, cudaMemcpyDeviceToHost, b_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(b_), cudaSuccess);
  EXPECT_EQ(host[0], 0xCD);  // a_'s memset has not run: nothing ordered it first
  ASSERT_EQ(cudaStreamSynchronize(a_), cudaSuccess);
  fake_cuda::SetOthersFirst(true);
}

TEST_F(FakeCudaRuntimeTest, OthersFirstOrderRunsAReaderBeforeAProducerItDidNotWaitFor) {
  fake_cuda::SetOthersFirst(true);
  uint8_t host[4] = {};
  cudaEvent_t e;
  ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(dev_, 7, 64, a_), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, a_), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(host, dev_, 4, cudaMemcpyDeviceToHost, b_), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(e), cudaSuccess);  // b_ runs first, then a_
  EXPECT_EQ(host[0], 0xCD);
  EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
}

TEST_F(FakeCudaRuntimeTest, AnEventWaitOrdersTheStreams) {
  uint8_t host[4] = {};
  cudaEvent_t e;
  ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(dev_, 7, 64, a_), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, a_), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(b_, e, 0), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, a_), cudaSuccess);  // a later record does not matter
  ASSERT_EQ(cudaMemcpyAsync(host, dev_, 4, cudaMemcpyDeviceToHost, b_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(b_), cudaSuccess);
  EXPECT_EQ(host[0], 7);
  EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
}

TEST_F(FakeCudaRuntimeTest, RejectsOutOfBoundsAndBadHandles) {
  const int64_t before = fake_cuda::GetStats().violations;
  uint8_t host[128];
  EXPECT_NE(cudaMemcpyAsync(host, dev_, 65, cudaMemcpyDeviceToHost, a_), cudaSuccess);
  EXPECT_NE(cudaMemcpy2DAsync(dev_, 32, host, 32, 32, 3, cudaMemcpyHostToDevice, a_), cudaSuccess);
  EXPECT_NE(cudaFree(host), cudaSuccess);
  EXPECT_EQ(fake_cuda::GetStats().violations, before + 3);
}

}  // namespace
}  // namespace sluice
