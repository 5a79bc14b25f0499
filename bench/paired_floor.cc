// A model's time over its FLOP floor, with the peak read next to each
// measurement instead of once. On a host whose cores slow down for seconds
// at a time (the EMR guest: bench/models/RESULTS.md, 2026-11-29 06:50) a
// peak read minutes apart from the model run decides the verdict more than
// the code does. Here each pair is an FMA burst on the same number of
// threads (the loop of cpu_peak.cc, the caller plus helpers) and a block of
// model runs, milliseconds apart, in alternating order; the pair's ratio is
// (block median) / (FLOPs / burst GFLOP/s).
//
//   build/bench/paired_floor MODEL [threads] [pairs] [runs_per_block] [fixed_peak]
//
// FLOPs as MODELS_INVENTORY.md counts them (2 x MACs + element operations,
// Model::element_ops). Prints the median and the minimum over pairs of that
// ratio, the medians of the bursts and of the blocks, and with `fixed_peak`
// (GFLOP/s) the ratio of the model's minimum to that fixed floor as well.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "inference/model.h"
#include "inference/model_stats.h"
#include "bench/model_bench_util.h"

namespace {

using Clock = std::chrono::steady_clock;
using sluice::bench::Median;

// One thread's burst: independent FMA chains on vector registers, as
// cpu_peak.cc. Returns GFLOP/s.
constexpr int kLanes = 16, kChains = 12;
constexpr long kBurstIterations = 600'000;  // ~1.5 ms at 150 GFLOP/s
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

double Burst() {
  Vec acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = Vec{} + (1.0f + static_cast<float>(c));
  const Vec a = Vec{} + 0.999999f, b = Vec{} + 1e-7f;
  const auto t0 = Clock::now();
  for (long i = 0; i < kBurstIterations; ++i) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * a + b;  // contracted to FMA
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  float sink = 0;
  for (int c = 0; c < kChains; ++c) sink += acc[c][0];
  if (sink == 12345.0f) std::puts("");
  return 2.0 * kLanes * kChains * kBurstIterations / s / 1e9;
}

// Helper threads parked between bursts (so that they do not spin while the
// model runs).
class Bursts {
 public:
  explicit Bursts(int helpers) : gflops_(helpers) {
    for (int h = 0; h < helpers; ++h) threads_.emplace_back([this, h] { Loop(h); });
  }
  ~Bursts() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // Total GFLOP/s of the caller's burst and the helpers', run together.
  double Run() {
    {
      std::lock_guard<std::mutex> l(mu_);
      ++generation_;
      pending_ = static_cast<int>(threads_.size());
    }
    cv_.notify_all();
    double total = Burst();
    std::unique_lock<std::mutex> l(mu_);
    done_cv_.wait(l, [this] { return pending_ == 0; });
    for (double g : gflops_) total += g;
    return total;
  }

 private:
  void Loop(int h) {
    long seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      const double g = Burst();
      std::lock_guard<std::mutex> l(mu_);
      gflops_[h] = g;
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<double> gflops_;
  std::vector<std::thread> threads_;
  long generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: paired_floor MODEL [threads] [pairs] [runs_per_block] [fixed_peak]\n");
    return 2;
  }
  const int threads = sluice::bench::PositiveArg(argc, argv, 2, 1, "threads");
  const int pairs = sluice::bench::PositiveArg(argc, argv, 3, 100, "pairs");
  const int runs = sluice::bench::PositiveArg(argc, argv, 4, 5, "runs per block");
  const double fixed_peak = argc > 5 ? std::atof(argv[5]) : 0;
  if (argc > 5 && !(fixed_peak > 0)) {
    std::fprintf(stderr, "fixed_peak: '%s' is not a positive GFLOP/s figure\n", argv[5]);
    return 2;
  }
  const sluice::inference::Model model = sluice::bench::LoadModelOrExit(argv[1]);
  const double flops = 2.0 * static_cast<double>(
                                 sluice::inference::ComputeStats(model.graph()).macs) +
                       static_cast<double>(model.element_ops());
  std::unique_ptr<sluice::inference::Runner> runner =
      sluice::bench::XnnpackRunnerWithInputs(model, threads);
  auto block = [&] { return sluice::bench::TimedBlock(*runner, runs); };
  Bursts bursts(threads - 1);
  block();  // warm-up
  std::vector<double> ratios, peaks, medians, all;
  for (int p = 0; p < pairs; ++p) {
    double peak = 0;
    std::vector<double> ms;
    if (p % 2 == 0) {
      peak = bursts.Run();
      ms = block();
    } else {
      ms = block();
      peak = bursts.Run();
    }
    const double med = Median(ms);
    ratios.push_back(med / (flops / (peak * 1e6)));
    peaks.push_back(peak);
    medians.push_back(med);
    all.insert(all.end(), ms.begin(), ms.end());
  }
  const std::string name = sluice::bench::FileName(argv[1]);
  std::printf(
      "paired_floor %s threads=%d pairs=%d mflop=%.1f x_floor_paired_median=%.2f "
      "x_floor_paired_min=%.2f peak_median_gflops=%.1f block_median_ms=%.3f min_ms=%.3f",
      name.c_str(), threads, pairs, flops / 1e6, Median(ratios),
      *std::min_element(ratios.begin(), ratios.end()), Median(peaks), Median(medians),
      *std::min_element(all.begin(), all.end()));
  if (std::getenv("PAIRED_FLOOR_DEBUG")) {
    std::vector<double> even, odd;
    for (size_t i = 0; i < medians.size(); ++i) (i % 2 ? odd : even).push_back(medians[i]);
    std::printf(" burst_first_ms=%.3f model_first_ms=%.3f", Median(even), Median(odd));
  }
  if (fixed_peak > 0) {
    std::printf(" x_floor_fixed_min=%.2f",
                *std::min_element(all.begin(), all.end()) / (flops / (fixed_peak * 1e6)));
  }
  std::printf("\n");
  return 0;
}
