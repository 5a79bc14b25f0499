// Memory planner: every non-constant tensor of a graph gets an offset in one
// arena, reusing memory of tensors whose lifetime ended (greedy, largest first,
// like TFLite's arena planner). Views (RESHAPE ops) share their input's bytes.
// Graph inputs and outputs are never reused, so inputs survive Invoke() and
// outputs are readable afterwards. Nothing is allocated per inference.
#ifndef SLUICE_INFERENCE_PLANNER_H_
#define SLUICE_INFERENCE_PLANNER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "inference/ir.h"

namespace sluice::inference {

inline constexpr size_t kArenaAlignment = 64;

struct MemoryPlan {
  size_t arena_bytes = 0;
  // Byte offset of each tensor in the arena; -1 for constants and tensors no op
  // touches.
  std::vector<int64_t> offsets;
  // For each op: true if it is a view whose output shares its input's bytes.
  std::vector<bool> op_is_alias;
};

// True for ops that only reinterpret their input's bytes (RESHAPE).
bool IsViewOp(const ir::Op& op);

// `exact_reuse`: a tensor reuses only a whole slot of a dead tensor of the
// same (aligned) size, at its offset, else bytes no other tensor uses. For
// the xnnpack backend with threads: each step then writes bytes that the
// same step (so the same thread, for the same part of the tensor) wrote in
// the last inference, or a same-sized tensor's, not a tail of some other
// tensor that the other core wrote last (2-4 % on two threads; the arena
// grows 2-3.6x on the 15 models).
MemoryPlan PlanMemory(const ir::Graph& graph, bool exact_reuse = false);

}  // namespace sluice::inference

#endif  // SLUICE_INFERENCE_PLANNER_H_
