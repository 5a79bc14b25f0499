// Every shipped MediaPipe model on the cuda backend vs the reference backend,
// on a real image (sergey.png resized into the input, the range MediaPipe's
// graphs feed). Ops the cuda kernels do not take run as host islands; the
// placement is printed. Tolerance on every output element:
// |cuda - reference| <= 1e-4 * max|reference| of that output + 1e-4 * |reference|,
// i.e. fp32 relative error 1e-4 measured against the output's scale (deep
// models reorder float sums; a per-element relative bound would be
// meaningless at values near zero). Max errors are printed.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "gtest/gtest.h"
#include "inference/cuda/cuda_backend.h"
#include "inference/model.h"
#include "inference/reference/reference_kernels.h"
#include "inference/testing/shipped_models.h"
#include "inference/testing/test_inputs.h"

#if SLUICE_FAKE_CUDA
#include "gpu/testing/fake_cuda_runtime.h"
#endif

namespace sluice::inference::cuda {
namespace {

using testing::FillImageInput;
using testing::LoadPng;
using testing::SharedDir;

// The shipped models and their input ranges (testing/shipped_models.h).
using ModelCase = testing::ShippedModel;
const auto& kModels = testing::kShippedModels;

constexpr float kRel = 1e-4f;

// Kernels (CUDA-graph nodes) one Invoke may launch with elementwise ops and
// PADs fused into convs: research/MODELS_INVENTORY.md's "kernels if
// elementwise+PAD fused" where we reach it; else our count, and why:
//   +2 / +4: each CONCATENATION launches one gather per input (the inventory
//            counts one kernel per op);
//   face_landmark_with_attention: 6 MULs by constants whose producer is a
//            RESHAPE view or a custom op, no conv epilogue to join;
//   selfie_segmentation*: 15 ADD/MULs whose input has several consumers
//            (squeeze-excitation x * sigmoid(.) next to the residual ADD of
//            the same x), and LOGISTIC after Convolution2DTransposeBias
//            (that kernel has no epilogue).
// iris_landmark and hand_recrop are not in the inventory: our count.
int KernelBound(const std::string& file) {
  static const std::map<std::string, int> kBound = {
      {"palm_detection_lite.tflite", 61 + 2},
      {"palm_detection_full.tflite", 71 + 2},
      {"hand_landmark_lite.tflite", 53},
      {"hand_landmark_full.tflite", 52},
      {"pose_detection.tflite", 80 + 4},
      {"pose_landmark_lite.tflite", 95},
      {"pose_landmark_full.tflite", 103},
      {"pose_landmark_heavy.tflite", 208},
      {"face_detection_short_range.tflite", 42 + 2},
      {"face_detection_full_range.tflite", 96},
      {"face_detection_full_range_sparse.tflite", 96},
      {"face_landmark.tflite", 51},
      {"face_landmark_with_attention.tflite", 179},  // inventory 174
      {"selfie_segmentation.tflite", 84},            // inventory 68
      {"selfie_segmentation_landscape.tflite", 84},  // inventory 68
      {"iris_landmark.tflite", 87},
      {"hand_recrop.tflite", 47},
  };
  auto it = kBound.find(file);
  return it == kBound.end() ? 0 : it->second;
}

class CudaModelTest : public ::testing::TestWithParam<ModelCase> {};

TEST_P(CudaModelTest, MatchesReferenceOnARealImage) {
  const ModelCase& mc = GetParam();
  auto model = Model::Load(SharedDir() + "/models/" + mc.file);
  ASSERT_TRUE(model.ok()) << model.status();
  auto image = LoadPng(SharedDir() + "/testdata/images/sergey.png");
  ASSERT_TRUE(image.ok()) << image.status();
  const std::unique_ptr<Backend> cuda = CreateCudaBackend();
  const std::unique_ptr<Backend> ref = reference::CreateReferenceBackend();
  auto got = cuda->Compile(model->graph(), {});
  ASSERT_TRUE(got.ok()) << got.status();
  auto want = ref->Compile(model->graph(), {});
  ASSERT_TRUE(want.ok()) << want.status();
  for (size_t i = 0; i < (*got)->Inputs().size(); ++i) {
    ASSERT_TRUE(FillImageInput(*image, (*got)->Inputs()[i], mc.lo, mc.hi).ok());
    ASSERT_TRUE(FillImageInput(*image, (*want)->Inputs()[i], mc.lo, mc.hi).ok());
  }
#if SLUICE_FAKE_CUDA
  const int64_t nodes_before = fake_cuda::GetStats().graph_nodes_launched;
#endif
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE((*got)->Invoke().ok());
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE((*want)->Invoke().ok());

#if SLUICE_FAKE_CUDA
  const int64_t nodes = fake_cuda::GetStats().graph_nodes_launched - nodes_before;
#else
  const int64_t nodes = -1;  // counted on the fake runtime only
#endif
  std::map<std::string, int> where;
  int fused = 0;
  for (const std::string& p : (*got)->OpPlacement()) {
    if (p.rfind("cuda (fused into op ", 0) == 0) ++fused;
    ++where[p];
  }
  // Each fused op was one kernel before (a unary/binary op, PRELU, PAD).
  std::printf("%s: %lld kernels per Invoke (%lld without fusion), %d ops fused\n", mc.file,
              static_cast<long long>(nodes), static_cast<long long>(nodes + fused), fused);
#if SLUICE_FAKE_CUDA
  EXPECT_LE(nodes, KernelBound(mc.file)) << mc.file;
#endif
  auto* cm = dynamic_cast<CudaCompiledModel*>(got->get());
  ASSERT_NE(cm, nullptr);
  std::printf("%s: %zu ops: %d cuda, %d view, %d host island(s)%s; %.1f ms\n", mc.file,
              (*got)->OpPlacement().size(), where["cuda"], where["view"], where["reference"],
              cm->UsesCudaGraph() ? ", one CUDA graph" : "", ms);
  EXPECT_EQ(cm->UsesCudaGraph(), where["reference"] == 0);

  ASSERT_EQ((*got)->Outputs().size(), (*want)->Outputs().size());
  for (size_t o = 0; o < (*want)->Outputs().size(); ++o) {
    const IoTensor &w = (*want)->Outputs()[o], &c = (*got)->Outputs()[o];
    ASSERT_EQ(w.shape, c.shape);
    float scale = 0;
    for (int64_t i = 0; i < w.num_elements(); ++i) scale = std::max(scale, std::fabs(w.f32()[i]));
    double max_err = 0;
    int64_t bad = 0, first_bad = -1;
    for (int64_t i = 0; i < w.num_elements(); ++i) {
      const float a = w.f32()[i], b = c.f32()[i];
      const double err = std::fabs(static_cast<double>(a) - b);
      if (!(err <= max_err)) max_err = err;
      if (!(err <= kRel * scale + kRel * std::fabs(a))) {
        if (first_bad < 0) first_bad = i;
        ++bad;
      }
    }
    std::printf("  output %zu '%s': max |err| %.3g (scale %.3g)\n", o, w.name.c_str(), max_err,
                scale);
    EXPECT_EQ(bad, 0) << mc.file << " output " << w.name << ": " << bad
                      << " elements off, first " << first_bad << " got " << c.f32()[first_bad]
                      << " want " << w.f32()[first_bad];
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, CudaModelTest, ::testing::ValuesIn(kModels),
                         [](const auto& info) {
                           return testing::ShippedModelTestName(info.param.file);
                         });

}  // namespace
}  // namespace sluice::inference::cuda
