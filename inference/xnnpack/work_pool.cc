#include "inference/xnnpack/work_pool.h"

#include <dlfcn.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <xnnpack.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#define SLUICE_EXPORT extern "C" __attribute__((visibility("default")))

namespace sluice::inference::xnn {
namespace {

constexpr uint64_t kMagic = 0x736c7569636550ULL;  // identifies a WorkPool handle

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// PTHREADPOOL_FLAG_DISABLE_DENORMALS: flush denormals to zero while running
// the items (XNNPACK's kernels assume it where it asks for it).
struct DenormalGuard {
  explicit DenormalGuard(uint32_t flags) : on((flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) != 0) {
    if (!on) return;
#if defined(__x86_64__) || defined(__i386__)
    saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040);  // FTZ | DAZ
#elif defined(__aarch64__)
    uint64_t fpcr;
    asm volatile("mrs %0, fpcr" : "=r"(fpcr));
    saved = fpcr;
    asm volatile("msr fpcr, %0" ::"r"(fpcr | (uint64_t{1} << 24)));
#endif
  }
  ~DenormalGuard() {
    if (!on) return;
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(static_cast<unsigned>(saved));
#elif defined(__aarch64__)
    asm volatile("msr fpcr, %0" ::"r"(saved));
#endif
  }
  bool on;
  uint64_t saved = 0;
};

long Futex(std::atomic<uint32_t>* word, int op, uint32_t value) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op | FUTEX_PRIVATE_FLAG, value,
                 nullptr, nullptr, 0);
}

std::chrono::microseconds SpinBudget() {
  static const long us = [] {
    const char* e = std::getenv("SLUICE_POOL_SPIN_US");
    return e && *e ? std::strtol(e, nullptr, 10) : 50L;
  }();
  return std::chrono::microseconds(us);
}

std::atomic<uint64_t> g_calls{0};          // parallel calls run by WorkPools
std::atomic<uint64_t> g_foreign_calls{0};  // calls with a libpthreadpool handle

}  // namespace

// One parallel call at a time ("generation"): the caller publishes fn/context/
// items, then `state` = generation << 32 | next unclaimed item. Everyone claims
// ranges by CAS on `state` (a stale claimer's CAS fails, since the generation
// or the counter moved on) and adds what it ran to `done`; the caller returns
// when `done` == items. Nobody waits for a thread that claimed nothing.
class WorkPool {
 public:
  const uint64_t magic = kMagic;  // first member: read by IsWorkPool

  explicit WorkPool(size_t threads) : threads_(threads), preclaim_(PreClaimFromEnv()) {
    workers_.reserve(threads - 1);
    for (size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { WorkerMain(); });
  }
  ~WorkPool() {
    stop_.store(true, std::memory_order_seq_cst);
    state_.store(uint64_t{++generation_} << 32, std::memory_order_seq_cst);
    wake_.fetch_add(1, std::memory_order_seq_cst);
    Futex(&wake_, FUTEX_WAKE, INT_MAX);
    for (std::thread& t : workers_) t.join();
  }

  size_t threads() const { return threads_; }

