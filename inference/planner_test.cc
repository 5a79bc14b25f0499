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

}  // namespace
}  // namespace sluice::inference
