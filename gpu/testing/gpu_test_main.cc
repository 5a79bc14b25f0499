// main() of the `gpu`-labelled tests: without a CUDA device the whole binary
// is skipped (exit 77, which ctest reports as "Skipped"), not failed.
// Linked with the fake runtime (SLUICE_FAKE_CUDA), it also fails the run when
// the fake saw a bad handle or out-of-bounds access, or when anything the GPU
// layer allocated outlives the tests.
#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "gpu/gpu_service.h"
#include "gtest/gtest.h"

#if SLUICE_FAKE_CUDA
#include "gpu/testing/fake_cuda_runtime.h"

namespace {

class FakeCudaChecks : public ::testing::Environment {
 public:
  void TearDown() override {
    const sluice::fake_cuda::Stats s = sluice::fake_cuda::GetStats();
    EXPECT_EQ(s.violations, 0) << "bad CUDA handles or out-of-bounds device accesses";
    EXPECT_EQ(s.live_device_allocations, 0) << "device memory leaked";
    EXPECT_EQ(s.live_pinned_allocations, 0) << "pinned memory leaked";
    EXPECT_EQ(s.live_streams, 0) << "streams leaked";
    EXPECT_EQ(s.live_events, 0) << "events leaked";
    std::printf("fake CUDA runtime: %lld queued ops executed\n",
                static_cast<long long>(s.executed_ops));
  }
};

}  // namespace
#endif

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  absl::StatusOr<int> devices = sluice::CudaDeviceCount();
  if (!devices.ok()) {
    std::printf("SKIPPED (exit 77): %s\n", std::string(devices.status().message()).c_str());
    return 77;
  }
#if SLUICE_FAKE_CUDA
  ::testing::AddGlobalTestEnvironment(new FakeCudaChecks());
#endif
  return RUN_ALL_TESTS();
}