  void Run(RangeFn fn, void* context, size_t items, uint32_t flags) {
    if (items == 0) return;
    std::lock_guard<std::mutex> lock(call_mutex_);
    g_calls.fetch_add(1, std::memory_order_relaxed);
    if (items == 1 || items > 0xffffffffu) {  // nothing to share (or too many to count)
      DenormalGuard guard(flags);
      fn(context, 0, items);
      return;
    }
    const uint32_t generation = ++generation_;
    // The job's slot alternates with the generation: the previous slot may
    // still be read by a claimer holding a stale snapshot of the last (fully
    // claimed) state, whose CAS must then see a finished job, not this one.
    Job& job = jobs_[generation & 1];
    std::atomic_thread_fence(std::memory_order_release);
    done_.store(0, std::memory_order_relaxed);
    job.fn.store(fn, std::memory_order_relaxed);
    job.context.store(context, std::memory_order_relaxed);
    job.items.store(items, std::memory_order_relaxed);
    job.flags.store(flags, std::memory_order_relaxed);
    // The caller's first claim (the halving rule's: 1/threads of the items)
    // goes out with the job, and only workers count into `done_`: a worker
    // spinning on `state_` holds its line, so every read-modify-write of the
    // caller on it, or on `done_`, would be one more cross-core round trip
    // before the worker can start (SLUICE_POOL_PRECLAIM=0: claim by CAS and
    // count into `done_` like a worker, as before; for A/B).
    const size_t first = preclaim_ ? std::max<size_t>(1, items / threads_) : 0;
    state_.store(uint64_t{generation} << 32 | first, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      wake_.fetch_add(1, std::memory_order_seq_cst);
      Futex(&wake_, FUTEX_WAKE, INT_MAX);
    }
    size_t mine = 0;  // items the caller ran and did not count into done_
    if (first > 0) {
      DenormalGuard guard(flags);
      fn(context, 0, first);
      mine = first + WorkOn(generation, /*count=*/false);
    } else {
      WorkOn(generation, /*count=*/true);
    }
    // Only ranges a worker has claimed and not finished are left.
    for (int spins = 0; done_.load(std::memory_order_acquire) != items - mine; ++spins) {
      if (spins < 4096) {
        CpuRelax();
      } else {
        std::this_thread::yield();  // that worker may need this core
      }
    }
  }

 private:
  // Read per pool, so that tests can build pools either way.
  static bool PreClaimFromEnv() {
    const char* e = std::getenv("SLUICE_POOL_PRECLAIM");
    return !(e && std::strcmp(e, "0") == 0);
  }

