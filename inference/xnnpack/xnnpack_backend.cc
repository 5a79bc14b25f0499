#include "inference/xnnpack/xnnpack_backend.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "inference/reference/reference_kernels.h"
#include "inference/xnnpack/translate.h"
#include "util/status_macros.h"

namespace sluice::inference::xnn {
namespace {

constexpr char kName[] = "xnnpack";

absl::Status InitializeXnnpack() {
  static std::once_flag once;
  static xnn_status status = xnn_status_uninitialized;
  std::call_once(once, [] { status = xnn_initialize(/*allocator=*/nullptr); });
  if (status != xnn_status_success) {
    return absl::FailedPreconditionError(
        absl::StrCat("xnn_initialize failed: ", XnnStatusName(status)));
  }
  return absl::OkStatus();
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<uint8_t, FreeDeleter>;

// Zeroed, 64-byte aligned, with the slack XNNPACK may read past the end.
Buffer AllocateBuffer(size_t bytes) {
  const size_t size = (bytes + XNN_EXTRA_BYTES + 63) / 64 * 64;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, size));
  if (p) std::memset(p, 0, size);
  return Buffer(p);
}

// One step of the execution plan: an XNNPACK runtime or an island kernel.
struct Step {
  xnn_runtime_t runtime = nullptr;
  reference::Kernel kernel;
};

class XnnpackModel : public CompiledModel {
 public:
  ~XnnpackModel() override {
    for (Step& s : steps_) {
      if (s.runtime) xnn_delete_runtime(s.runtime);
    }
    if (pool_) pthreadpool_destroy(pool_);
  }

  absl::Status Invoke() override {
    for (size_t i = 0; i < steps_.size(); ++i) {
      Step& s = steps_[i];
      if (s.runtime) {
        const xnn_status st = xnn_invoke_runtime(s.runtime);
        if (st != xnn_status_success) {
          return absl::InternalError(
              absl::StrCat("xnn_invoke_runtime (step ", i, ") failed: ", XnnStatusName(st)));
        }
      } else {
        s.kernel();
      }
    }
    return absl::OkStatus();
  }
  std::string_view BackendName() const override { return kName; }
  std::vector<std::string> OpPlacement() const override { return placement_; }

  // `demoted`: ops to run on the reference kernels although the visitor
  // accepts them. When XNNPACK refuses to define an op, `*failed_op` names it.
  absl::Status Build(const ir::Graph& graph, const BackendOptions& options,
                     const std::set<int>& demoted, int* failed_op);

 private:
  enum class Kind { kFolded, kXnn, kIsland };
  absl::Status BuildSegment(const GraphInfo& info, const std::vector<int>& ops,
                            const std::vector<std::vector<int>>& consumers,
                            const std::vector<Kind>& kind, int* failed_op);
  void* TensorAddress(int t) const {
    auto it = buffers_.find(t);
    return it == buffers_.end() ? nullptr : it->second.get();
  }

