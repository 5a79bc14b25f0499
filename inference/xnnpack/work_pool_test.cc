#include "inference/xnnpack/work_pool.h"

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "gtest/gtest.h"
#include "inference/backend.h"
#include "inference/testing/op_harness.h"
#include "inference/xnnpack/xnnpack_backend.h"
#include "util/scoped_env.h"

namespace sluice::inference::xnn {
namespace {

// Counts calls per grid cell; a cell visited twice or never fails the test.
struct Cells {
  explicit Cells(std::vector<size_t> r) : range(std::move(r)) {
    size_t n = 1;
    for (size_t v : range) n *= v;
    hits = std::vector<std::atomic<int>>(n);
  }
  void Hit(std::initializer_list<size_t> start, std::initializer_list<size_t> size) {
    // Every cell of the tile [start, start + size) (size 1 on untiled dims).
    std::vector<size_t> s(start), n(range.size(), 1);
    const size_t tiled = size.size();
    size_t d = range.size() - tiled;
    for (size_t v : size) n[d++] = v;
    std::vector<size_t> c(range.size(), 0);
    for (;;) {
      size_t idx = 0;
      for (size_t k = 0; k < range.size(); ++k) idx = idx * range[k] + s[k] + c[k];
      hits[idx].fetch_add(1);
      int k = static_cast<int>(range.size()) - 1;
      while (k >= 0 && ++c[k] == n[k]) c[k--] = 0;
      if (k < 0) return;
    }
  }
  bool AllOnce() const {
    for (const auto& h : hits) {
      if (h.load() != 1) return false;
    }
    return true;
  }
  std::vector<size_t> range;
  std::vector<std::atomic<int>> hits;
};

void T1(void* c, size_t i) { static_cast<Cells*>(c)->Hit({i}, {}); }
void T1t(void* c, size_t i, size_t n) { static_cast<Cells*>(c)->Hit({i}, {n}); }
void T2(void* c, size_t i, size_t j) { static_cast<Cells*>(c)->Hit({i, j}, {}); }
void T2t1(void* c, size_t i, size_t j, size_t nj) { static_cast<Cells*>(c)->Hit({i, j}, {nj}); }
void T2t2(void* c, size_t i, size_t j, size_t ni, size_t nj) {
  static_cast<Cells*>(c)->Hit({i, j}, {ni, nj});
}
void T3t2(void* c, size_t i, size_t j, size_t k, size_t nj, size_t nk) {
  static_cast<Cells*>(c)->Hit({i, j, k}, {nj, nk});
}
void T4t2(void* c, size_t i, size_t j, size_t k, size_t l, size_t nk, size_t nl) {
  static_cast<Cells*>(c)->Hit({i, j, k, l}, {nk, nl});
}
void T5t2(void* c, size_t i, size_t j, size_t k, size_t l, size_t m, size_t nl, size_t nm) {
  static_cast<Cells*>(c)->Hit({i, j, k, l, m}, {nl, nm});
}
void T6t2(void* c, size_t i, size_t j, size_t k, size_t l, size_t m, size_t n, size_t nm,
          size_t nn) {
  static_cast<Cells*>(c)->Hit({i, j, k, l, m, n}, {nm, nn});
}

// Every grid shape XNNPACK uses, on a null pool (serial), a WorkPool and a
// libpthreadpool pool (forwarded): each cell exactly once.
TEST(WorkPoolTest, EveryGridCoversEachCellOnce) {
  pthreadpool_t ours = pthreadpool_create(2);
  ASSERT_NE(ours, nullptr);
  ASSERT_TRUE(IsWorkPool(ours));
  EXPECT_EQ(pthreadpool_get_threads_count(ours), 2u);
  auto real_create =
      reinterpret_cast<pthreadpool_t (*)(size_t)>(dlsym(dlopen("libpthreadpool.so.0", RTLD_NOW),
                                                        "pthreadpool_create"));
  ASSERT_NE(real_create, nullptr);
  pthreadpool_t foreign = real_create(2);
  ASSERT_NE(foreign, nullptr);
  EXPECT_FALSE(IsWorkPool(foreign));
  EXPECT_EQ(pthreadpool_get_threads_count(foreign), 2u);

  for (pthreadpool_t pool : {pthreadpool_t{nullptr}, ours, foreign}) {
    SCOPED_TRACE(pool == nullptr ? "null" : pool == ours ? "WorkPool" : "libpthreadpool");
    {
      Cells c({1000});
      pthreadpool_parallelize_1d(pool, T1, &c, 1000, 0);
      EXPECT_TRUE(c.AllOnce());
    }
    {
      Cells c({997});
      pthreadpool_parallelize_1d_tile_1d(pool, T1t, &c, 997, 16, 0);
      EXPECT_TRUE(c.AllOnce());
    }
    {
      Cells c({13, 29});
      pthreadpool_parallelize_2d(pool, T2, &c, 13, 29, 0);
      EXPECT_TRUE(c.AllOnce());
    }
    {
      Cells c({13, 29});
      pthreadpool_parallelize_2d_tile_1d(pool, T2t1, &c, 13, 29, 8, 0);
      EXPECT_TRUE(c.AllOnce());
    }
    {
      Cells c({37, 29});
      pthreadpool_parallelize_2d_tile_2d(pool, T2t2, &c, 37, 29, 7, 16, 0);
      EXPECT_TRUE(c.AllOnce());
    }
    {
      Cells c({3, 17, 40});
      pthreadpool_parallelize_3d_tile_2d(pool, T3t2, &c, 3, 17, 40, 4, 32, 0);
      EXPECT_TRUE(c.AllOnce());
    }
    {
      Cells c({2, 3, 11, 10});
      pthreadpool_parallelize_4d_tile_2d(pool, T4t2, &c, 2, 3, 11, 10, 5, 3, 0);
      EXPECT_TRUE(c.AllOnce());
    }
    {
      Cells c({2, 2, 3, 9, 7});
      pthreadpool_parallelize_5d_tile_2d(pool, T5t2, &c, 2, 2, 3, 9, 7, 2, 4, 0);
      EXPECT_TRUE(c.AllOnce());
    }
    {
      Cells c({2, 1, 2, 3, 9, 7});
      pthreadpool_parallelize_6d_tile_2d(pool, T6t2, &c, 2, 1, 2, 3, 9, 7, 4, 2, 0);
      EXPECT_TRUE(c.AllOnce());
    }
    {
      Cells c({0});
      pthreadpool_parallelize_1d(pool, T1, &c, 0, 0);  // empty: no call
    }
  }
  pthreadpool_destroy(foreign);  // forwarded to libpthreadpool
  pthreadpool_destroy(ours);
  pthreadpool_destroy(nullptr);
  EXPECT_EQ(pthreadpool_create(1), nullptr);  // one thread: serial (null pool)
}

// Many calls of random sizes, with pauses long enough for the workers to fall
// asleep in between (futex wake path), from a pool with 2 and with 4 threads.
TEST(WorkPoolTest, ManyCallsWithSleepsInBetween) {
  for (size_t threads : {2u, 4u}) {
    pthreadpool_t pool = pthreadpool_create(threads);
    std::mt19937 rng(7);
    for (int call = 0; call < 400; ++call) {
      const size_t n = 1 + rng() % 300;
      Cells c({n});
      pthreadpool_parallelize_1d(pool, T1, &c, n, 0);
      ASSERT_TRUE(c.AllOnce()) << "call " << call << " n " << n;
      if (call % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    pthreadpool_destroy(pool);
  }
}

// Back-to-back small calls, the pattern of an inference (~60 parallel calls of
// a few dozen items each): the worker often arrives while the caller is
// already publishing the next call. Each item exactly once, every time (a
// claimer holding the last, fully claimed state of the previous call once ran
// items of the next call twice here).
TEST(WorkPoolTest, BackToBackSmallCalls) {
  // Default: the caller's first share goes out with the job
  // (SLUICE_POOL_PRECLAIM); "0": the caller claims it by CAS like a worker.
  for (const char* preclaim : {"1", "0"}) {
    ScopedEnv env("SLUICE_POOL_PRECLAIM", preclaim);
    pthreadpool_t pool = pthreadpool_create(2);
    std::mt19937 rng(3);
    for (int call = 0; call < 300000; ++call) {
      const size_t n = 2 + rng() % 70;
      Cells c({n});
      pthreadpool_parallelize_1d(pool, T1, &c, n, 0);
      ASSERT_TRUE(c.AllOnce()) << "call " << call << " n " << n << " preclaim " << preclaim;
    }
    pthreadpool_destroy(pool);
  }
}

// The caller's share, 1/threads of the items from item 0, goes out with the
// job: the caller runs those items itself on every call, however early a
// spinning worker looks (without it a worker could win the first claim).
TEST(WorkPoolTest, TheCallerRunsItsShareOnEveryCall) {
  for (size_t threads : {2u, 3u}) {
    pthreadpool_t pool = pthreadpool_create(threads);
    struct Ctx {
      std::thread::id caller = std::this_thread::get_id();
      std::vector<std::atomic<int>> by_caller;
      std::atomic<int> wrong{0};
    } ctx;
    std::mt19937 rng(11);
    for (int call = 0; call < 20000; ++call) {
      const size_t n = 2 + rng() % 40;
      ctx.by_caller = std::vector<std::atomic<int>>(n);
      Cells c({n});
      struct Both {
        Ctx* ctx;
        Cells* cells;
      } both{&ctx, &c};
      pthreadpool_parallelize_1d(
          pool,
          [](void* p, size_t i) {
            auto* b = static_cast<Both*>(p);
            b->cells->Hit({i}, {});
            if (std::this_thread::get_id() == b->ctx->caller) b->ctx->by_caller[i] = 1;
          },
          &both, n, 0);
      ASSERT_TRUE(c.AllOnce()) << "call " << call << " n " << n;
      for (size_t i = 0; i < std::max<size_t>(1, n / threads); ++i) {
        if (ctx.by_caller[i].load() != 1) ctx.wrong.fetch_add(1);
      }
    }
    EXPECT_EQ(ctx.wrong.load(), 0) << threads << " threads";
    pthreadpool_destroy(pool);
  }
}

// A call returns although a worker is busy elsewhere: the caller does all the
// items itself when no worker joins. Here the items block until the caller
// has run some, so the test only finishes if the caller claims items.
TEST(WorkPoolTest, CallerRunsItemsItself) {
  pthreadpool_t pool = pthreadpool_create(2);
  struct Ctx {
    std::thread::id caller;
    std::atomic<int> by_caller{0};
    std::atomic<bool> timed_out{false};
  } ctx{std::this_thread::get_id()};
  pthreadpool_parallelize_1d(
      pool,
      [](void* p, size_t) {
        auto* c = static_cast<Ctx*>(p);
        if (std::this_thread::get_id() == c->caller) {
          c->by_caller.fetch_add(1);
          return;
        }
        // A worker's item waits for the caller to have run one (5 s at most,
        // so that a pool where the caller only waits fails instead of hangs).
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (c->by_caller.load() == 0) {
          if (std::chrono::steady_clock::now() > until) {
            c->timed_out = true;
            return;
          }
          std::this_thread::yield();
        }
      },
      &ctx, 64, 0);
  EXPECT_GT(ctx.by_caller.load(), 0);
  EXPECT_FALSE(ctx.timed_out.load());
  pthreadpool_destroy(pool);
}

#if defined(__x86_64__) || defined(__i386__)
// PTHREADPOOL_FLAG_DISABLE_DENORMALS: FTZ/DAZ on while items run, restored after.
TEST(WorkPoolTest, DisableDenormalsFlag) {
  pthreadpool_t pool = pthreadpool_create(2);
  const unsigned before = _mm_getcsr();
  std::atomic<int> with_ftz{0}, without{0};
  struct Ctx {
    std::atomic<int>* with_ftz;
    std::atomic<int>* without;
  } ctx{&with_ftz, &without};
  auto task = [](void* p, size_t) {
    auto* c = static_cast<Ctx*>(p);
    ((_mm_getcsr() & 0x8040) == 0x8040 ? c->with_ftz : c->without)->fetch_add(1);
  };
  pthreadpool_parallelize_1d(pool, task, &ctx, 100, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
  EXPECT_EQ(with_ftz.load(), 100);
  EXPECT_EQ(_mm_getcsr(), before);
  with_ftz = 0;
  pthreadpool_parallelize_1d(pool, task, &ctx, 100, 0);
  EXPECT_EQ(without.load(), 100);
  pthreadpool_destroy(pool);
}
#endif

// XNNPACK's own pthreadpool calls land in WorkPool (the dynamic linker binds
// them to this binary's pthreadpool_*), and a two-thread model still matches
// the reference kernels.
TEST(WorkPoolTest, XnnpackRunsOnWorkPool) {
  ASSERT_TRUE(XnnpackUsesWorkPool());
  pthreadpool_t pool = CreateXnnpackThreadPool(2);
  ASSERT_NE(pool, nullptr);
  EXPECT_TRUE(IsWorkPool(pool));
  pthreadpool_destroy(pool);

  auto backend = CreateXnnpackBackend();
  const uint64_t before = WorkPoolCallCount();
  int checked = 0;
  for (const testing::OpCase& c : testing::StandardOpCases()) {
    if (c.graph.ops.empty() || c.graph.ops[0].type != ir::OpType::kConv2D) continue;
    auto r = testing::CompareWithReference(c, *backend, testing::Tolerance{});
    ASSERT_TRUE(r.ok()) << c.name << ": " << r.status();
    EXPECT_TRUE(r->passed) << c.name << ": " << r->detail;
    ++checked;
  }
  EXPECT_GT(checked, 0);
  // CompareWithReference compiles with one thread; run one case on two.
  for (const testing::OpCase& c : testing::StandardOpCases()) {
    if (c.graph.ops.empty() || c.graph.ops[0].type != ir::OpType::kConv2D) continue;
    auto ms = testing::TimeOpCase(c, *backend, /*threads=*/2, /*runs=*/3);
    ASSERT_TRUE(ms.ok()) << ms.status();
    break;
  }
  EXPECT_GT(WorkPoolCallCount(), before);
}

}  // namespace
}  // namespace sluice::inference::xnn