  // Claims and runs ranges of `generation` until none is left; returns how
  // many items it ran. `count`: add them to done_ (a worker's), else the
  // caller keeps its own count.
  size_t WorkOn(uint32_t generation, bool count) {
    size_t ran = 0;
    uint64_t s = state_.load(std::memory_order_acquire);
    for (;;) {
      if (static_cast<uint32_t>(s >> 32) != generation) return ran;
      const size_t next = static_cast<uint32_t>(s);
      const Job& job = jobs_[generation & 1];
      const size_t items = job.items.load(std::memory_order_relaxed);
      if (next >= items) return ran;
      const RangeFn fn = job.fn.load(std::memory_order_relaxed);
      void* const context = job.context.load(std::memory_order_relaxed);
      const uint32_t flags = job.flags.load(std::memory_order_relaxed);
      // If these were a later job's (the caller moved on), the CAS below
      // must fail: pairs with the caller's release fence before writing.
      std::atomic_thread_fence(std::memory_order_acquire);
      // Halving claims (1/threads of what is left): the caller takes half
      // at once, a worker that joins half of the rest, ... Smaller claims
      // cost more than they balance (measured: a quarter of what is left
      // made hand_landmark_lite 20 % slower on two threads).
      const size_t left = items - next;
      const size_t take = std::max<size_t>(1, left / threads_);
      if (!state_.compare_exchange_weak(s, s + take, std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
        continue;
      }
      {
        DenormalGuard guard(flags);
        fn(context, next, next + take);
      }
      ran += take;
      if (count) done_.fetch_add(take, std::memory_order_release);
      s = state_.load(std::memory_order_acquire);
    }
  }

  void WorkerMain() {
    uint32_t seen = 0;
    for (;;) {
      uint32_t generation = static_cast<uint32_t>(state_.load(std::memory_order_acquire) >> 32);
      if (generation == seen) {
        // Spin a little (calls of one inference come microseconds apart), then sleep.
        const auto until = std::chrono::steady_clock::now() + SpinBudget();
        for (int i = 1;; ++i) {
          CpuRelax();
          generation = static_cast<uint32_t>(state_.load(std::memory_order_acquire) >> 32);
          if (generation != seen) break;
          if ((i & 255) == 0 && std::chrono::steady_clock::now() >= until) break;
        }
        if (generation == seen) {
          const uint32_t word = wake_.load(std::memory_order_seq_cst);
          sleepers_.fetch_add(1, std::memory_order_seq_cst);
          if (static_cast<uint32_t>(state_.load(std::memory_order_seq_cst) >> 32) == seen) {
            Futex(&wake_, FUTEX_WAIT, word);
          }
          sleepers_.fetch_sub(1, std::memory_order_seq_cst);
          continue;
        }
      }
      if (stop_.load(std::memory_order_acquire)) return;
      seen = generation;
      WorkOn(generation, /*count=*/true);
    }
  }

  const size_t threads_;
  const bool preclaim_;
  std::vector<std::thread> workers_;
  std::mutex call_mutex_;
  uint32_t generation_ = 0;  // the caller's side (under call_mutex_)
  alignas(64) std::atomic<uint64_t> state_{0};
  alignas(64) std::atomic<size_t> done_{0};
  struct Job {
    std::atomic<RangeFn> fn{nullptr};
    std::atomic<void*> context{nullptr};
    std::atomic<size_t> items{0};
    std::atomic<uint32_t> flags{0};
  };
  Job jobs_[2];
  alignas(64) std::atomic<uint32_t> wake_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
};

WorkPool* NewWorkPool(size_t threads) { return new WorkPool(std::max<size_t>(threads, 2)); }
void DeleteWorkPool(WorkPool* pool) { delete pool; }
bool IsWorkPool(const void* handle) {
  uint64_t magic;
  std::memcpy(&magic, handle, sizeof(magic));
  return magic == kMagic;
}
size_t WorkPoolThreads(const WorkPool* pool) { return pool->threads(); }
void WorkPoolRun(WorkPool* pool, RangeFn fn, void* context, size_t items, uint32_t flags) {
  pool->Run(fn, context, items, flags);
}
uint64_t WorkPoolCallCount() { return g_calls.load(std::memory_order_relaxed); }

namespace {

// --- libpthreadpool, for handles that are not ours -----------------------------
void* RealSymbol(const char* name) {
  static void* lib = dlopen("libpthreadpool.so.0", RTLD_NOW | RTLD_LOCAL);
  return lib ? dlsym(lib, name) : nullptr;
}
// Calls libpthreadpool's `name` (same signature as the caller's).
template <typename Fn, typename... Args>
void ForwardVoid(const char* name, Args... args) {
  g_foreign_calls.fetch_add(1, std::memory_order_relaxed);
  auto fn = reinterpret_cast<Fn>(RealSymbol(name));
  if (fn == nullptr) {
    std::fprintf(stderr, "sluice: %s not found in libpthreadpool.so.0\n", name);
    std::abort();
  }
  fn(args...);
}

// --- The pthreadpool grid calls as one RangeFn ----------------------------------
// A D-dimensional grid whose last `tiled` dimensions are cut into tiles; item
// = one call of the task with the tile's start (and size, for tiled dims).
struct Grid {
  void* task;
  void* context;
  int dims;
  int tiled;
  bool with_id;
  uint32_t uarch_index;
  size_t range[6];
  size_t tile[6];
  size_t count[6];  // tiles per dimension
};

using S = size_t;
void CallItem(const Grid& g, const S* c, const S* n) {
  void* x = g.context;
  if (g.with_id) {
    const uint32_t u = g.uarch_index;
    switch (g.dims) {
      case 1: return reinterpret_cast<pthreadpool_task_1d_with_id_t>(g.task)(x, u, c[0]);
      case 2:
        return reinterpret_cast<pthreadpool_task_2d_tile_2d_with_id_t>(g.task)(x, u, c[0], c[1],
                                                                              n[0], n[1]);
      case 3:
        return reinterpret_cast<pthreadpool_task_3d_tile_2d_with_id_t>(g.task)(x, u, c[0], c[1],
                                                                              c[2], n[1], n[2]);
      default:
        return reinterpret_cast<pthreadpool_task_4d_tile_2d_with_id_t>(g.task)(
            x, u, c[0], c[1], c[2], c[3], n[2], n[3]);
    }
  }
  switch (g.dims * 3 + g.tiled) {
    case 3: return reinterpret_cast<pthreadpool_task_1d_t>(g.task)(x, c[0]);
    case 4: return reinterpret_cast<pthreadpool_task_1d_tile_1d_t>(g.task)(x, c[0], n[0]);
    case 6: return reinterpret_cast<pthreadpool_task_2d_t>(g.task)(x, c[0], c[1]);
    case 7: return reinterpret_cast<pthreadpool_task_2d_tile_1d_t>(g.task)(x, c[0], c[1], n[1]);
    case 8:
      return reinterpret_cast<pthreadpool_task_2d_tile_2d_t>(g.task)(x, c[0], c[1], n[0], n[1]);
    case 9: return reinterpret_cast<pthreadpool_task_3d_t>(g.task)(x, c[0], c[1], c[2]);
    case 10:
      return reinterpret_cast<pthreadpool_task_3d_tile_1d_t>(g.task)(x, c[0], c[1], c[2], n[2]);
    case 11:
      return reinterpret_cast<pthreadpool_task_3d_tile_2d_t>(g.task)(x, c[0], c[1], c[2], n[1],
                                                                    n[2]);
    case 12: return reinterpret_cast<pthreadpool_task_4d_t>(g.task)(x, c[0], c[1], c[2], c[3]);
    case 13:
      return reinterpret_cast<pthreadpool_task_4d_tile_1d_t>(g.task)(x, c[0], c[1], c[2], c[3],
                                                                    n[3]);
    case 14:
      return reinterpret_cast<pthreadpool_task_4d_tile_2d_t>(g.task)(x, c[0], c[1], c[2], c[3],
                                                                    n[2], n[3]);
    case 15:
      return reinterpret_cast<pthreadpool_task_5d_t>(g.task)(x, c[0], c[1], c[2], c[3], c[4]);
    case 16:
      return reinterpret_cast<pthreadpool_task_5d_tile_1d_t>(g.task)(x, c[0], c[1], c[2], c[3],
                                                                    c[4], n[4]);
    case 17:
      return reinterpret_cast<pthreadpool_task_5d_tile_2d_t>(g.task)(x, c[0], c[1], c[2], c[3],
                                                                    c[4], n[3], n[4]);
    case 18:
      return reinterpret_cast<pthreadpool_task_6d_t>(g.task)(x, c[0], c[1], c[2], c[3], c[4],
                                                            c[5]);
    case 19:
      return reinterpret_cast<pthreadpool_task_6d_tile_1d_t>(g.task)(x, c[0], c[1], c[2], c[3],
                                                                    c[4], c[5], n[5]);
    default:
      return reinterpret_cast<pthreadpool_task_6d_tile_2d_t>(g.task)(x, c[0], c[1], c[2], c[3],
                                                                    c[4], c[5], n[4], n[5]);
  }
}

// Items [begin, end) in row-major order of the tile grid.
void RunGridRange(void* grid, size_t begin, size_t end) {
  const Grid& g = *static_cast<const Grid*>(grid);
  S idx[6];  // tile index per dimension
  S rest = begin;
  for (int d = g.dims - 1; d >= 0; --d) {
    idx[d] = rest % g.count[d];
    rest /= g.count[d];
  }
  S c[6], n[6];
  for (int d = 0; d < g.dims; ++d) {
    c[d] = idx[d] * g.tile[d];
    n[d] = std::min(g.tile[d], g.range[d] - c[d]);
  }
  for (size_t item = begin; item < end; ++item) {
    CallItem(g, c, n);
    for (int d = g.dims - 1; d >= 0; --d) {  // next tile, carrying leftwards
      if (++idx[d] < g.count[d]) {
        c[d] = idx[d] * g.tile[d];
        n[d] = std::min(g.tile[d], g.range[d] - c[d]);
        break;
      }
      idx[d] = 0;
      c[d] = 0;
      n[d] = std::min(g.tile[d], g.range[d]);
    }
  }
}

void RunGrid(pthreadpool_t pool, Grid& g, uint32_t flags) {
  size_t items = 1;
  for (int d = 0; d < g.dims; ++d) {
    if (g.range[d] == 0) return;
    g.count[d] = (g.range[d] + g.tile[d] - 1) / g.tile[d];
    items *= g.count[d];
  }
  if (pool == nullptr) {  // pthreadpool's contract: serial on the caller
    DenormalGuard guard(flags);
    RunGridRange(&g, 0, items);
    return;
  }
  reinterpret_cast<WorkPool*>(pool)->Run(RunGridRange, &g, items, flags);
}

Grid MakeGrid(void* task, void* context, std::initializer_list<size_t> ranges,
              std::initializer_list<size_t> tiles) {
  Grid g{};
  g.task = task;
  g.context = context;
  g.dims = static_cast<int>(ranges.size());
  g.tiled = static_cast<int>(tiles.size());
  int d = 0;
  for (size_t r : ranges) {
    g.range[d] = r;
    g.tile[d] = 1;
    ++d;
  }
  d = g.dims - g.tiled;
  for (size_t t : tiles) g.tile[d++] = std::max<size_t>(t, 1);
  return g;
}

bool Foreign(pthreadpool_t pool) { return pool != nullptr && !IsWorkPool(pool); }

}  // namespace
}  // namespace sluice::inference::xnn

