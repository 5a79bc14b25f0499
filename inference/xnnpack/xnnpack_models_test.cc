// Every shipped MediaPipe model on the xnnpack backend against the reference
// backend, on a real photo. Tolerance: per output, max|xnn - ref| <= tol *
// max(1e-6, max|ref|), tol = 1e-4 unless the case says otherwise (both compute
// in fp32; XNNPACK sums in another order and with FMA).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "inference/model.h"
#include "inference/reference/reference_kernels.h"
#include "inference/testing/shipped_models.h"
#include "inference/testing/test_inputs.h"
#include "inference/xnnpack/xnnpack_backend.h"

namespace sluice::inference::xnn {
namespace {

using ModelCase = testing::ShippedModel;
const auto& kModels = testing::kShippedModels;

class XnnpackModelTest : public ::testing::TestWithParam<ModelCase> {};

double Millis(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

TEST_P(XnnpackModelTest, MatchesReferenceOnARealImage) {
  const ModelCase& mc = GetParam();
  auto model = Model::Load(testing::SharedDir() + "/models/" + mc.file);
  if (!model.ok() && model.status().code() == absl::StatusCode::kNotFound) {
    GTEST_SKIP() << model.status();
  }
  ASSERT_TRUE(model.ok()) << model.status();
  auto image = testing::LoadPng(testing::SharedDir() + "/testdata/images/sergey.png");
  ASSERT_TRUE(image.ok()) << image.status();

  auto ref = reference::CreateReferenceBackend()->Compile(model->graph(), BackendOptions{1});
  ASSERT_TRUE(ref.ok()) << ref.status();
  auto xnn = CreateXnnpackBackend()->Compile(model->graph(), BackendOptions{2});
  ASSERT_TRUE(xnn.ok()) << xnn.status();
  for (CompiledModel* m : {ref->get(), xnn->get()}) {
    for (const IoTensor& in : m->Inputs()) {
      ASSERT_TRUE(testing::FillImageInput(*image, in, mc.lo, mc.hi).ok());
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE((*ref)->Invoke().ok());
  const double ref_ms = Millis(t0);
  ASSERT_TRUE((*xnn)->Invoke().ok());  // first run warms caches
  t0 = std::chrono::steady_clock::now();
  const absl::Status s = (*xnn)->Invoke();
  ASSERT_TRUE(s.ok()) << s;
  const double xnn_ms = Millis(t0);

  std::map<std::string, int> placed;
  for (const std::string& p : (*xnn)->OpPlacement()) ++placed[p];
  std::printf(
      "%s: reference %.1f ms, xnnpack (2 threads) %.2f ms; ops on xnnpack %d, on "
      "reference islands %d\n",
      mc.file, ref_ms, xnn_ms, placed["xnnpack"], placed["reference"]);
  // Islands are the exception: XNNPACK must take the bulk of every model.
  EXPECT_GT(placed["xnnpack"], 4 * placed["reference"]);

  const auto& want = (*ref)->Outputs();
  const auto& got = (*xnn)->Outputs();
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].shape, want[o].shape);
    double max_ref = 0, max_diff = 0;
    for (int64_t i = 0; i < want[o].num_elements(); ++i) {
      const double w = want[o].f32()[i], g = got[o].f32()[i];
      ASSERT_TRUE(std::isfinite(g)) << want[o].name << "[" << i << "]";
      max_ref = std::max(max_ref, std::fabs(w));
      max_diff = std::max(max_diff, std::fabs(g - w));
    }
    const double rel = max_diff / std::max(1e-6, max_ref);
    std::printf("  output %zu %s: max|ref| %.3g, relative error %.2e\n", o, want[o].name.c_str(),
                max_ref, rel);
    EXPECT_LE(rel, mc.xnnpack_tolerance) << mc.file << " output " << want[o].name;
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, XnnpackModelTest, ::testing::ValuesIn(kModels),
                         [](const ::testing::TestParamInfo<ModelCase>& info) {
                           return testing::ShippedModelTestName(info.param.file);
                         });

}  // namespace
}  // namespace sluice::inference::xnn
