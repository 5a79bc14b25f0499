#include "inference/planner.h"

#include <algorithm>
#include <limits>

namespace sluice::inference {
namespace {

size_t AlignUp(size_t n) { return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

struct Placed {
  int t;
  size_t offset, bytes;
};

// The lowest offset for `bytes` where every placed tensor it overlaps is dead
// while it lives (`live(p)` false) and has exactly this slot (offset and
// size): candidates are 0, the ends of placed tensors and same-sized slots.
template <typename Live>
size_t ExactSlot(const std::vector<Placed>& placed, size_t bytes, const Live& live) {
  std::vector<size_t> candidates{0};
  for (const Placed& p : placed) {
    candidates.push_back(p.offset + p.bytes);
    if (p.bytes == bytes) candidates.push_back(p.offset);
  }
  std::sort(candidates.begin(), candidates.end());
  for (size_t o : candidates) {
    bool fits = true;
    for (const Placed& p : placed) {
      if (o >= p.offset + p.bytes || p.offset >= o + bytes) continue;
      if (live(p) || p.offset != o || p.bytes != bytes) {
        fits = false;
        break;
      }
    }
    if (fits) return o;
  }
  return candidates.back();  // (not reached: past every tensor always fits)
}

}  // namespace

bool IsViewOp(const ir::Op& op) { return op.type == ir::OpType::kReshape; }

MemoryPlan PlanMemory(const ir::Graph& g, bool exact_reuse) {
  const int n = static_cast<int>(g.tensors.size());
  const int num_ops = static_cast<int>(g.ops.size());
  constexpr int kForever = std::numeric_limits<int>::max();
  MemoryPlan plan;
  plan.offsets.assign(n, -1);
  plan.op_is_alias.assign(num_ops, false);

  // Storage root of each tensor: views share their input's root.
  std::vector<int> root(n);
  for (int t = 0; t < n; ++t) root[t] = t;
  for (int i = 0; i < num_ops; ++i) {
    const ir::Op& op = g.ops[i];
    if (!IsViewOp(op) || op.inputs.empty() || op.inputs[0] < 0) continue;
    const int in = op.inputs[0], out = op.outputs[0];
    if (g.tensors[in].is_constant || g.tensors[in].byte_size() != g.tensors[out].byte_size())
      continue;
    // A graph input must not be written through an alias of itself; a view of
    // it that is a graph output is still fine (nobody writes either).
    root[out] = root[in];
    plan.op_is_alias[i] = true;
  }

  std::vector<int> first(n, kForever), last(n, -1);
  std::vector<size_t> size(n, 0);
  std::vector<bool> used(n, false);
  auto touch = [&](int t, int when) {
    const int r = root[t];
    used[r] = true;
    first[r] = std::min(first[r], when);
    last[r] = std::max(last[r], when);
    size[r] = std::max(size[r], g.tensors[t].byte_size());
  };
  for (int t : g.inputs) touch(t, -1), last[root[t]] = kForever;
  for (int i = 0; i < num_ops; ++i) {
    for (int t : g.ops[i].inputs)
      if (t >= 0 && !g.tensors[t].is_constant) touch(t, i);
    for (int t : g.ops[i].outputs) touch(t, i);
  }
  for (int t : g.outputs) {
    if (g.tensors[t].is_constant) continue;
    touch(t, kForever);
  }

  // Greedy: biggest first, lowest offset that fits among overlapping lifetimes.
  std::vector<int> order;
  for (int t = 0; t < n; ++t)
    if (used[t] && root[t] == t) order.push_back(t);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return size[a] > size[b]; });
  std::vector<Placed> placed;
  for (int t : order) {
    const size_t bytes = AlignUp(std::max<size_t>(size[t], 1));
    std::vector<std::pair<size_t, size_t>> busy;
    for (const Placed& p : placed) {
      if (first[p.t] <= last[t] && first[t] <= last[p.t])
        busy.push_back({p.offset, p.offset + p.bytes});
    }
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    if (exact_reuse) {
      offset = ExactSlot(placed, bytes, [&](const Placed& p) {
        return first[p.t] <= last[t] && first[t] <= last[p.t];
      });
    } else {
      for (const auto& [lo, hi] : busy) {
        if (offset + bytes <= lo) break;
        offset = std::max(offset, hi);
      }
    }
    placed.push_back({t, offset, bytes});
    plan.offsets[t] = static_cast<int64_t>(offset);
    plan.arena_bytes = std::max(plan.arena_bytes, offset + bytes);
  }
  for (int t = 0; t < n; ++t) {
    if (used[root[t]] && !g.tensors[t].is_constant) plan.offsets[t] = plan.offsets[root[t]];
  }
  return plan;
}

}  // namespace sluice::inference