// --- The pthreadpool C API -------------------------------------------------------
using sluice::inference::xnn::Foreign;
using sluice::inference::xnn::ForwardVoid;
using sluice::inference::xnn::Grid;
using sluice::inference::xnn::MakeGrid;
using sluice::inference::xnn::RunGrid;
using sluice::inference::xnn::WorkPool;

SLUICE_EXPORT pthreadpool_t pthreadpool_create(size_t threads_count) {
  if (threads_count == 0) threads_count = std::max(1u, std::thread::hardware_concurrency());
  if (threads_count <= 1) return nullptr;  // serial: every call runs on the caller
  return reinterpret_cast<pthreadpool_t>(sluice::inference::xnn::NewWorkPool(threads_count));
}

SLUICE_EXPORT size_t pthreadpool_get_threads_count(pthreadpool_t pool) {
  if (pool == nullptr) return 1;
  if (Foreign(pool)) {
    sluice::inference::xnn::g_foreign_calls.fetch_add(1, std::memory_order_relaxed);
    auto fn = reinterpret_cast<size_t (*)(pthreadpool_t)>(
        sluice::inference::xnn::RealSymbol("pthreadpool_get_threads_count"));
    return fn ? fn(pool) : 1;
  }
  return reinterpret_cast<WorkPool*>(pool)->threads();
}

