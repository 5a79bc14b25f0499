#include "inference/planner.h"

#include "gtest/gtest.h"
#include "inference/model.h"
#include "inference/testing/graph_builder.h"
#include "inference/testing/test_inputs.h"

namespace sluice::inference {
namespace {

using ir::OpType;
using testing::GraphBuilder;

// Checks that no two tensors whose lifetimes overlap share bytes; returns the
// sum of all planned tensor sizes (what a plan without reuse would need).
size_t CheckNoLiveOverlap(const ir::Graph& g, const MemoryPlan& plan) {
  const int n = static_cast<int>(g.tensors.size());
  std::vector<int> first(n, 1 << 30), last(n, -1);
  for (int t : g.inputs) first[t] = -1, last[t] = 1 << 30;
  for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
    for (int t : g.ops[i].inputs)
      if (t >= 0) first[t] = std::min(first[t], i), last[t] = std::max(last[t], i);
    for (int t : g.ops[i].outputs) first[t] = std::min(first[t], i), last[t] = std::max(last[t], i);
  }
  for (int t : g.outputs) last[t] = 1 << 30;
  size_t total = 0;
  for (int a = 0; a < n; ++a) {
    if (plan.offsets[a] < 0) continue;
    total += g.tensors[a].byte_size();
    EXPECT_LE(plan.offsets[a] + g.tensors[a].byte_size(), plan.arena_bytes);
    for (int b = a + 1; b < n; ++b) {
      if (plan.offsets[b] < 0 || plan.offsets[a] == plan.offsets[b])
        continue;  // same bytes = alias
      const bool live_together = first[a] <= last[b] && first[b] <= last[a];
      const bool overlap =
          plan.offsets[a] < plan.offsets[b] + static_cast<int64_t>(g.tensors[b].byte_size()) &&
          plan.offsets[b] < plan.offsets[a] + static_cast<int64_t>(g.tensors[a].byte_size());
      EXPECT_FALSE(live_together && overlap) << g.tensors[a].name << " / " << g.tensors[b].name;
    }
  }
  return total;
}

TEST(PlannerTest, ChainReusesMemoryAndReshapeAliases) {
  GraphBuilder b;
  int t = b.Input({1024});
  for (int i = 0; i < 6; ++i) {
    const int next = b.Tensor({1024});
    b.Op(i % 2 ? OpType::kRelu : OpType::kLogistic, {t}, {next});
    t = next;
  }
  const int view = b.Tensor({32, 32});
  b.Op(OpType::kReshape, {t}, {view});
  b.Output(view);
  const ir::Graph g = b.Build();
  const MemoryPlan plan = PlanMemory(g);
  EXPECT_TRUE(plan.op_is_alias[6]);
  EXPECT_EQ(plan.offsets[view], plan.offsets[t]);
  CheckNoLiveOverlap(g, plan);
  // input (pinned) + output + one ping-pong buffer.
  EXPECT_EQ(plan.arena_bytes, 3u * 4096);
}

TEST(PlannerTest, RealModelsPlanWithoutOverlapAndReuseMemory) {
  for (const char* name : {"face_landmark_with_attention.tflite", "pose_detection.tflite",
                           "selfie_segmentation.tflite"}) {
    auto m = Model::Load(testing::SharedDir() + "/models/" + name);
    ASSERT_TRUE(m.ok()) << m.status();
    const MemoryPlan plan = PlanMemory(m->graph());
    const size_t total = CheckNoLiveOverlap(m->graph(), plan);
    EXPECT_LT(plan.arena_bytes * 4, total)
        << name << ": arena " << plan.arena_bytes << " of " << total;
  }
}

// Exact-slot reuse: a tensor takes a dead tensor's bytes only as a whole slot
// of the same size at the same offset, never part of a differently sized one,
// never bytes of a tensor alive with it.
TEST(PlannerTest, ExactReuseTakesOnlyWholeSlotsOfTheSameSize) {
  GraphBuilder b;
  // x (4 KiB) -> big (16 KiB) -> s1 -> s2 -> s3 (4 KiB each): the tightest
  // plan puts s2 into the first bytes of big (dead by then); exact reuse may
  // not, but s3 takes s1's whole slot.
  const int x = b.Input({1024});
  const int big = b.Tensor({4096}), s1 = b.Tensor({1024}), s2 = b.Tensor({1024}),
            s3 = b.Tensor({1024});
  b.Op(OpType::kConcatenation, {x, x, x, x}, {big}, ir::ConcatenationOptions{});
  b.Op(OpType::kStridedSlice,
       {big, b.ConstInt({1}, {0}), b.ConstInt({1}, {1024}), b.ConstInt({1}, {1})}, {s1},
       ir::StridedSliceOptions{});
  b.Op(OpType::kRelu, {s1}, {s2});
  b.Op(OpType::kRelu, {s2}, {s3});
  b.Output(s3);
  const ir::Graph g = b.Build();
  const MemoryPlan tight = PlanMemory(g);
  const MemoryPlan exact = PlanMemory(g, /*exact_reuse=*/true);
  CheckNoLiveOverlap(g, tight);
  CheckNoLiveOverlap(g, exact);
  EXPECT_EQ(tight.offsets[s2], tight.offsets[big]);  // (what exact reuse avoids)
  EXPECT_GE(exact.arena_bytes, tight.arena_bytes);
  EXPECT_EQ(exact.offsets[s3], exact.offsets[s1]);
  const std::vector<int> planned = {x, big, s1, s2, s3};
  for (int u : planned) {
    for (int v : planned) {
      if (u == v || g.tensors[u].byte_size() == g.tensors[v].byte_size()) continue;
      const int64_t us = static_cast<int64_t>(g.tensors[u].byte_size());
      const int64_t vs = static_cast<int64_t>(g.tensors[v].byte_size());
      const bool overlap = exact.offsets[u] < exact.offsets[v] + vs &&
                           exact.offsets[v] < exact.offsets[u] + us;
      EXPECT_FALSE(overlap) << "sizes differ, bytes shared: " << u << " / " << v;
    }
  }
  // The real models: no live overlap either, within 4x the tightest plan.
  for (const char* name : {"pose_detection.tflite", "selfie_segmentation.tflite"}) {
    auto m = Model::Load(testing::SharedDir() + "/models/" + name);
    ASSERT_TRUE(m.ok()) << m.status();
    const MemoryPlan p = PlanMemory(m->graph(), true);
    CheckNoLiveOverlap(m->graph(), p);
    EXPECT_LE(p.arena_bytes, 4 * PlanMemory(m->graph()).arena_bytes) << name;
  }
}

}  // namespace
}  // namespace sluice::inference
