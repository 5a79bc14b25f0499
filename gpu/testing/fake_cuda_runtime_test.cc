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

// CUDA graphs: captured work is recorded, not run; every launch replays it in
// order on the launch stream, after that stream's earlier work.
TEST_F(FakeCudaRuntimeTest, CapturedWorkRunsOnlyWhenTheGraphIsLaunched) {
  uint8_t* dev = static_cast<uint8_t*>(dev_);
  uint8_t host[2] = {};
  int kernel_runs = 0;
  ASSERT_EQ(cudaStreamBeginCapture(a_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  cudaStreamCaptureStatus status;
  ASSERT_EQ(cudaStreamIsCapturing(a_, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  ASSERT_EQ(cudaMemsetAsync(dev_, 1, 64, a_), cudaSuccess);
  ASSERT_EQ(fake_cuda::Enqueue(a_, [&] { ++kernel_runs, dev[0] = dev[0] + dev[1]; }), cudaSuccess);
  // Synchronising or using events in a capturing stream is illegal.
  const int64_t violations = fake_cuda::GetStats().violations;
  EXPECT_EQ(cudaStreamSynchronize(a_), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(fake_cuda::GetStats().violations, violations + 1);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(a_, &graph), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(a_), cudaSuccess);
  EXPECT_EQ(kernel_runs, 0);  // recorded, not run
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  EXPECT_EQ(fake_cuda::GetStats().live_graphs, 2);
  const int64_t launches = fake_cuda::GetStats().graph_launches;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(cudaMemsetAsync(dev_, 5, 64, b_), cudaSuccess);  // not ordered with a_: stale
    ASSERT_EQ(cudaGraphLaunch(exec, b_), cudaSuccess);         // after b_'s memset
    ASSERT_EQ(cudaMemcpyAsync(host, dev_, 2, cudaMemcpyDeviceToHost, b_), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(b_), cudaSuccess);
    EXPECT_EQ(host[0], 2);  // memset 1, then 1 + 1: the graph's order
    EXPECT_EQ(host[1], 1);
  }
  EXPECT_EQ(kernel_runs, 3);
  EXPECT_EQ(fake_cuda::GetStats().graph_launches, launches + 3);
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(fake_cuda::GetStats().live_graphs, 0);
  EXPECT_NE(cudaGraphDestroy(graph), cudaSuccess);  // already gone: a violation
  EXPECT_NE(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeThreadLocal), cudaSuccess);
}

TEST_F(FakeCudaRuntimeTest, CountsAllocations) {
  const fake_cuda::Stats before = fake_cuda::GetStats();
  void* d = nullptr;
  void* h = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 16), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&h, 16), cudaSuccess);
  const fake_cuda::Stats after = fake_cuda::GetStats();
  EXPECT_EQ(after.device_allocations, before.device_allocations + 1);
  EXPECT_EQ(after.pinned_allocations, before.pinned_allocations + 1);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(h), cudaSuccess);
}

}  // namespace
}  // namespace sluice
