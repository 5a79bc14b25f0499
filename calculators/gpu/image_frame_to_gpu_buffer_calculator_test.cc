// ImageFrameToGpuBufferCalculator without a GPU: the graph must refuse to
// start with a clear reason (no CUDA in the build, or no device). With a
// device this is skipped; gpu_image_calculators_gpu_test covers the upload.
#include <string>

#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#if SLUICE_HAVE_GPU
#include "gpu/gpu_service.h"
#endif

namespace sluice {
namespace {

using ::testing::HasSubstr;

TEST(ImageFrameToGpuBufferCalculatorTest, WithoutAGpuTheGraphFailsToStartWithTheReason) {
#if SLUICE_HAVE_GPU
  if (CudaDeviceCount().ok()) GTEST_SKIP() << "a CUDA device is present";
  const char* kReason = "no CUDA device: ";
#else
  const char* kReason = "this build has no CUDA";
#endif
  CalculatorGraph graph;
  auto c = testing::InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    node { name: "upload" calculator: "ImageFrameToGpuBufferCalculator"
           input_stream: "in" output_stream: "out" }
  )pb", {});
  absl::Status s = c.status();
  if (s.ok()) s = graph.StartRun({});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(kReason));
#if SLUICE_HAVE_GPU
  EXPECT_THAT(s.message(), HasSubstr("\"upload\""));
  EXPECT_THAT(s.message(), HasSubstr("kGpuService"));
#endif
}

TEST(ImageFrameToGpuBufferCalculatorTest, RejectsTaggedPorts) {
  CalculatorGraph graph;
  auto c = testing::InitGraphWithCollectors(&graph, R"pb(
    input_stream: "in"
    node { calculator: "ImageFrameToGpuBufferCalculator"
           input_stream: "IMAGE:in" output_stream: "out" }
  )pb", {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("one untagged input and one untagged output"));
}

}  // namespace
}  // namespace sluice