  pthreadpool_t pool_ = nullptr;
  std::deque<std::vector<float>> weights_;  // static XNNPACK values
  std::map<int, Buffer> buffers_;           // tensors crossing a cut
  std::vector<Step> steps_;
  std::vector<std::string> placement_;
  std::set<int> graph_outputs_;
};

absl::Status XnnpackModel::Build(const ir::Graph& graph, const BackendOptions& options,
                                 const std::set<int>& demoted, int* failed_op) {
  if (options.num_threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_threads must be >= 1, got ", options.num_threads));
  }
  RETURN_IF_ERROR(InitializeXnnpack());
  RETURN_IF_ERROR(graph.Validate());
  if (options.num_threads > 1) {
    pool_ = pthreadpool_create(options.num_threads);
    if (!pool_) return absl::ResourceExhaustedError("pthreadpool_create failed");
  }
  const GraphInfo info(graph);
  const int num_ops = static_cast<int>(graph.ops.size());
  const int num_tensors = static_cast<int>(graph.tensors.size());

  // Pass 1: which ops XNNPACK takes.
  std::vector<Kind> kind(num_ops);
  placement_.assign(num_ops, kName);
  for (int i = 0; i < num_ops; ++i) {
    if (info.IsFoldedOp(graph.ops[i])) {
      kind[i] = Kind::kFolded;
    } else if (!demoted.count(i) && VisitOp(info, i, nullptr).ok()) {
      kind[i] = Kind::kXnn;
    } else {
      kind[i] = Kind::kIsland;
      placement_[i] = "reference";
    }
  }
  std::vector<std::vector<int>> consumers(num_tensors);
  for (int i = 0; i < num_ops; ++i) {
    for (int t : graph.ops[i].inputs) {
      if (t >= 0) consumers[t].push_back(i);
    }
  }
  graph_outputs_.insert(graph.outputs.begin(), graph.outputs.end());

  // Buffers: graph ports and every tensor an island touches. Segment outputs
  // read later are added by BuildSegment.
  auto need_buffer = [&](int t) {
    if (t < 0 || buffers_.count(t)) return;
    if (graph.tensors[t].is_constant) return;
    buffers_[t] = AllocateBuffer(graph.tensors[t].byte_size());
  };
  for (int t : graph.inputs) need_buffer(t);
  for (int t : graph.outputs) need_buffer(t);
  for (int i = 0; i < num_ops; ++i) {
    if (kind[i] != Kind::kIsland) continue;
    for (int t : graph.ops[i].inputs) need_buffer(t);
    for (int t : graph.ops[i].outputs) need_buffer(t);
  }
  // XNNPACK segments: tensors they exchange with anything outside get buffers.
  std::vector<std::vector<int>> segments;
  for (int i = 0; i < num_ops; ++i) {
    if (kind[i] != Kind::kXnn) continue;
    if (segments.empty() || [&] {  // a folded op in between does not cut; an island does
          for (int j = segments.back().back() + 1; j < i; ++j) {
            if (kind[j] == Kind::kIsland) return true;
          }
          return false;
        }()) {
      segments.emplace_back();
    }
    segments.back().push_back(i);
  }
  for (const auto& seg : segments) {
    const std::set<int> in_seg(seg.begin(), seg.end());
    for (int i : seg) {
      for (int t : graph.ops[i].inputs) {
        if (t >= 0 && !info.IsConstant(t) && !in_seg.count(info.producer(t))) need_buffer(t);
      }
      for (int t : graph.ops[i].outputs) {
        for (int c : consumers[t]) {
          if (!in_seg.count(c)) need_buffer(t);
        }
      }
    }
  }
  // Folded (dequantized) constants an island or a graph output reads.
  for (auto& [t, buf] : buffers_) {
    if (!info.IsConstant(t)) continue;
    if (!buf) return absl::ResourceExhaustedError("out of memory for a constant");
    ASSIGN_OR_RETURN(std::vector<float> v, info.ConstantAsFloat(t));
    std::memcpy(buf.get(), v.data(), v.size() * sizeof(float));
  }
  for (auto& [t, buf] : buffers_) {
    if (!buf) {
      return absl::ResourceExhaustedError(
          absl::StrCat("out of memory for tensor '", graph.tensors[t].name, "'"));
    }
  }

  // Pass 2: define the segments, prepare the islands, in execution order.
  size_t next_segment = 0;
  for (int i = 0; i < num_ops; ++i) {
    if (kind[i] == Kind::kIsland) {
      std::vector<void*> addr(num_tensors, nullptr);
      for (const auto* list : {&graph.ops[i].inputs, &graph.ops[i].outputs}) {
        for (int t : *list) {
          if (t < 0) continue;
          addr[t] = graph.tensors[t].is_constant
                        ? const_cast<uint8_t*>(graph.tensors[t].data.data())
                        : TensorAddress(t);
        }
      }
      ASSIGN_OR_RETURN(reference::Kernel k, reference::PrepareKernel(graph, i, addr));
      steps_.push_back(Step{nullptr, std::move(k)});
    } else if (next_segment < segments.size() && segments[next_segment].front() == i) {
      RETURN_IF_ERROR(BuildSegment(info, segments[next_segment], consumers, kind, failed_op));
      ++next_segment;
    }
  }

  for (auto* io : {&inputs_, &outputs_}) {
    const std::vector<int>& ports = io == &inputs_ ? graph.inputs : graph.outputs;
    for (int t : ports) {
      const ir::Tensor& tensor = graph.tensors[t];
      IoTensor p;
      p.name = tensor.name;
      p.dtype = tensor.dtype;
      p.shape = tensor.shape;
      p.bytes = tensor.byte_size();
      p.data = tensor.is_constant ? const_cast<uint8_t*>(tensor.data.data()) : TensorAddress(t);
      io->push_back(std::move(p));
    }
  }
  return absl::OkStatus();
}

absl::Status XnnpackModel::BuildSegment(const GraphInfo& info, const std::vector<int>& ops,
                                        const std::vector<std::vector<int>>& consumers,
                                        const std::vector<Kind>& kind, int* failed_op) {
  const ir::Graph& graph = info.graph();
  const std::set<int> in_seg(ops.begin(), ops.end());
  // External values: what the segment reads from, or leaves to, the outside.
  std::vector<std::pair<int, bool>> externals;  // tensor, is_input
  std::set<int> seen;
  for (int i : ops) {
    for (int t : graph.ops[i].inputs) {
      if (t >= 0 && !info.IsConstant(t) && !in_seg.count(info.producer(t)) &&
          seen.insert(t).second) {
        externals.emplace_back(t, true);
      }
    }
  }
  for (int i : ops) {
    for (int t : graph.ops[i].outputs) {
      bool outside = graph_outputs_.count(t) > 0;
      for (int c : consumers[t]) outside |= !in_seg.count(c) && kind[c] != Kind::kFolded;
      if (outside && seen.insert(t).second) externals.emplace_back(t, false);
    }
  }
  xnn_subgraph_t subgraph = nullptr;
  xnn_status st = xnn_create_subgraph(static_cast<uint32_t>(externals.size()), 0, &subgraph);
  if (st != xnn_status_success) {
    return absl::InternalError(absl::StrCat("xnn_create_subgraph: ", XnnStatusName(st)));
  }
  std::unique_ptr<xnn_subgraph, decltype(&xnn_delete_subgraph)> owner(subgraph,
                                                                      xnn_delete_subgraph);
  SubgraphBuilder builder(info, subgraph, &weights_);
  std::vector<xnn_external_value> bindings;
  for (size_t k = 0; k < externals.size(); ++k) {
    RETURN_IF_ERROR(
        builder.DefineExternal(externals[k].first, static_cast<uint32_t>(k), externals[k].second));
    bindings.push_back(
        xnn_external_value{static_cast<uint32_t>(k), TensorAddress(externals[k].first)});
  }
  for (int i : ops) {
    const absl::Status s = VisitOp(info, i, &builder);
    if (!s.ok()) {
      *failed_op = i;
      return s;
    }
  }
  xnn_runtime_t runtime = nullptr;
  st = xnn_create_runtime_v2(subgraph, pool_, 0, &runtime);
  if (st != xnn_status_success) {
    return absl::InternalError(absl::StrCat("xnn_create_runtime_v2 for ",
                                            graph.OpLabel(ops.front()), "..",
                                            graph.OpLabel(ops.back()), ": ", XnnStatusName(st)));
  }
  steps_.push_back(Step{runtime, nullptr});
  // The buffers never move, so the runtime is set up once.
  st = xnn_setup_runtime(runtime, bindings.size(), bindings.data());
  if (st != xnn_status_success) {
    return absl::InternalError(absl::StrCat("xnn_setup_runtime: ", XnnStatusName(st)));
  }
  return absl::OkStatus();
}

class XnnpackBackend : public Backend {
 public:
  std::string_view Name() const override { return kName; }
  bool IsAvailable() const override { return InitializeXnnpack().ok(); }
  absl::Status SupportsOp(const ir::Graph& graph, int op_index) const override {
    if (op_index < 0 || op_index >= static_cast<int>(graph.ops.size())) {
      return absl::InvalidArgumentError(absl::StrCat("no op ", op_index));
    }
    return VisitOp(GraphInfo(graph), op_index, nullptr);
  }
  absl::StatusOr<std::unique_ptr<CompiledModel>> Compile(
      const ir::Graph& graph, const BackendOptions& options) const override {
    // If XNNPACK refuses a node the visitor accepted (a limit of this library
    // version we did not foresee), that op becomes an island and we start over.
    std::set<int> demoted;
    for (;;) {
      auto model = std::make_unique<XnnpackModel>();
      int failed_op = -1;
      const absl::Status s = model->Build(graph, options, demoted, &failed_op);
      if (s.ok()) return std::unique_ptr<CompiledModel>(std::move(model));
      if (failed_op < 0 || !demoted.insert(failed_op).second) return s;
    }
  }
};

}  // namespace

std::unique_ptr<Backend> CreateXnnpackBackend() { return std::make_unique<XnnpackBackend>(); }

}  // namespace sluice::inference::xnn
