// The machine's fp32 peak, for judging inference speed against the FLOP floor.
//
//   build/bench/cpu_peak [threads]
//
// Each thread runs independent chains of fused multiply-adds on vector
// registers (compiled for the build machine: -march=native), enough chains to
// hide the FMA latency, and the program prints GFLOP/s per thread and in total.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

constexpr int kLanes = 16;   // floats per vector lane group (one AVX-512 or two AVX2 registers)
constexpr int kChains = 12;  // independent accumulators per thread
constexpr long kIterations = 200'000'000 / kChains;

typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

double RunOneThread() {
  Vec acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = Vec{} + (1.0f + static_cast<float>(c));
  const Vec a = Vec{} + 0.999999f;
  const Vec b = Vec{} + 1e-7f;
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < kIterations; ++i) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * a + b;  // contracted to FMA
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  float sink = 0;
  for (int c = 0; c < kChains; ++c) sink += acc[c][0];
  if (sink == 12345.0f) std::puts("");  // keeps the loop alive
  return 2.0 * kLanes * kChains * kIterations / seconds / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  if (threads < 1 || argc > 2) {  // ("--help" or "abc" read as 0 threads: a NaN per thread)
    std::fprintf(stderr, "usage: cpu_peak [threads>=1]\n");
    return 2;
  }
  std::vector<double> gflops(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { gflops[t] = RunOneThread(); });
  double total = 0;
  for (int t = 0; t < threads; ++t) {
    pool[t].join();
    total += gflops[t];
  }
  std::printf("cpu_peak threads=%d fp32_gflops_total=%.1f fp32_gflops_per_thread=%.1f\n", threads,
              total, total / threads);
  return 0;
}