SLUICE_EXPORT void pthreadpool_destroy(pthreadpool_t pool) {
  if (pool == nullptr) return;
  if (Foreign(pool)) {
    return ForwardVoid<void (*)(pthreadpool_t)>("pthreadpool_destroy", pool);
  }
  delete reinterpret_cast<WorkPool*>(pool);
}

// Each entry: forward foreign handles, else run the grid on the WorkPool (or
// serially for a null pool).
#define SLUICE_GRID_CALL(name, fn_type, params, args, ranges, tiles)                  \
  SLUICE_EXPORT void name params {                                                     \
    if (Foreign(pool)) {                                                               \
      return ForwardVoid<void(*) params>(#name, pool, function, context, args, flags); \
    }                                                                                  \
    Grid g = MakeGrid(reinterpret_cast<void*>(function), context, ranges, tiles);      \
    RunGrid(pool, g, flags);                                                           \
  }
#define P(...) __VA_ARGS__

SLUICE_GRID_CALL(pthreadpool_parallelize_1d, pthreadpool_task_1d_t,
                 (pthreadpool_t pool, pthreadpool_task_1d_t function, void* context, size_t r0,
                  uint32_t flags),
                 P(r0), P({r0}), P({}))
SLUICE_GRID_CALL(pthreadpool_parallelize_1d_tile_1d, pthreadpool_task_1d_tile_1d_t,
                 (pthreadpool_t pool, pthreadpool_task_1d_tile_1d_t function, void* context,
                  size_t r0, size_t t0, uint32_t flags),
                 P(r0, t0), P({r0}), P({t0}))
SLUICE_GRID_CALL(pthreadpool_parallelize_2d, pthreadpool_task_2d_t,
                 (pthreadpool_t pool, pthreadpool_task_2d_t function, void* context, size_t r0,
                  size_t r1, uint32_t flags),
                 P(r0, r1), P({r0, r1}), P({}))
SLUICE_GRID_CALL(pthreadpool_parallelize_2d_tile_1d, pthreadpool_task_2d_tile_1d_t,
                 (pthreadpool_t pool, pthreadpool_task_2d_tile_1d_t function, void* context,
                  size_t r0, size_t r1, size_t t1, uint32_t flags),
                 P(r0, r1, t1), P({r0, r1}), P({t1}))
SLUICE_GRID_CALL(pthreadpool_parallelize_2d_tile_2d, pthreadpool_task_2d_tile_2d_t,
                 (pthreadpool_t pool, pthreadpool_task_2d_tile_2d_t function, void* context,
                  size_t r0, size_t r1, size_t t0, size_t t1, uint32_t flags),
                 P(r0, r1, t0, t1), P({r0, r1}), P({t0, t1}))
SLUICE_GRID_CALL(pthreadpool_parallelize_3d, pthreadpool_task_3d_t,
                 (pthreadpool_t pool, pthreadpool_task_3d_t function, void* context, size_t r0,
                  size_t r1, size_t r2, uint32_t flags),
                 P(r0, r1, r2), P({r0, r1, r2}), P({}))
SLUICE_GRID_CALL(pthreadpool_parallelize_3d_tile_1d, pthreadpool_task_3d_tile_1d_t,
                 (pthreadpool_t pool, pthreadpool_task_3d_tile_1d_t function, void* context,
                  size_t r0, size_t r1, size_t r2, size_t t2, uint32_t flags),
                 P(r0, r1, r2, t2), P({r0, r1, r2}), P({t2}))
SLUICE_GRID_CALL(pthreadpool_parallelize_3d_tile_2d, pthreadpool_task_3d_tile_2d_t,
                 (pthreadpool_t pool, pthreadpool_task_3d_tile_2d_t function, void* context,
                  size_t r0, size_t r1, size_t r2, size_t t1, size_t t2, uint32_t flags),
                 P(r0, r1, r2, t1, t2), P({r0, r1, r2}), P({t1, t2}))
SLUICE_GRID_CALL(pthreadpool_parallelize_4d, pthreadpool_task_4d_t,
                 (pthreadpool_t pool, pthreadpool_task_4d_t function, void* context, size_t r0,
                  size_t r1, size_t r2, size_t r3, uint32_t flags),
                 P(r0, r1, r2, r3), P({r0, r1, r2, r3}), P({}))
SLUICE_GRID_CALL(pthreadpool_parallelize_4d_tile_1d, pthreadpool_task_4d_tile_1d_t,
                 (pthreadpool_t pool, pthreadpool_task_4d_tile_1d_t function, void* context,
                  size_t r0, size_t r1, size_t r2, size_t r3, size_t t3, uint32_t flags),
                 P(r0, r1, r2, r3, t3), P({r0, r1, r2, r3}), P({t3}))
SLUICE_GRID_CALL(pthreadpool_parallelize_4d_tile_2d, pthreadpool_task_4d_tile_2d_t,
                 (pthreadpool_t pool, pthreadpool_task_4d_tile_2d_t function, void* context,
                  size_t r0, size_t r1, size_t r2, size_t r3, size_t t2, size_t t3,
                  uint32_t flags),
                 P(r0, r1, r2, r3, t2, t3), P({r0, r1, r2, r3}), P({t2, t3}))
SLUICE_GRID_CALL(pthreadpool_parallelize_5d, pthreadpool_task_5d_t,
                 (pthreadpool_t pool, pthreadpool_task_5d_t function, void* context, size_t r0,
                  size_t r1, size_t r2, size_t r3, size_t r4, uint32_t flags),
                 P(r0, r1, r2, r3, r4), P({r0, r1, r2, r3, r4}), P({}))
SLUICE_GRID_CALL(pthreadpool_parallelize_5d_tile_1d, pthreadpool_task_5d_tile_1d_t,
                 (pthreadpool_t pool, pthreadpool_task_5d_tile_1d_t function, void* context,
                  size_t r0, size_t r1, size_t r2, size_t r3, size_t r4, size_t t4,
                  uint32_t flags),
                 P(r0, r1, r2, r3, r4, t4), P({r0, r1, r2, r3, r4}), P({t4}))
SLUICE_GRID_CALL(pthreadpool_parallelize_5d_tile_2d, pthreadpool_task_5d_tile_2d_t,
                 (pthreadpool_t pool, pthreadpool_task_5d_tile_2d_t function, void* context,
                  size_t r0, size_t r1, size_t r2, size_t r3, size_t r4, size_t t3, size_t t4,
                  uint32_t flags),
                 P(r0, r1, r2, r3, r4, t3, t4), P({r0, r1, r2, r3, r4}), P({t3, t4}))
SLUICE_GRID_CALL(pthreadpool_parallelize_6d, pthreadpool_task_6d_t,
                 (pthreadpool_t pool, pthreadpool_task_6d_t function, void* context, size_t r0,
                  size_t r1, size_t r2, size_t r3, size_t r4, size_t r5, uint32_t flags),
                 P(r0, r1, r2, r3, r4, r5), P({r0, r1, r2, r3, r4, r5}), P({}))
SLUICE_GRID_CALL(pthreadpool_parallelize_6d_tile_1d, pthreadpool_task_6d_tile_1d_t,
                 (pthreadpool_t pool, pthreadpool_task_6d_tile_1d_t function, void* context,
                  size_t r0, size_t r1, size_t r2, size_t r3, size_t r4, size_t r5, size_t t5,
                  uint32_t flags),
                 P(r0, r1, r2, r3, r4, r5, t5), P({r0, r1, r2, r3, r4, r5}), P({t5}))
SLUICE_GRID_CALL(pthreadpool_parallelize_6d_tile_2d, pthreadpool_task_6d_tile_2d_t,
                 (pthreadpool_t pool, pthreadpool_task_6d_tile_2d_t function, void* context,
                  size_t r0, size_t r1, size_t r2, size_t r3, size_t r4, size_t r5, size_t t4,
                  size_t t5, uint32_t flags),
                 P(r0, r1, r2, r3, r4, r5, t4, t5), P({r0, r1, r2, r3, r4, r5}), P({t4, t5}))

// The microarchitecture-aware variants: one microarchitecture here, as
// pthreadpool reports when it has no per-core information (default index).
#define SLUICE_GRID_CALL_ID(name, params, args, dims_ranges, tiles)                     \
  SLUICE_EXPORT void name params {                                                     \
    if (Foreign(pool)) {                                                               \
      return ForwardVoid<void(*) params>(#name, pool, function, context, default_uarch, \
                                         max_uarch, args, flags);                      \
    }                                                                                  \
    Grid g = MakeGrid(reinterpret_cast<void*>(function), context, dims_ranges, tiles); \
    g.with_id = true;                                                                  \
    g.uarch_index = default_uarch;                                                     \
    RunGrid(pool, g, flags);                                                           \
  }

SLUICE_GRID_CALL_ID(pthreadpool_parallelize_1d_with_uarch,
                    (pthreadpool_t pool, pthreadpool_task_1d_with_id_t function, void* context,
                     uint32_t default_uarch, uint32_t max_uarch, size_t r0, uint32_t flags),
                    P(r0), P({r0}), P({}))
SLUICE_GRID_CALL_ID(pthreadpool_parallelize_2d_tile_2d_with_uarch,
                    (pthreadpool_t pool, pthreadpool_task_2d_tile_2d_with_id_t function,
                     void* context, uint32_t default_uarch, uint32_t max_uarch, size_t r0,
                     size_t r1, size_t t0, size_t t1, uint32_t flags),
                    P(r0, r1, t0, t1), P({r0, r1}), P({t0, t1}))
SLUICE_GRID_CALL_ID(pthreadpool_parallelize_3d_tile_2d_with_uarch,
                    (pthreadpool_t pool, pthreadpool_task_3d_tile_2d_with_id_t function,
                     void* context, uint32_t default_uarch, uint32_t max_uarch, size_t r0,
                     size_t r1, size_t r2, size_t t1, size_t t2, uint32_t flags),
                    P(r0, r1, r2, t1, t2), P({r0, r1, r2}), P({t1, t2}))
SLUICE_GRID_CALL_ID(pthreadpool_parallelize_4d_tile_2d_with_uarch,
                    (pthreadpool_t pool, pthreadpool_task_4d_tile_2d_with_id_t function,
                     void* context, uint32_t default_uarch, uint32_t max_uarch, size_t r0,
                     size_t r1, size_t r2, size_t r3, size_t t2, size_t t3, uint32_t flags),
                    P(r0, r1, r2, r3, t2, t3), P({r0, r1, r2, r3}), P({t2, t3}))

#undef SLUICE_GRID_CALL
#undef SLUICE_GRID_CALL_ID
#undef P

namespace sluice::inference::xnn {

// Runs one small XNNPACK operator on a libpthreadpool pool: if our
// pthreadpool_* entry points see that foreign handle, XNNPACK's calls reach
// them. (Never hands XNNPACK a WorkPool before knowing that.)
bool XnnpackUsesWorkPool() {
  static const bool ours = [] {
    using CreateFn = pthreadpool_t (*)(size_t);
    auto real_create = reinterpret_cast<CreateFn>(RealSymbol("pthreadpool_create"));
    if (real_create == nullptr || xnn_initialize(nullptr) != xnn_status_success) return false;
    pthreadpool_t probe = real_create(2);
    if (probe == nullptr) return false;
    const uint64_t before = g_foreign_calls.load();
    float in[8] = {0}, out[8];
    xnn_operator_t op = nullptr;
    bool seen = false;
    if (xnn_create_clamp_nc_f32(1, 1, 1, -1.0f, 1.0f, 0, &op) == xnn_status_success) {
      if (xnn_setup_clamp_nc_f32(op, 8, in, out, probe) == xnn_status_success &&
          xnn_run_operator(op, probe) == xnn_status_success) {
        seen = g_foreign_calls.load() > before;
      }
      xnn_delete_operator(op);
    }
    reinterpret_cast<void (*)(pthreadpool_t)>(RealSymbol("pthreadpool_destroy"))(probe);
    return seen;
  }();
  return ours;
}

pthreadpool_t CreateXnnpackThreadPool(size_t threads) {
  const char* choice = std::getenv("SLUICE_POOL");
  const bool want_real = choice != nullptr && std::strcmp(choice, "pthreadpool") == 0;
  if (!want_real && XnnpackUsesWorkPool()) return pthreadpool_create(threads);
  using CreateFn = pthreadpool_t (*)(size_t);
  auto real_create = reinterpret_cast<CreateFn>(RealSymbol("pthreadpool_create"));
  return real_create ? real_create(threads) : nullptr;
}

}  // namespace sluice::inference::xnn
