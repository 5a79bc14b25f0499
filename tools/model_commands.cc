// `sluice model-info MODEL` and `sluice bench-model MODEL`: the inference
// engine on its own, without a graph.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "inference/model.h"
#include "inference/model_stats.h"
#include "tools/commands.h"

namespace sluice::cli {
namespace {

using inference::Model;

[[noreturn]] void Fail(const absl::Status& status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  throw CLI::RuntimeError(1);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Describe(const inference::TensorInfo& t) {
  return absl::StrCat(t.name, " ", inference::ir::ShapeString(t.shape), " ",
                      std::string(inference::ir::DTypeName(t.dtype)));
}

// Deterministic, mid-range input values (the timing does not depend on them).
void FillInputs(inference::Runner& runner) {
  for (const inference::IoTensor& in : runner.Inputs()) {
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      if (in.dtype == inference::ir::DType::kFloat32) {
        in.f32()[i] = 0.5f + 0.25f * std::sin(0.01f * static_cast<float>(i));
      } else if (in.dtype == inference::ir::DType::kInt32) {
        in.i32()[i] = static_cast<int32_t>(i % 7);
      }
    }
  }
}

// The FLOPs model-info prints (MODELS_INVENTORY.md's count, on the file's
// ops): 2 x MACs + the element operations Model counted before its passes.
int64_t FileFlops(const Model& model, const inference::ModelStats& stats) {
  return 2 * stats.macs + model.element_ops();
}

void ModelInfo(const std::string& path, const std::string& backend, int threads, bool list_ops) {
  absl::StatusOr<Model> model = Model::Load(path);
  if (!model.ok()) Fail(model.status());
  const inference::ModelStats stats = inference::ComputeStats(model->graph());
  std::printf("model: %s\n", path.c_str());
  for (const auto& t : model->inputs()) std::printf("input:  %s\n", Describe(t).c_str());
  for (const auto& t : model->outputs()) std::printf("output: %s\n", Describe(t).c_str());
  std::printf("operators: %d in the file, %zu after load-time folding\n", model->file_op_count(),
              model->graph().ops.size());
  std::printf("MACs: %lld\n", static_cast<long long>(stats.macs));
  std::printf("FLOPs: %lld (2 x MACs + %lld element operations)\n",
              static_cast<long long>(FileFlops(*model, stats)),
              static_cast<long long>(model->element_ops()));
  std::printf("params: %lld float weights, %.2f MiB resident\n",
              static_cast<long long>(stats.params), stats.param_bytes / (1024.0 * 1024.0));
  absl::StatusOr<std::unique_ptr<inference::Runner>> runner = model->CreateRunner(backend, threads);
  if (!runner.ok()) Fail(runner.status());
  const std::vector<std::string> placement = (*runner)->OpPlacement();
  // op name -> (backend -> count)
  std::map<std::string, std::map<std::string, int>> table;
  for (size_t i = 0; i < model->graph().ops.size(); ++i) {
    const std::string where = i < placement.size() ? placement[i] : "?";
    ++table[std::string(inference::ir::OpTypeName(model->graph().ops[i].type))][where];
  }
  std::printf("backend: %s (built: %s)\n", std::string((*runner)->backend_name()).c_str(),
              absl::StrJoin(inference::BuiltBackendNames(), ", ").c_str());
  std::printf("%-28s %6s  %s\n", "op", "count", "runs on");
  for (const auto& [op, where] : table) {
    int n = 0;
    std::vector<std::string> parts;
    for (const auto& [b, c] : where) {
      n += c;
      parts.push_back(absl::StrCat(b, " ", c));
    }
    std::printf("%-28s %6d  %s\n", op.c_str(), n, absl::StrJoin(parts, ", ").c_str());
  }
  if (!list_ops) return;
  // --ops: every op of the loaded graph (the indices --per-op prints), with
  // its non-constant input shapes and its output shape.
  const inference::ir::Graph& g = model->graph();
  std::printf("%5s %-26s %-10s %s\n", "op", "type", "on", "inputs -> output");
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const inference::ir::Op& op = g.ops[i];
    std::vector<std::string> ins;
    for (int t : op.inputs) {
      if (t >= 0 && !g.tensors[t].is_constant) {
        ins.push_back(absl::StrCat("t", t, inference::ir::ShapeString(g.tensors[t].shape)));
      }
    }
    std::vector<std::string> outs;
    for (int t : op.outputs) {
      outs.push_back(absl::StrCat("t", t, inference::ir::ShapeString(g.tensors[t].shape)));
    }
    std::printf("%5zu %-26s %-10s %s -> %s\n", i, std::string(inference::ir::OpTypeName(op.type)).c_str(),
                i < placement.size() ? placement[i].c_str() : "?", absl::StrJoin(ins, " ").c_str(),
                absl::StrJoin(outs, " ").c_str());
  }
}

// `bench-model --per-op`: the backend's steps sorted by time (min over the
// runs), then the time per op type. Each step is timed on its own, so the sum
// of the means exceeds the normal Invoke() time.
void PrintOpTimes(const inference::Model& model, const inference::Runner& runner) {
  const std::vector<inference::OpTime> times = runner.OpTimes();
  if (times.empty()) {
    std::printf("per-op: backend '%s' does not profile ops\n",
                std::string(runner.backend_name()).c_str());
    return;
  }
  const inference::ir::Graph& g = model.graph();
  const std::vector<std::string> placement = runner.OpPlacement();
  std::vector<size_t> order(times.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return times[a].min_ms > times[b].min_ms; });
  double sum = 0, mean_sum = 0;
  for (const auto& t : times) {
    sum += t.min_ms;
    mean_sum += t.runs > 0 ? t.total_ms / t.runs : 0.0;
  }
  std::printf("per-op (min over %d runs; sum %.3f ms, of the means %.3f ms; a step's line "
              "counts the FLOPs of every op it runs, TYPE+N: N more ops fused into it)\n",
              times.front().runs, sum, mean_sum);
  std::printf("%5s %-24s %-10s %-22s %9s %7s %6s %8s\n", "op", "type", "on", "output", "MFLOP",
              "ms", "%", "GFLOP/s");
  struct Agg {
    int n = 0;
    double ms = 0, flop = 0;
  };
  std::map<std::string, Agg> by_type;
  for (size_t k : order) {
    const inference::OpTime& t = times[k];
    const inference::ir::Op& op = g.ops[t.op];
    const std::string type(inference::ir::OpTypeName(op.type));
    // A step may run several fused ops: its FLOPs are theirs together (2 x
    // MACs + element operations, as model-info counts them but on the loaded
    // ops: see the total line below), and its type reads e.g. "CONV_2D+2"
    // (the first op and two more).
    double flop = 0;
    for (int o : t.ops.empty() ? std::vector<int>{t.op} : t.ops) {
      flop += 2.0 * static_cast<double>(inference::OpMacs(g, o)) +
              static_cast<double>(inference::OpElementOps(g, o));
    }
    const size_t fused = t.ops.size() > 1 ? t.ops.size() - 1 : 0;
    const std::string out =
        op.outputs.empty() ? "" : inference::ir::ShapeString(g.tensors[op.outputs[0]].shape);
    std::string kind = type;
    if (op.type == inference::ir::OpType::kConv2D && op.inputs.size() > 1) {
      const auto& w = g.tensors[op.inputs[1]].shape;
      if (w.size() == 4) kind = absl::StrCat(type, " ", w[1], "x", w[2]);
    }
    if (fused > 0) kind = absl::StrCat(kind, " +fused");
    const std::string label = fused > 0 ? absl::StrCat(type, "+", fused) : type;
    Agg& a = by_type[kind];
    ++a.n, a.ms += t.min_ms, a.flop += flop;
    // Fused steps end with the ops they run ("ops 101,100,102"), so that
    // steps fused differently (e.g. at another thread count) can be matched.
    const std::string fused_ops =
        fused > 0 ? absl::StrCat("  ops ", absl::StrJoin(t.ops, ",")) : std::string();
    std::printf("%5d %-24s %-10s %-22s %9.2f %7.3f %6.2f %8.1f%s\n", t.op, label.c_str(),
                static_cast<size_t>(t.op) < placement.size() ? placement[t.op].c_str() : "?",
                out.c_str(), flop / 1e6, t.min_ms, 100.0 * t.min_ms / sum,
                t.min_ms > 0 ? flop / (t.min_ms * 1e6) : 0.0, fused_ops.c_str());
  }
  std::printf("\nby type:\n%-28s %5s %9s %7s %6s %8s\n", "type", "count", "MFLOP", "ms", "%",
              "GFLOP/s");
  std::vector<std::pair<std::string, Agg>> rows(by_type.begin(), by_type.end());
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
  double total_flop = 0;
  for (const auto& [k, a] : rows) {
    std::printf("%-28s %5d %9.2f %7.3f %6.2f %8.1f\n", k.c_str(), a.n, a.flop / 1e6, a.ms,
                100.0 * a.ms / sum, a.ms > 0 ? a.flop / (a.ms * 1e6) : 0.0);
    total_flop += a.flop;
  }
  // model-info counts the file's ops, where a RELU that the load passes fuse
  // into the filter or ADD before it is an elementwise pass of its own.
  const double file_flop = static_cast<double>(FileFlops(model, inference::ComputeStats(g)));
  std::printf("%-28s %5s %9.2f   (model-info's FLOPs: %.2f M, counted on the file's ops: a RELU "
              "fused at load is its own pass there)\n",
              "total", "", total_flop / 1e6, file_flop / 1e6);
}

