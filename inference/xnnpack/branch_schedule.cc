#include "inference/xnnpack/branch_schedule.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <thread>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "inference/model_stats.h"

namespace sluice::inference::xnn {
namespace {

constexpr int64_t kMaxStepElements = 16 * 1024;
constexpr int64_t kMinSuffixWork = 1 << 20;
constexpr double kMaxBranchShare = 0.6;

bool Overlap(const std::vector<std::pair<uintptr_t, uintptr_t>>& a,
             const std::vector<std::pair<uintptr_t, uintptr_t>>& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (x.first < y.second && y.first < x.second) return true;
    }
  }
  return false;
}

}  // namespace

BranchSplit FindBranchSuffix(const ir::Graph& g, const std::function<bool(int op)>& runs,
                             const std::function<bool(int tensor)>& is_constant) {
  const int n = static_cast<int>(g.ops.size());
  std::vector<std::vector<int>> consumers(g.tensors.size());
  for (int i = 0; i < n; ++i) {
    for (int t : g.ops[i].inputs) {
      if (t >= 0) consumers[t].push_back(i);
    }
  }
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<int64_t> work(n, 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  // Ops join from the back: components only merge, so the largest one's
  // work is a running maximum.
  int64_t total = 0, largest = 0;
  BranchSplit split;
  for (int lo = n - 1; lo >= 0; --lo) {
    if (!runs(lo)) continue;
    const ir::Op& op = g.ops[lo];
    int64_t elements = 0;
    for (int t : op.outputs) {
      if (t >= 0) elements += g.tensors[t].num_elements();
    }
    if (elements > kMaxStepElements) break;
    work[lo] = OpMacs(g, lo) + elements + kBranchStepOverhead;
    total += work[lo];
    for (int t : op.outputs) {
      if (t < 0 || is_constant(t)) continue;
      for (int c : consumers[t]) {
        if (!runs(c)) continue;
        const int a = find(lo), b = find(c);
        if (a == b) continue;
        parent[b] = a;
        work[a] += work[b];
      }
    }
    largest = std::max(largest, work[find(lo)]);
    if (total >= kMinSuffixWork && largest <= kMaxBranchShare * total) split.first_op = lo;
  }
  if (split.first_op < 0) return split;
  // Components of the chosen suffix alone (the scan went further back).
  std::iota(parent.begin(), parent.end(), 0);
  for (int i = split.first_op; i < n; ++i) {
    if (!runs(i)) continue;
    for (int t : g.ops[i].outputs) {
      if (t < 0 || is_constant(t)) continue;
      for (int c : consumers[t]) {
        if (runs(c)) parent[find(c)] = find(i);
      }
    }
  }
  split.component.assign(n, -1);
  for (int i = split.first_op; i < n; ++i) {
    if (runs(i)) split.component[i] = find(i);
  }
  return split;
}

std::vector<std::vector<int>> StepDependencies(const std::vector<StepAccess>& steps) {
  std::vector<std::vector<int>> deps(steps.size());
  for (size_t j = 0; j < steps.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      const StepAccess& a = steps[i];
      const StepAccess& b = steps[j];
      if (a.barrier || b.barrier || Overlap(a.writes, b.reads) || Overlap(a.writes, b.writes) ||
          Overlap(a.reads, b.writes)) {
        deps[j].push_back(static_cast<int>(i));
      }
    }
  }
  return deps;
}

BranchSchedule::BranchSchedule(const std::vector<std::vector<int>>& deps,
                               const std::vector<int64_t>& work, bool fall_back)
    : preds_(deps.size(), 0),
      succ_(deps.size()),
      remaining_(new std::atomic<int>[deps.size()]),
      claimed_(new std::atomic<uint8_t>[deps.size()]),
      fall_back_(fall_back) {
  for (size_t j = 0; j < deps.size(); ++j) {
    for (int i : deps[j]) {
      ++preds_[j];
      succ_[i].push_back(static_cast<int>(j));
    }
  }
  // Priority: the work of a step and of every step after it (the eye heads,
  // which fork again, before the lips); ties to the lower index.
  const size_t n = deps.size();
  std::vector<std::vector<bool>> after(n, std::vector<bool>(n, false));
  priority_.assign(n, 0);
  for (size_t j = n; j-- > 0;) {
    after[j][j] = true;
    for (int k : succ_[j]) {
      for (size_t q = k; q < n; ++q) {
        if (after[k][q]) after[j][q] = true;
      }
    }
    for (size_t q = j; q < n; ++q) {
      if (after[j][q]) priority_[j] += q < work.size() ? work[q] : 1;
    }
  }
  auto first = [&](int a, int b) {
    return priority_[a] != priority_[b] ? priority_[a] > priority_[b] : a < b;
  };
  for (auto& s : succ_) std::sort(s.begin(), s.end(), first);
}

