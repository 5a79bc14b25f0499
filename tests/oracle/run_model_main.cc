// sluice_run_model: runs a .tflite model on one of our backends with inputs
// from .npy files and writes the outputs as .npy: the C++ side of the oracle
// comparison (tests/oracle/run_tflite.py is Google's side, same arguments).
//
//   sluice_run_model MODEL IN.npy[,IN2.npy...] OUT_PREFIX [--backend NAME]
//                    [--threads N] [--bench ITERS]
//   sluice_run_model MODEL --print-input-shape     # e.g. "1x192x192x3"
//
// Output i goes to OUT_PREFIX<i>.npy; stdout gets "i name shape" per output,
// "placement: xnnpack=N reference=M ..." and with --bench
// "bench: mean_ms=.. median_ms=.. min_ms=..".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "inference/model.h"
#include "tests/oracle/npy.h"
#include "util/status_macros.h"

namespace sluice::oracle {
namespace {

using inference::Model;

struct Args {
  std::string model, inputs, out_prefix, backend = "xnnpack";
  int threads = 1, bench = 0;
  bool print_input_shape = false;
};

absl::Status ParseArgs(int argc, char** argv, Args* a) {
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> absl::StatusOr<std::string> {
      if (i + 1 >= argc) return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
      return std::string(argv[++i]);
    };
    auto number = [&](const char* flag, int* out) -> absl::Status {
      ASSIGN_OR_RETURN(std::string v, value(flag));
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 0 || n > 1000000) {
        return absl::InvalidArgumentError(absl::StrCat(flag, ": bad number '", v, "'"));
      }
      *out = static_cast<int>(n);
      return absl::OkStatus();
    };
    if (arg == "--backend") {
      ASSIGN_OR_RETURN(a->backend, value("--backend"));
    } else if (arg == "--threads") {
      RETURN_IF_ERROR(number("--threads", &a->threads));
    } else if (arg == "--bench") {
      RETURN_IF_ERROR(number("--bench", &a->bench));
    } else if (arg == "--print-input-shape") {
      a->print_input_shape = true;
    } else if (arg.rfind("--", 0) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", arg));
    } else {
      pos.push_back(arg);
    }
  }
  if (a->print_input_shape && pos.size() == 1) {
    a->model = pos[0];
    return absl::OkStatus();
  }
  if (pos.size() != 3) {
    return absl::InvalidArgumentError(
        "usage: sluice_run_model MODEL IN.npy[,IN2.npy] OUT_PREFIX [--backend NAME] "
        "[--threads N] [--bench ITERS]");
  }
  if (a->threads < 1) return absl::InvalidArgumentError("--threads must be >= 1");
  a->model = pos[0], a->inputs = pos[1], a->out_prefix = pos[2];
  return absl::OkStatus();
}

absl::Status Run(const Args& a) {
  ASSIGN_OR_RETURN(Model model, Model::Load(a.model));
  if (a.print_input_shape) {
    if (model.inputs().empty()) return absl::InvalidArgumentError("model has no inputs");
    std::printf("%s\n", absl::StrJoin(model.inputs()[0].shape, "x").c_str());
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(auto runner, model.CreateRunner(a.backend, a.threads));
  const std::vector<std::string> paths = absl::StrSplit(a.inputs, ',');
  if (paths.size() != runner->Inputs().size()) {
    return absl::InvalidArgumentError(absl::StrCat(a.model, " has ", runner->Inputs().size(),
                                                   " inputs, got ", paths.size(), " files"));
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    const inference::IoTensor& in = runner->Inputs()[i];
    ASSIGN_OR_RETURN(NpyArray x, ReadNpy(paths[i]));
    std::vector<int64_t> want(in.shape.begin(), in.shape.end());
    if (in.dtype != inference::ir::DType::kFloat32 || x.shape != want) {
      return absl::InvalidArgumentError(
          absl::StrCat(paths[i], ": shape [", absl::StrJoin(x.shape, ","), "] but input '", in.name,
                       "' is ", std::string(inference::ir::DTypeName(in.dtype)), " [",
                       absl::StrJoin(in.shape, ","), "]"));
    }
    std::memcpy(in.data, x.data.data(), x.data.size() * sizeof(float));
  }
  RETURN_IF_ERROR(runner->Invoke());
  for (size_t i = 0; i < runner->Outputs().size(); ++i) {
    const inference::IoTensor& out = runner->Outputs()[i];
    if (out.dtype != inference::ir::DType::kFloat32) {
      return absl::UnimplementedError(absl::StrCat("output '", out.name, "' is not float32"));
    }
    std::vector<int64_t> shape(out.shape.begin(), out.shape.end());
    RETURN_IF_ERROR(WriteNpy(absl::StrCat(a.out_prefix, i, ".npy"), shape, out.f32()));
    std::printf("%zu %s [%s]\n", i, out.name.c_str(), absl::StrJoin(out.shape, ", ").c_str());
  }
  std::map<std::string, int> placed;
  for (const std::string& p : runner->OpPlacement()) ++placed[p];
  std::vector<std::string> parts;
  for (const auto& [k, n] : placed) parts.push_back(absl::StrCat(k, "=", n));
  std::printf("placement: %s\n", absl::StrJoin(parts, " ").c_str());

  if (a.bench > 0) {
    for (int i = 0; i < 2; ++i) RETURN_IF_ERROR(runner->Invoke());
    std::vector<double> ms;
    for (int i = 0; i < a.bench; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      RETURN_IF_ERROR(runner->Invoke());
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    double sum = 0;
    for (double v : ms) sum += v;
    std::printf("bench: mean_ms=%.3f median_ms=%.3f min_ms=%.3f\n", sum / ms.size(),
                ms[ms.size() / 2], ms[0]);
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace sluice::oracle

int main(int argc, char** argv) {
  sluice::oracle::Args args;
  absl::Status s = sluice::oracle::ParseArgs(argc, argv, &args);
  if (s.ok()) s = sluice::oracle::Run(args);
  if (!s.ok()) {
    std::fprintf(stderr, "sluice_run_model: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
