// Small helpers shared by the model benchmarks in bench/ (compile_ab,
// paired_floor): a runner with random inputs, timed blocks of runs, medians.
#ifndef SLUICE_BENCH_MODEL_BENCH_UTIL_H_
#define SLUICE_BENCH_MODEL_BENCH_UTIL_H_

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "inference/model.h"

namespace sluice::bench {

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The model at `path`; exits with the loader's error otherwise.
inline inference::Model LoadModelOrExit(const char* path) {
  auto m = inference::Model::Load(path);
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", m.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*m);
}

// The xnnpack runner of `model` with `threads`, its float inputs uniform in
// [-1, 1) (the same for every call); exits with the error otherwise.
inline std::unique_ptr<inference::Runner> XnnpackRunnerWithInputs(const inference::Model& model,
                                                                  int threads) {
  auto r = model.CreateRunner("xnnpack", threads);
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
    std::exit(1);
  }
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const auto& in : (*r)->Inputs()) {
    if (in.dtype != inference::ir::DType::kFloat32) continue;
    for (int64_t i = 0; i < in.num_elements(); ++i) in.f32()[i] = u(rng);
  }
  return std::move(*r);
}

// Runs `runs` + 1 invocations and returns the times of the last `runs` (ms).
inline std::vector<double> TimedBlock(inference::Runner& r, int runs) {
  std::vector<double> ms;
  for (int i = 0; i <= runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!r.Invoke().ok()) std::exit(1);
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                               t0)
                         .count();
    if (i > 0) ms.push_back(t);
  }
  return ms;
}

// argv[i] as a whole number in [1, 1000000] (`fallback` when absent); exits
// with a message naming `what` when it is anything else.
inline int PositiveArg(int argc, char** argv, int i, int fallback, const char* what) {
  if (i >= argc) return fallback;
  char* end = nullptr;
  const long v = std::strtol(argv[i], &end, 10);
  if (end == argv[i] || *end != '\0' || v < 1 || v > 1000000) {
    std::fprintf(stderr, "%s: '%s' is not a whole number from 1 to 1000000\n", what, argv[i]);
    std::exit(2);
  }
  return static_cast<int>(v);
}

// "dir/name.tflite" -> "name.tflite".
inline std::string FileName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace sluice::bench

#endif  // SLUICE_BENCH_MODEL_BENCH_UTIL_H_
