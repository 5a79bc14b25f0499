// The static-link trap: every calculator of sluice_gpu_calculators is
// registered when the library is linked whole, with or without CUDA.
#include "framework/calculator_registry.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(GpuCalculatorsRegistrationTest, EveryCalculatorIsRegistered) {
  for (const char* name : {"LuminanceCalculator", "SobelEdgesCalculator",
                           "ImageFrameToGpuBufferCalculator", "GpuBufferToImageFrameCalculator"}) {
    EXPECT_TRUE(CalculatorRegistry::Get().IsRegistered(name)) << name;
  }
  EXPECT_TRUE(CalculatorRegistry::Get().DuplicateNames().empty());
}

}  // namespace
}  // namespace sluice