void BenchModel(const std::string& path, const std::string& backend, int threads, int runs,
                int warmup, bool per_op, int batch) {
  if (runs < 1 || warmup < 0)
    Fail(absl::InvalidArgumentError("--runs must be >= 1 and --warmup >= 0"));
  absl::StatusOr<Model> model = Model::Load(path);
  if (!model.ok()) Fail(model.status());
  // Re-batched before anything else, so that --per-op shows the batch-N shapes.
  model = model->WithBatch(batch);
  if (!model.ok()) Fail(model.status());
  inference::BackendOptions options;
  options.num_threads = threads;
  options.profile_ops = per_op;
  absl::StatusOr<std::unique_ptr<inference::Runner>> runner = model->CreateRunner(backend, options);
  if (!runner.ok()) Fail(runner.status());
  inference::Runner& r = **runner;
  FillInputs(r);
  for (int i = 0; i < warmup; ++i) {
    if (absl::Status s = r.Invoke(); !s.ok()) Fail(s);
  }
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (absl::Status s = r.Invoke(); !s.ok()) Fail(s);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  // Nearest-rank percentiles.
  auto pct = [&](double p) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(std::ceil(p * ms.size())) - 1)];
  };
  const double median =
      ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  if (per_op) PrintOpTimes(*model, r);
  std::printf("runs: %d, min_ms=%.3f max_ms=%.3f\n", runs, ms.front(), ms.back());
  if (batch > 1) {
    std::printf("batch: %d, median_ms per item=%.3f\n", batch, median / batch);
  }
  std::printf("bench-model %s %s %d median_ms=%.3f p90_ms=%.3f\n", BaseName(path).c_str(),
              std::string(r.backend_name()).c_str(), threads, median, pct(0.9));
}

}  // namespace

