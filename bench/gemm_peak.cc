// The machine's fp32 peak read the second way: a large XNNPACK GEMM
// (Debian's libXNNPACK, its fully-connected operator, the same kernels
// Google's CPU path runs), on the xnnpack backend's thread pool. Unlike
// cpu_peak's register-only FMA loop it reads its operands through the
// caches, so it also feels what a neighbour on the host takes from them.
//
//   build/bench/gemm_peak [threads=1] [reps=20]
//
// For each shape (M x K times K x N: square 512/1024/2048 and a 1x1-conv-like
// 16384 pixels x 256 -> 256) it runs `reps` GEMMs after two warm-ups and
// prints GFLOP/s (2 * M * N * K / time) of the fastest and the median run;
// the last line is the best shape's median:
//   gemm_peak threads=T fp32_gflops_total=X
#include <xnnpack.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "inference/xnnpack/work_pool.h"

namespace {

struct Shape {
  size_t m, k, n;
};

// GFLOP/s of the fastest and of the median of `reps` runs; false on an XNNPACK error.
bool TimeGemm(const Shape& s, pthreadpool_t pool, int reps, double* best, double* median) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(s.m * s.k), w(s.n * s.k), bias(s.n), out(s.m * s.n);
  for (float& x : a) x = u(rng);
  for (float& x : w) x = u(rng);
  for (float& x : bias) x = u(rng);
  xnn_operator_t op = nullptr;
  if (xnn_create_fully_connected_nc_f32(s.k, s.n, s.k, s.n, w.data(), bias.data(), -INFINITY,
                                        INFINITY, 0, &op) != xnn_status_success ||
      xnn_setup_fully_connected_nc_f32(op, s.m, a.data(), out.data(), pool) !=
          xnn_status_success) {
    if (op) xnn_delete_operator(op);
    return false;
  }
  std::vector<double> gflops;
  for (int r = -2; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    if (xnn_run_operator(op, pool) != xnn_status_success) {
      xnn_delete_operator(op);
      return false;
    }
    const double sec =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r >= 0) gflops.push_back(2.0 * s.m * s.n * s.k / sec / 1e9);
  }
  xnn_delete_operator(op);
  std::sort(gflops.begin(), gflops.end());
  *best = gflops.back();
  *median = gflops[gflops.size() / 2];
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  if (threads < 1 || reps < 1) {
    std::fprintf(stderr, "usage: gemm_peak [threads>=1] [reps>=1]\n");
    return 2;
  }
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "gemm_peak: xnn_initialize failed\n");
    return 1;
  }
  pthreadpool_t pool =
      threads > 1 ? sluice::inference::xnn::CreateXnnpackThreadPool(threads) : nullptr;
  if (threads > 1 && !pool) {
    std::fprintf(stderr, "gemm_peak: no thread pool\n");
    return 1;
  }
  const Shape shapes[] = {{512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048},
                          {16384, 256, 256}};
  double top = 0;
  for (const Shape& s : shapes) {
    double best = 0, median = 0;
    if (!TimeGemm(s, pool, reps, &best, &median)) {
      std::fprintf(stderr, "gemm_peak: XNNPACK failed on %zux%zux%zu\n", s.m, s.k, s.n);
      return 1;
    }
    std::printf("gemm %zux%zu * %zux%zu threads=%d gflops best=%.1f median=%.1f\n", s.m, s.k, s.k,
                s.n, threads, best, median);
    top = std::max(top, median);
  }
  if (pool) pthreadpool_destroy(pool);
  std::printf("gemm_peak threads=%d fp32_gflops_total=%.1f\n", threads, top);
  return 0;
}
