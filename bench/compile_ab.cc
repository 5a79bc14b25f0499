// A/B of two compile-time settings of the xnnpack backend, measured so that
// the host's slow phases cannot decide it: one process compiles the model
// twice, once under each setting, and alternates short blocks of runs
// between the two (ABBA order).
//
//   build/bench/compile_ab MODEL [threads] [block_pairs] [runs_per_block] [A] [B]
//
// A and B are VAR=VALUE, set in the environment just before that side's
// compile (default SLUICE_HUGE_PAGES=0 and =1: huge_pages.h, switched in
// process). Only switches the backend reads per compile can differ this
// way; those read once per process (a function-local static) cannot.
// Prints each side's median and minimum over all timed runs and the median
// over block pairs of (B block median / A block median): that last figure
// compares runs milliseconds apart, not minutes.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "inference/model.h"
#include "inference/xnnpack/huge_pages.h"
#include "bench/model_bench_util.h"

namespace {

using sluice::inference::Model;
using sluice::inference::Runner;
using sluice::bench::Median;

// Applies VAR=VALUE for the next compile; false on a malformed setting.
bool Apply(const std::string& setting) {
  const size_t eq = setting.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  const std::string var = setting.substr(0, eq), value = setting.substr(eq + 1);
  if (var == "SLUICE_HUGE_PAGES") {
    return sluice::inference::xnn::SetHugePagesEnabled(value != "0");
  }
  return setenv(var.c_str(), value.c_str(), 1) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: compile_ab MODEL [threads] [block_pairs] [runs_per_block] [A] [B]\n");
    return 2;
  }
  const int threads = sluice::bench::PositiveArg(argc, argv, 2, 1, "threads");
  const int pairs = sluice::bench::PositiveArg(argc, argv, 3, 200, "pairs");
  const int runs = sluice::bench::PositiveArg(argc, argv, 4, 5, "runs per block");
  const std::string setting[2] = {argc > 5 ? argv[5] : "SLUICE_HUGE_PAGES=0",
                                  argc > 6 ? argv[6] : "SLUICE_HUGE_PAGES=1"};
  const Model model = sluice::bench::LoadModelOrExit(argv[1]);
  std::unique_ptr<Runner> side[2];
  for (int s = 0; s < 2; ++s) {
    if (!Apply(setting[s])) {
      std::fprintf(stderr, "cannot apply '%s' (VAR=VALUE; huge pages: not in ASan builds)\n",
                   setting[s].c_str());
      return 1;
    }
    side[s] = sluice::bench::XnnpackRunnerWithInputs(model, threads);
    sluice::bench::TimedBlock(*side[s], 3);  // warm-up
  }
  std::vector<double> all[2], ratios;
  for (int p = 0; p < pairs; ++p) {
    double med[2];
    for (int k = 0; k < 2; ++k) {
      const int s = (p % 2 == 0) ? k : 1 - k;  // ABBA
      std::vector<double> ms = sluice::bench::TimedBlock(*side[s], runs);
      med[s] = Median(ms);
      all[s].insert(all[s].end(), ms.begin(), ms.end());
    }
    ratios.push_back(med[1] / med[0]);
  }
  const double min0 = *std::min_element(all[0].begin(), all[0].end());
  const double min1 = *std::min_element(all[1].begin(), all[1].end());
  const std::string name = sluice::bench::FileName(argv[1]);
  std::printf(
      "compile_ab %s threads=%d runs=%zu A=%s B=%s a_median_ms=%.3f a_min_ms=%.3f "
      "b_median_ms=%.3f b_min_ms=%.3f paired_b_over_a=%.3f\n",
      name.c_str(), threads, all[0].size(), setting[0].c_str(), setting[1].c_str(),
      Median(all[0]), min0, Median(all[1]), min1, Median(ratios));
  return 0;
}
