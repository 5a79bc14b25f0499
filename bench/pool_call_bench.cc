// What one parallel call of the xnnpack backend's WorkPool costs on this
// machine (inference/xnnpack/work_pool.h): a two-thread inference makes ~60
// such calls, most of a few microseconds, so the cost of handing half a call
// to the other core is part of every small step.
//
//   build/bench/pool_call_bench [threads=2] [calls=200000]
//
// Prints, in ns per call (min / median over batches of 1000 calls):
//   empty    `threads` items that do nothing: publish, claim, finish, return;
//   work     `threads` items of ~1 us of arithmetic each, minus 1 us: what a
//            balanced call costs beyond its work (the other core's late start
//            and the hand-back), against the same items run on the caller.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "inference/xnnpack/work_pool.h"

namespace {

using sluice::inference::xnn::WorkPool;

volatile double g_sink = 0;

// ~`iterations` dependent multiply-adds (no memory traffic).
void Spin(long iterations) {
  double x = 1.0;
  for (long i = 0; i < iterations; ++i) x = x * 0.999999 + 1e-9;
  g_sink = x;
}

struct Work {
  long iterations = 0;
};

void RunItems(void* context, size_t begin, size_t end) {
  const auto* w = static_cast<const Work*>(context);
  for (size_t i = begin; i < end; ++i) Spin(w->iterations);
}

double NsPerCall(std::chrono::steady_clock::duration d, int calls) {
  return std::chrono::duration<double, std::nano>(d).count() / calls;
}

// Min and median over batches of ns per call of `call`.
template <typename F>
void Measure(int calls, F call, double* min_ns, double* median_ns) {
  constexpr int kBatch = 1000;
  std::vector<double> batches;
  for (int done = 0; done < calls; done += kBatch) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) call();
    batches.push_back(NsPerCall(std::chrono::steady_clock::now() - start, kBatch));
  }
  std::sort(batches.begin(), batches.end());
  *min_ns = batches.front();
  *median_ns = batches[batches.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int calls = argc > 2 ? std::atoi(argv[2]) : 200000;
  if (threads < 2 || calls < 1000) {
    std::fprintf(stderr, "usage: pool_call_bench [threads >= 2] [calls >= 1000]\n");
    return 2;
  }
  WorkPool* pool = sluice::inference::xnn::NewWorkPool(static_cast<size_t>(threads));

  // Calibrate ~1 us of Spin on this core.
  Work one_us;
  {
    long n = 1000;
    for (;;) {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < 100; ++i) Spin(n);
      const double ns = NsPerCall(std::chrono::steady_clock::now() - start, 100);
      if (ns >= 1000.0 || n > (1L << 30)) {
        one_us.iterations = static_cast<long>(static_cast<double>(n) * 1000.0 / ns);
        break;
      }
      n *= 2;
    }
  }

  Work none;
  double empty_min, empty_med, work_min, work_med, serial_min, serial_med;
  Measure(
      calls, [&] { WorkPoolRun(pool, RunItems, &none, threads, 0); }, &empty_min, &empty_med);
  const int work_calls = std::max(1000, calls / 10);
  Measure(
      work_calls, [&] { WorkPoolRun(pool, RunItems, &one_us, threads, 0); }, &work_min, &work_med);
  Measure(
      work_calls / 4, [&] { RunItems(&one_us, 0, 1); }, &serial_min, &serial_med);
  // A balanced call's items take one item's time on each thread.
  std::printf(
      "pool_call_bench threads=%d empty_ns_min=%.0f empty_ns_median=%.0f "
      "overhead_ns_min=%.0f overhead_ns_median=%.0f (item %.0f ns)\n",
      threads, empty_min, empty_med, work_min - serial_min, work_med - serial_med, serial_med);
  sluice::inference::xnn::DeleteWorkPool(pool);
  return 0;
}
