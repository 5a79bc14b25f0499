// Independent branches of a model's tail, side by side on the thread pool.
//
// face_landmark_with_attention ends in three heads (lips, left eye, right
// eye; the eyes fork again into eye and iris): ~90 steps of 1-6 us on
// 16x16 .. 1x1 maps that gain nothing from splitting one step across two
// threads (bench/models/RESULTS.md, 2026-11-24 03:55-04:40). Here such a
// tail runs as one parallel call: every step on one thread (its kernels
// built without the pool); a thread first takes a step that the step it
// just ran made ready (its input is in this core's cache), else the ready
// step with the most work after it (so the eye heads, which fork again,
// start before the lips). A step waits for the earlier steps that write
// bytes it reads or writes, or read bytes it writes, so the results are
// those of the serial order, bit for bit. Off with SLUICE_XNNPACK_BRANCHES=0
// (and without a pool, or with --per-op profiling).
#ifndef SLUICE_INFERENCE_XNNPACK_BRANCH_SCHEDULE_H_
#define SLUICE_INFERENCE_XNNPACK_BRANCH_SCHEDULE_H_

#include <pthreadpool.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "inference/ir.h"

namespace sluice::inference::xnn {

// Where a suffix of the graph falls apart into independent branches.
struct BranchSplit {
  int first_op = -1;           // -1: no such suffix
  std::vector<int> component;  // per op from first_op on: its branch (-1 before)
};

// The longest suffix of `graph`'s ops whose ops (those `runs` says run;
// edges through the tensors `is_constant` rejects) form branches none of
// which holds more than 60 % of the suffix's work (MACs + output elements +
// a per-op overhead), and whose ops each write at most 16 Ki elements
// (bigger steps do split well across threads).
BranchSplit FindBranchSuffix(const ir::Graph& graph, const std::function<bool(int op)>& runs,
                             const std::function<bool(int tensor)>& is_constant);

// The bytes one step reads and writes, as [begin, end) ranges, and an
// estimate of its work (multiply-adds + output elements + an overhead).
struct StepAccess {
  std::vector<std::pair<uintptr_t, uintptr_t>> reads, writes;
  int64_t work = 1;
  bool barrier = false;  // unknown accesses: after every earlier step, before every later one
};

// Work units a step costs besides its multiply-adds and outputs (~1 us).
inline constexpr int64_t kBranchStepOverhead = 4096;

// For each step, the earlier steps it must wait for (see the file comment).
std::vector<std::vector<int>> StepDependencies(const std::vector<StepAccess>& steps);

class BranchSchedule {
 public:
  // `deps[j]`: steps (< j) that step j waits for; `work[j]`: its estimated
  // work (see StepAccess). With `fall_back`, a parallel run that took more
  // than twice the best one (+ 50 us: a thread lost its core to another
  // process while the others waited for its step) makes the next 16 runs
  // serial, on the caller.
  BranchSchedule(const std::vector<std::vector<int>>& deps, const std::vector<int64_t>& work,
                 bool fall_back = true);
  size_t size() const { return preds_.size(); }
  // Runs every step once, `run(context, step)` (false: failed; the other
  // steps still run), on the pool's threads; false if any step failed.
  bool Run(pthreadpool_t pool, bool (*run)(void* context, size_t step), void* context);

 private:
  static void Worker(void* self, size_t item);
  int Claim();  // a ready unclaimed step, or -1

  std::vector<int> preds_;                 // dependency counts
  std::vector<int64_t> priority_;          // work of the step and all after it
  std::vector<std::vector<int>> succ_;     // steps waiting for each
  std::unique_ptr<std::atomic<int>[]> remaining_;
  std::unique_ptr<std::atomic<uint8_t>[]> claimed_;
  std::atomic<size_t> done_{0};
  std::atomic<size_t> first_unclaimed_{0};
  std::atomic<bool> failed_{false};
  static constexpr int kSerialRunsAfterStall = 16;
  double best_us_ = std::numeric_limits<double>::infinity();
  int serial_runs_left_ = 0;
  bool fall_back_ = true;
  bool (*run_)(void*, size_t) = nullptr;
  void* context_ = nullptr;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_BRANCH_SCHEDULE_H_
