// Batch > 1 on the cuda backend (issue 7): a model re-batched to 2
// (Model::WithBatch) with two different real images gives, item by item, the
// batch-1 reference outputs, within cuda_models_test's tolerance:
// |cuda - reference| <= 1e-4 * max|reference| + 1e-4 * |reference| per output.
// Every model that re-batches (all but face_landmark_with_attention, see
// inference/batch_test.cc); about 10 s on the fake runtime.
#include <cmath>
#include <cstdio>
#include <map>

#include "gtest/gtest.h"
#include "inference/cuda/cuda_backend.h"
#include "inference/model.h"
#include "inference/reference/reference_kernels.h"
#include "inference/testing/shipped_models.h"
#include "inference/testing/test_inputs.h"

namespace sluice::inference::cuda {
namespace {

using ModelCase = testing::ShippedModel;

constexpr float kRel = 1e-4f;

IoTensor Item(const IoTensor& t, int b, int n) {
  IoTensor v = t;
  v.shape[0] = 1;
  v.bytes = t.bytes / n;
  v.data = static_cast<uint8_t*>(t.data) + v.bytes * b;
  return v;
}

class CudaBatchTest : public ::testing::TestWithParam<ModelCase> {};

TEST_P(CudaBatchTest, Batch2MatchesTwoBatch1ReferenceRuns) {
  const ModelCase& mc = GetParam();
  auto model = Model::Load(testing::SharedDir() + "/models/" + mc.file);
  ASSERT_TRUE(model.ok()) << model.status();
  auto batched = model->WithBatch(2);
  ASSERT_TRUE(batched.ok()) << batched.status();
  testing::RgbImage pics[2];
  const char* names[2] = {"sergey.png", "lenna.png"};
  for (int b = 0; b < 2; ++b) {
    auto img = testing::LoadPng(testing::SharedDir() + "/testdata/images/" + names[b]);
    ASSERT_TRUE(img.ok()) << img.status();
    pics[b] = *std::move(img);
  }
  auto one = reference::CreateReferenceBackend()->Compile(model->graph(), {});
  ASSERT_TRUE(one.ok()) << one.status();
  std::vector<std::vector<std::vector<float>>> want(2);  // [item][output]
  for (int b = 0; b < 2; ++b) {
    for (const IoTensor& in : (*one)->Inputs())
      ASSERT_TRUE(testing::FillImageInput(pics[b], in, mc.lo, mc.hi).ok());
    ASSERT_TRUE((*one)->Invoke().ok());
    for (const IoTensor& o : (*one)->Outputs())
      want[b].emplace_back(o.f32(), o.f32() + o.num_elements());
  }

  auto got = CreateCudaBackend()->Compile(batched->graph(), {});
  ASSERT_TRUE(got.ok()) << got.status();
  for (const IoTensor& in : (*got)->Inputs()) {
    ASSERT_EQ(in.shape[0], 2);
    for (int b = 0; b < 2; ++b)
      ASSERT_TRUE(testing::FillImageInput(pics[b], Item(in, b, 2), mc.lo, mc.hi).ok());
  }
  ASSERT_TRUE((*got)->Invoke().ok());
  std::map<std::string, int> where;
  for (const std::string& p : (*got)->OpPlacement()) ++where[p];
  std::printf("%s batch 2: %d ops on cuda, %d views, %d host islands\n", mc.file, where["cuda"],
              where["view"], where["reference"]);
  EXPECT_EQ(where["reference"], 0);

  ASSERT_EQ((*got)->Outputs().size(), want[0].size());
  for (size_t o = 0; o < want[0].size(); ++o) {
    for (int b = 0; b < 2; ++b) {
      const IoTensor c = Item((*got)->Outputs()[o], b, 2);
      const std::vector<float>& w = want[b][o];
      ASSERT_EQ(c.num_elements(), static_cast<int64_t>(w.size()));
      float scale = 0;
      for (float v : w) scale = std::max(scale, std::fabs(v));
      int64_t bad = 0;
      double max_err = 0;
      for (size_t i = 0; i < w.size(); ++i) {
        const double err = std::fabs(static_cast<double>(c.f32()[i]) - w[i]);
        if (!(err <= max_err)) max_err = err;
        if (!(err <= kRel * scale + kRel * std::fabs(w[i]))) ++bad;
      }
      EXPECT_EQ(bad, 0) << mc.file << " item " << b << " output " << o << ": max |err| " << max_err
                        << " (scale " << scale << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, CudaBatchTest,
                         ::testing::ValuesIn(testing::BatchableShippedModels()),
                         [](const auto& info) {
                           return testing::ShippedModelTestName(info.param.file);
                         });

}  // namespace
}  // namespace sluice::inference::cuda
