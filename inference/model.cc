#include "inference/model.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "inference/model_stats.h"
#include "inference/passes.h"
#include "inference/reference/reference_kernels.h"
#include "inference/tflite/reader.h"
#include "util/status_macros.h"

namespace sluice::inference {
namespace {

std::vector<TensorInfo> Infos(const ir::Graph& g, const std::vector<int>& ids) {
  std::vector<TensorInfo> v;
  for (int t : ids) v.push_back({g.tensors[t].name, g.tensors[t].dtype, g.tensors[t].shape});
  return v;
}

}  // namespace

absl::Status EvaluateConstantOp(ir::Graph& graph, int op_index) {
  ir::Op& op = graph.ops[op_index];
  std::vector<void*> data(graph.tensors.size(), nullptr);
  for (int t : op.inputs) {
    if (t >= 0) data[t] = graph.tensors[t].data.data();
  }
  for (int t : op.outputs) {
    ir::Tensor& out = graph.tensors[t];
    out.data.assign(out.byte_size(), 0);
    data[t] = out.data.data();
  }
  ASSIGN_OR_RETURN(reference::Kernel kernel, reference::PrepareKernel(graph, op_index, data));
  kernel();
  return absl::OkStatus();
}

Runner::Runner(std::shared_ptr<const ir::Graph> graph, std::unique_ptr<CompiledModel> compiled)
    : graph_(std::move(graph)), compiled_(std::move(compiled)) {}

absl::StatusOr<Model> Model::LoadFromBuffer(std::string_view bytes, std::string_view name) {
  ASSIGN_OR_RETURN(ir::Graph g, tflite::ReadModel(bytes, name));
  Model m;
  m.file_op_count_ = static_cast<int>(g.ops.size());
  m.element_ops_ = ElementOps(g);
  RETURN_IF_ERROR(RunLoadPasses(g, EvaluateConstantOp));
  // Prepare phase of the oracle: every op must be runnable by the reference
  // kernels, so shape/option errors surface at load time with the op named.
  for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
    RETURN_IF_ERROR(reference::CheckOp(g, i));
  }
  m.inputs_ = Infos(g, g.inputs);
  m.outputs_ = Infos(g, g.outputs);
  m.graph_ = std::make_shared<const ir::Graph>(std::move(g));
  m.batch1_graph_ = m.graph_;
  return m;
}

absl::StatusOr<Model> Model::WithBatch(int batch) const {
  if (batch < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(graph_->source, ": batch must be >= 1, got ", batch));
  }
  Model m = *this;
  m.batch_ = batch;
  if (batch == 1) {
    m.graph_ = batch1_graph_;
  } else {
    ir::Graph g = *batch1_graph_;  // copies the constants too (once per re-batched model)
    RETURN_IF_ERROR(Rebatch(g, batch));
    // The kernels' own checks again, on the new shapes (a bug in Rebatch's
    // rules must not reach a backend).
    for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
      RETURN_IF_ERROR(reference::CheckOp(g, i));
    }
    m.graph_ = std::make_shared<const ir::Graph>(std::move(g));
  }
  m.inputs_ = Infos(*m.graph_, m.graph_->inputs);
  m.outputs_ = Infos(*m.graph_, m.graph_->outputs);
  return m;
}

absl::StatusOr<Model> Model::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open model file ", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return LoadFromBuffer(bytes.str(), path);
}

absl::StatusOr<std::unique_ptr<Runner>> Model::CreateRunner(std::string_view backend,
                                                            int threads) const {
  BackendOptions options;
  options.num_threads = threads;
  return CreateRunner(backend, options);
}

absl::StatusOr<std::unique_ptr<Runner>> Model::CreateRunner(std::string_view backend,
                                                            const BackendOptions& options) const {
  if (options.num_threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("threads must be >= 1, got ", options.num_threads));
  }
  if (options.batch < 1) {
    return absl::InvalidArgumentError(absl::StrCat("batch must be >= 1, got ", options.batch));
  }
  if (options.batch != 1 && options.batch != batch_) {
    ASSIGN_OR_RETURN(Model m, WithBatch(options.batch));
    return m.CreateRunner(backend, options);
  }
  ASSIGN_OR_RETURN(const Backend* b, SelectBackend(backend));
  ASSIGN_OR_RETURN(std::unique_ptr<CompiledModel> compiled, b->Compile(*graph_, options));
  return std::make_unique<Runner>(graph_, std::move(compiled));
}

}  // namespace sluice::inference
