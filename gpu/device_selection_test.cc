// Device selection without a GPU: the decision for each request and probe
// answer, and this build's own probe.
#include "gpu/device_selection.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

const absl::StatusOr<int> kNoDevice =
    absl::FailedPreconditionError("no CUDA device: cudaGetDeviceCount: cudaErrorNoDevice");

TEST(DeviceSelectionTest, CpuIsAlwaysTheCpu) {
  auto c = ResolveComputeDevice("cpu", 2);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->device, ComputeDevice::kCpu);
  EXPECT_TRUE(c->notice.empty());
}

TEST(DeviceSelectionTest, CudaAndAutoUseAPresentDevice) {
  for (const char* r : {"cuda", "auto"}) {
    auto c = ResolveComputeDevice(r, 1);
    ASSERT_TRUE(c.ok()) << r;
    EXPECT_EQ(c->device, ComputeDevice::kCuda) << r;
    EXPECT_TRUE(c->notice.empty());
  }
}

TEST(DeviceSelectionTest, CudaWithoutDeviceIsAClearError) {
  auto c = ResolveComputeDevice("cuda", kNoDevice);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(c.status().message(), HasSubstr("device cuda: no CUDA device: "));
  EXPECT_THAT(c.status().message(), HasSubstr("use --device cpu or auto"));
  EXPECT_FALSE(ResolveComputeDevice("cuda", 0).ok());
}

TEST(DeviceSelectionTest, AutoFallsBackToTheCpuWithANotice) {
  auto c = ResolveComputeDevice("auto", kNoDevice);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->device, ComputeDevice::kCpu);
  EXPECT_THAT(c->notice, HasSubstr("no CUDA device"));
  EXPECT_THAT(c->notice, HasSubstr("running on the CPU"));
}

TEST(DeviceSelectionTest, RejectsUnknownDevices) {
  auto c = ResolveComputeDevice("tpu", 1);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(c.status().message(), HasSubstr("\"tpu\""));
}

TEST(DeviceSelectionTest, ThisBuildsProbeAgreesWithSelection) {
  absl::StatusOr<int> probe = ProbeCuda();
  auto c = SelectComputeDevice("cuda");
  EXPECT_EQ(c.ok(), probe.ok());
  if (!probe.ok()) EXPECT_THAT(probe.status().message(), HasSubstr("no CUDA device: "));
#if !SLUICE_HAVE_GPU
  EXPECT_THAT(probe.status().message(), HasSubstr("this build has no CUDA"));
#endif
}

}  // namespace
}  // namespace sluice