void AddModelCommands(CLI::App& app) {
  struct Options {
    std::string model, backend = "auto";
    int threads = 1, runs = 20, warmup = 3, batch = 1;
    bool per_op = false, list_ops = false;
  };
  auto opts = std::make_shared<Options>();

  CLI::App* info = app.add_subcommand("model-info",
                                      "Inputs, outputs, op histogram, MACs, params and "
                                      "which backend runs each op of a .tflite model");
  info->add_option("MODEL", opts->model, ".tflite file")->required();
  info->add_option("--backend", opts->backend, "reference, xnnpack, cuda or auto");
  info->add_option("--threads", opts->threads, "CPU threads")->check(CLI::PositiveNumber);
  info->add_flag("--ops", opts->list_ops,
                 "also list every op (the indices bench-model --per-op prints) with its shapes");
  info->callback(
      [opts] { ModelInfo(opts->model, opts->backend, opts->threads, opts->list_ops); });

  CLI::App* bench = app.add_subcommand("bench-model",
                                       "Times a .tflite model on one backend; the last "
                                       "line is 'bench-model FILE BACKEND THREADS "
                                       "median_ms=X p90_ms=Y'");
  bench->add_option("MODEL", opts->model, ".tflite file")->required();
  bench->add_option("--backend", opts->backend, "reference, xnnpack, cuda or auto");
  bench->add_option("--threads", opts->threads, "CPU threads")->check(CLI::PositiveNumber);
  bench->add_option("--runs", opts->runs, "timed runs")->check(CLI::PositiveNumber);
  bench->add_option("--warmup", opts->warmup, "untimed runs first")->check(CLI::NonNegativeNumber);
  bench->add_flag("--per-op", opts->per_op,
                  "time every op on its own (xnnpack: one runtime per op) and print the hot spots "
                  "with MFLOP and GFLOP/s");
  bench->add_option("--batch", opts->batch, "items per run (median_ms is per run)")
      ->check(CLI::Range(1, 4096));
  bench->callback([opts] {
    BenchModel(opts->model, opts->backend, opts->threads, opts->runs, opts->warmup, opts->per_op,
               opts->batch);
  });
}

}  // namespace sluice::cli
