// The cuda backend's MediaPipe custom ops (cuda_ops_custom.cc +
// kernels/custom*) against the reference kernels: Landmarks2TransformMatrix
// with the inventory's three option sets (face_landmark_with_attention's lips
// and eyes: 80 / 71 / 71 subset indices, 16x16 output, scale 1.5), chained
// into TransformLandmarks and TransformTensorBilinear as in that model, plus
// sampling edges (identity matrix: samples exactly on the last row/column;
// matrices reaching outside the input). fp32 abs/rel 1e-4.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "inference/cuda/cuda_ops.h"
#include "inference/cuda/testing/test_op_context.h"
#include "inference/ir.h"
#include "inference/testing/graph_builder.h"

namespace sluice::inference::cuda {
namespace {

using ir::OpType;
using inference::testing::GraphBuilder;
using testing::CompareFamilyOpsWithReference;
using testing::DiffOptions;

constexpr int kLandmarks = 468;

// Landmarks with x, y in [0, extent) (the feature map's pixels), z in [-10, 10).
std::vector<float> Landmarks(int n, uint32_t seed, float extent) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> xy(0.0f, extent), z(-10.0f, 10.0f);
  std::vector<float> v(n * 3);
  for (int i = 0; i < n; ++i) v[i * 3] = xy(rng), v[i * 3 + 1] = xy(rng), v[i * 3 + 2] = z(rng);
  return v;
}

std::vector<int> Subset(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> idx(0, kLandmarks - 1);
  std::vector<int> v(count);
  for (int& i : v) i = idx(rng);
  return v;
}

ir::LandmarksToTransformMatrixOptions Options(int subset_size, int left, int right,
                                              float target = 0.0f) {
  ir::LandmarksToTransformMatrixOptions o;
  o.subset_idxs = Subset(subset_size, static_cast<uint32_t>(left));
  o.left_rotation_idx = left;
  o.right_rotation_idx = right;
  o.target_rotation_radians = target;
  o.output_height = o.output_width = 16;
  o.scale_x = o.scale_y = 1.5f;
  return o;
}

// landmarks [1,468,3] -> Landmarks2TransformMatrix -> matrix [1,4,4];
// TransformLandmarks(refined [1,80,dims], matrix); TransformTensorBilinear(
// features [1,ih,iw,c], matrix) -> [1,16,16,c]. All three are outputs.
ir::Graph AttentionBlock(const ir::LandmarksToTransformMatrixOptions& o, int dims, int ih, int iw,
                         int c) {
  GraphBuilder b("attention");
  const int lm = b.Input({1, kLandmarks, 3});
  const int refined = b.Input({1, 80, dims});
  const int features = b.Input({1, ih, iw, c});
  const int mat = b.Tensor({1, 4, 4});
  const int moved = b.Tensor({1, 80, dims});
  const int crop = b.Tensor({1, o.output_height, o.output_width, c});
  b.Op(OpType::kLandmarksToTransformMatrix, {lm}, {mat}, o);
  b.Op(OpType::kTransformLandmarks, {refined, mat}, {moved});
  b.Op(OpType::kTransformTensorBilinear, {features, mat}, {crop},
       ir::TransformTensorBilinearOptions{o.output_height, o.output_width});
  b.Output(mat);
  b.Output(moved);
  b.Output(crop);
  return b.Build();
}

void ExpectMatches(const ir::Graph& g, const std::string& name, const DiffOptions& o) {
  auto r = CompareFamilyOpsWithReference(g, o);
  ASSERT_TRUE(r.ok()) << name << ": " << r.status();
  EXPECT_TRUE(r->passed) << name << ": " << r->detail;
}

TEST(CudaCustomOpsTest, AttentionBlockMatchesReference) {
  struct Set {
    int subset, left, right;
  };
  // The inventory's three Landmarks2TransformMatrix option sets.
  for (const Set& s : {Set{80, 61, 291}, Set{71, 33, 133}, Set{71, 362, 263}}) {
    for (int dims : {3, 2}) {
      const ir::Graph g = AttentionBlock(Options(s.subset, s.left, s.right), dims, 48, 40, 8);
      for (uint32_t seed : {1u, 2u, 3u}) {
        DiffOptions o;
        o.seed = seed;
        o.rounds = 1;
        // Landmarks in feature-map pixels (so the crop overlaps the map and
        // reaches past it); refined landmarks in the 16x16 crop frame.
        o.feeds = {Landmarks(kLandmarks, seed, 40.0f), {}, {}};
        o.lo = -1.0f, o.hi = 17.0f;
        ExpectMatches(g, absl::StrCat("subset ", s.subset, " left ", s.left, " dims ", dims,
                                      " seed ", seed),
                      o);
      }
    }
  }
}

TEST(CudaCustomOpsTest, TargetRotationAndOddOutputSizeMatchReference) {
  ir::LandmarksToTransformMatrixOptions o = Options(20, 5, 9, 0.7f);
  o.output_height = 13, o.output_width = 11;
  o.scale_x = 1.2f, o.scale_y = 2.0f;
  const ir::Graph g = AttentionBlock(o, 3, 30, 33, 5);
  DiffOptions d;
  d.rounds = 1;
  d.feeds = {Landmarks(kLandmarks, 11, 30.0f), {}, {}};
  ExpectMatches(g, "target 0.7 rad, 13x11", d);
}

ir::Graph Bilinear(int ih, int iw, int c, int oh, int ow) {
  GraphBuilder b("bilinear");
  const int x = b.Input({1, ih, iw, c});
  const int m = b.Input({1, 4, 4});
  const int y = b.Tensor({1, oh, ow, c});
  b.Op(OpType::kTransformTensorBilinear, {x, m}, {y},
       ir::TransformTensorBilinearOptions{oh, ow});
  b.Output(y);
  return b.Build();
}

std::vector<float> Affine(float a, float b, float tx, float c, float d, float ty) {
  return {a, b, 0, tx, c, d, 0, ty, 0, 0, 1, 0, 0, 0, 0, 1};
}

// Identity: every sample lands on a pixel centre, the last row and column
// exactly at the edge (x0 + 1 outside the input, weight 0). Scaled up and
// shifted: part of the output outside the input (zeros). Rotated.
TEST(CudaCustomOpsTest, BilinearSamplingEdgesMatchReference) {
  DiffOptions o;
  o.rounds = 1;
  o.feeds = {{}, Affine(1, 0, 0, 0, 1, 0)};
  ExpectMatches(Bilinear(16, 16, 7, 16, 16), "identity", o);
  o.feeds = {{}, Affine(1.7f, 0, -3.2f, 0, 1.3f, 4.1f)};
  ExpectMatches(Bilinear(12, 14, 3, 16, 16), "scaled and shifted", o);
  o.feeds = {{}, Affine(0.8f, -0.6f, 9.0f, 0.6f, 0.8f, -2.0f)};
  ExpectMatches(Bilinear(20, 18, 4, 16, 16), "rotated", o);
}

TEST(CudaCustomOpsTest, FamilyMembership) {
  EXPECT_TRUE(IsCustomFamilyOp(OpType::kLandmarksToTransformMatrix));
  EXPECT_TRUE(IsCustomFamilyOp(OpType::kTransformLandmarks));
  EXPECT_TRUE(IsCustomFamilyOp(OpType::kTransformTensorBilinear));
  EXPECT_FALSE(IsCustomFamilyOp(OpType::kTransposeConvBias));
  EXPECT_FALSE(IsCustomFamilyOp(OpType::kResizeBilinear));
}

TEST(CudaCustomOpsTest, RejectsBadOpsNamingThem) {
  ir::LandmarksToTransformMatrixOptions o = Options(10, 1, 2);
  o.subset_idxs.push_back(kLandmarks);  // out of range
  ir::Graph g = AttentionBlock(o, 3, 8, 8, 2);
  absl::Status st = CheckCustomFamilyOp(g, 0);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("Landmarks2TransformMatrix"), std::string::npos) << st;
  EXPECT_NE(st.message().find("out of range"), std::string::npos) << st;

  ir::Graph batch2 = Bilinear(8, 8, 2, 4, 4);
  batch2.tensors[batch2.ops[0].inputs[0]].shape[0] = 2;
  st = CheckCustomFamilyOp(batch2, 0);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("TransformTensorBilinear"), std::string::npos) << st;

  EXPECT_EQ(CheckCustomFamilyOp(Bilinear(8, 8, 2, 4, 4), 3).code(),
            absl::StatusCode::kInvalidArgument);

  auto ctx = testing::TestOpContext::Create(g);
  ASSERT_TRUE(ctx.ok()) << ctx.status();
  EXPECT_FALSE(PrepareCustomFamilyOp(g, 0, **ctx).ok());
  EXPECT_EQ((*ctx)->num_uploaded_constants(), 0);
}

}  // namespace
}  // namespace sluice::inference::cuda
