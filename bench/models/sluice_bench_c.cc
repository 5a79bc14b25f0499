// A C entry point to our inference engine for bench/models/inprocess_vs_google.py,
// which loads it next to Google's interpreter in one Python process (ctypes)
// so that the two alternate within milliseconds. Benchmarks only.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "inference/model.h"

namespace {

struct Handle {
  sluice::inference::Model model;
  std::unique_ptr<sluice::inference::Runner> runner;
};

void SetError(const std::string& what, char* err, int err_len) {
  if (err && err_len > 0) std::snprintf(err, static_cast<size_t>(err_len), "%s", what.c_str());
}

}  // namespace

extern "C" {

// nullptr on failure, with the reason in err.
void* sluice_bench_load(const char* path, int threads, char* err, int err_len) {
  auto model = sluice::inference::Model::Load(path);
  if (!model.ok()) {
    SetError(model.status().ToString(), err, err_len);
    return nullptr;
  }
  auto runner = model->CreateRunner("xnnpack", threads);
  if (!runner.ok()) {
    SetError(runner.status().ToString(), err, err_len);
    return nullptr;
  }
  return new Handle{std::move(*model), std::move(*runner)};
}

int sluice_bench_num_inputs(void* h) {
  return static_cast<int>(static_cast<Handle*>(h)->runner->Inputs().size());
}

// Float elements of input i (0 when there is no such input or it is not float32).
long sluice_bench_input_floats(void* h, int i) {
  const auto& inputs = static_cast<Handle*>(h)->runner->Inputs();
  if (i < 0 || static_cast<size_t>(i) >= inputs.size()) return 0;
  const auto& in = inputs[static_cast<size_t>(i)];
  return in.dtype == sluice::inference::ir::DType::kFloat32 ? static_cast<long>(in.num_elements())
                                                           : 0;
}

// Input i's floats (nullptr when sluice_bench_input_floats(h, i) is 0).
float* sluice_bench_input(void* h, int i) {
  return sluice_bench_input_floats(h, i) > 0
             ? static_cast<Handle*>(h)->runner->Inputs()[static_cast<size_t>(i)].f32()
             : nullptr;
}

// 0 on success.
int sluice_bench_invoke(void* h) { return static_cast<Handle*>(h)->runner->Invoke().ok() ? 0 : 1; }

void sluice_bench_free(void* h) { delete static_cast<Handle*>(h); }

}  // extern "C"
