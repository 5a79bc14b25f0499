// The fixture of the GPU calculator tests (on a device, or on the fake CUDA
// runtime): one GpuResources per test and the shared test images.
#ifndef SLUICE_CALCULATORS_GPU_GPU_CALCULATOR_TEST_FIXTURE_H_
#define SLUICE_CALCULATORS_GPU_GPU_CALCULATOR_TEST_FIXTURE_H_

#include <memory>
#include <string>
#include <utility>

#include "calculators/gpu/gpu_golden_test_util.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "gpu/gpu_service.h"
#include "gtest/gtest.h"

namespace sluice {
namespace gpu_testing {

class GpuCalculatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto gpu = GpuResources::Create();
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    gpu_ = *gpu;
  }
  // ../shared/testdata/<rel> decoded as `format`; a 4x4 frame (and a test
  // failure) when it cannot be read.
  static ImageFrame ReadTestImage(const std::string& rel, ImageFormat::Format format) {
    auto f = ReadImageFile(SharedTestdata(rel), format);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *std::move(f) : *ImageFrame::Create(format, 4, 4);
  }
  std::shared_ptr<GpuResources> gpu_;
};

}  // namespace gpu_testing
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_GPU_GPU_CALCULATOR_TEST_FIXTURE_H_