bool BranchSchedule::Run(pthreadpool_t pool, bool (*run)(void*, size_t), void* context) {
  const size_t n = size();
  for (size_t i = 0; i < n; ++i) {
    remaining_[i].store(preds_[i], std::memory_order_relaxed);
    claimed_[i].store(0, std::memory_order_relaxed);
  }
  done_.store(0, std::memory_order_relaxed);
  first_unclaimed_.store(0, std::memory_order_relaxed);
  failed_.store(false, std::memory_order_relaxed);
  run_ = run;
  context_ = context;
  if (serial_runs_left_ > 0) {
    --serial_runs_left_;
    Worker(this, 0);
    return !failed_.load(std::memory_order_relaxed);
  }
  // One item a thread; an item returns when every step is done, so the
  // caller alone finishes the section if no worker joins.
  const auto start = std::chrono::steady_clock::now();
  pthreadpool_parallelize_1d(pool, &BranchSchedule::Worker, this,
                             std::max<size_t>(1, pthreadpool_get_threads_count(pool)), 0);
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  // A run far slower than the best waited for a thread that lost its core
  // (another process): the next runs stay on the caller alone.
  best_us_ = std::min(best_us_, us);
  if (fall_back_ && us > 2 * best_us_ + 50) serial_runs_left_ = kSerialRunsAfterStall;
  return !failed_.load(std::memory_order_relaxed);
}

int BranchSchedule::Claim() {
  const size_t n = size();
  size_t i = first_unclaimed_.load(std::memory_order_relaxed);
  while (i < n && claimed_[i].load(std::memory_order_relaxed)) ++i;
  // Claims are never undone, so every step below i stays claimed.
  first_unclaimed_.store(i, std::memory_order_relaxed);
  while (true) {
    int best = -1;
    for (size_t j = i; j < n; ++j) {
      if (claimed_[j].load(std::memory_order_relaxed) ||
          remaining_[j].load(std::memory_order_acquire) != 0) {
        continue;
      }
      if (best < 0 || priority_[j] > priority_[best]) best = static_cast<int>(j);
    }
    if (best < 0) return -1;
    uint8_t free = 0;
    if (claimed_[best].compare_exchange_strong(free, 1, std::memory_order_acq_rel)) return best;
  }
}

void BranchSchedule::Worker(void* self, size_t) {
  auto* s = static_cast<BranchSchedule*>(self);
  const size_t n = s->size();
  int next = -1;
  int spins = 0;
  while (true) {
    const int step = next >= 0 ? next : s->Claim();
    next = -1;
    if (step < 0) {
      if (s->done_.load(std::memory_order_acquire) == n) return;
      // The thread running the step we wait for may need this core (as
      // WorkPool's caller does).
#if defined(__x86_64__) || defined(__i386__)
      if (++spins < 4096) {
        _mm_pause();
        continue;
      }
#endif
      std::this_thread::yield();
      continue;
    }
    spins = 0;
    if (!s->run_(s->context_, static_cast<size_t>(step))) {
      s->failed_.store(true, std::memory_order_relaxed);
    }
    // A step this one made ready runs next on this thread: its input is in
    // this core's cache.
    for (int k : s->succ_[step]) {
      if (s->remaining_[k].fetch_sub(1, std::memory_order_acq_rel) != 1 || next >= 0) continue;
      uint8_t free = 0;
      if (s->claimed_[k].compare_exchange_strong(free, 1, std::memory_order_acq_rel)) next = k;
    }
    s->done_.fetch_add(1, std::memory_order_acq_rel);
  }
}

}  // namespace sluice::inference::xnn
