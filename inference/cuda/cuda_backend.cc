// The `cuda` backend (cuda_backend.h): arena, constants, one CudaKernel per
// op, host islands on the reference kernels, CUDA-graph capture and replay.
#include "inference/cuda/cuda_backend.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"
#include "inference/cuda/cuda_ops.h"
#include "inference/planner.h"
#include "inference/reference/reference_kernels.h"
#include "util/status_macros.h"

namespace sluice::inference::cuda {
namespace {

constexpr size_t kDeviceAlignment = 256;

size_t AlignUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

class CudaModel final : public CudaCompiledModel, private CudaOpContext {
 public:
  ~CudaModel() override {
    // Best effort: everything queued finishes before its memory goes.
    if (stream_ != nullptr) cudaStreamSynchronize(stream_);
    if (graph_exec_ != nullptr) cudaGraphExecDestroy(graph_exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
    for (void* p : device_blocks_) cudaFree(p);
    for (void* p : pinned_blocks_) cudaFreeHost(p);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  absl::Status Init(const ir::Graph& g) {
    g_ = &g;
    SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                                "cuda backend: cudaStreamCreateWithFlags");
    MemoryPlan plan = PlanMemory(g);
    const size_t n_ops = g.ops.size(), n_tensors = g.tensors.size();

    // Where each op runs: aliased views cost nothing; the cuda kernels where
    // they can; else the reference kernels on the host (which must accept it:
    // their verdict names the op when a model is broken).
    placement_.assign(n_ops, "cuda");
    std::vector<bool> island(n_ops, false);
    for (size_t i = 0; i < n_ops; ++i) {
      if (plan.op_is_alias[i]) {
        placement_[i] = "view";
        continue;
      }
      const absl::Status s = CheckCudaOp(g, static_cast<int>(i));
      if (s.ok()) continue;
      RETURN_IF_ERROR(reference::CheckOp(g, static_cast<int>(i)));
      island[i] = true;
      placement_[i] = "reference";
      island_reasons_.emplace_back(s.message());
    }
    const bool any_island = !island_reasons_.empty();

    // Fusion (cuda_ops.h PlanFusion): PADs and elementwise consumers run inside
    // a conv's kernel, launched where its chain ends; the arena is planned for
    // the fused graph, whose lifetimes differ (no intermediates; the conv's
    // inputs live until it runs).
    std::vector<bool> on_device(n_ops);
    for (size_t i = 0; i < n_ops; ++i) on_device[i] = !island[i] && !plan.op_is_alias[i];
    fusion_ = PlanFusion(g, on_device);
    bool any_fused = false;
    for (size_t i = 0; i < n_ops; ++i) {
      if (fusion_.fused_into[i] < 0) continue;
      placement_[i] = absl::StrCat("cuda (fused into op ", fusion_.fused_into[i], ")");
      any_fused = true;
    }
    if (any_fused) plan = PlanMemory(FusedGraphForPlanning(g, fusion_));

    // Activations: one device arena (and its host mirror for islands).
    const size_t arena_bytes = std::max(AlignUp(plan.arena_bytes, kArenaAlignment), kArenaAlignment);
    constexpr size_t kMaxArena = size_t{4} << 30;
    if (arena_bytes > kMaxArena) {
      return absl::ResourceExhaustedError(absl::StrCat(g.source, ": activations need ",
                                                       arena_bytes, " bytes (limit ", kMaxArena, ")"));
    }
    ASSIGN_OR_RETURN(uint8_t * arena, DeviceAlloc(arena_bytes, "activation arena"));
    SLUICE_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(arena, 0, arena_bytes, stream_),
                                "cuda backend: clearing the arena");
    uint8_t* host_arena = nullptr;
    if (any_island) {
      ASSIGN_OR_RETURN(host_arena, PinnedAlloc(arena_bytes, "host mirror of the arena"));
      std::fill(host_arena, host_arena + arena_bytes, 0);
    }

    // Constants read by device ops, or returned as outputs: one upload.
    std::set<int> device_constants;
    for (size_t i = 0; i < n_ops; ++i) {
      if (island[i] || plan.op_is_alias[i]) continue;
      for (int t : g.ops[i].inputs)
        if (t >= 0 && g.tensors[t].is_constant) device_constants.insert(t);
    }
    for (int t : g.outputs)
      if (g.tensors[t].is_constant) device_constants.insert(t);
    std::vector<size_t> const_offset(n_tensors, 0);
    size_t const_bytes = 0;
    for (int t : device_constants) {
      const_offset[t] = const_bytes;
      const_bytes += AlignUp(std::max<size_t>(g.tensors[t].data.size(), 1), kDeviceAlignment);
    }
    uint8_t* constants = nullptr;
    if (const_bytes > 0) {
      ASSIGN_OR_RETURN(constants, DeviceAlloc(const_bytes, "constants"));
    }

    dev_.assign(n_tensors, nullptr);
    host_.assign(n_tensors, nullptr);
    for (size_t t = 0; t < n_tensors; ++t) {
      const ir::Tensor& tensor = g.tensors[t];
      if (tensor.is_constant) {
        host_[t] = const_cast<uint8_t*>(tensor.data.data());
        if (device_constants.count(static_cast<int>(t))) {
          dev_[t] = constants + const_offset[t];
          if (!tensor.data.empty()) {
            SLUICE_CUDA_RETURN_IF_ERROR(
                cudaMemcpyAsync(dev_[t], tensor.data.data(), tensor.data.size(),
                                cudaMemcpyHostToDevice, stream_),
                absl::StrCat("cuda backend: upload of constant '", tensor.name, "'"));
          }
        }
      } else if (plan.offsets[t] >= 0) {
        dev_[t] = arena + plan.offsets[t];
        if (host_arena != nullptr) host_[t] = host_arena + plan.offsets[t];
      }
    }
    // The uploads read the graph's memory: finish them before Prepare.
    SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_), "cuda backend: constant upload");

    for (const int op : fusion_.order) {  // fused ops launch inside their head
      const size_t i = static_cast<size_t>(op);
      if (plan.op_is_alias[i]) continue;
      Step step;
      step.op = op;
      if (island[i]) {
        step.island = true;
        ASSIGN_OR_RETURN(step.host, reference::PrepareKernel(g, op, host_));
        for (int t : g.ops[i].inputs)
          if (t >= 0 && !g.tensors[t].is_constant) step.downloads.push_back(t);
        step.uploads = g.ops[i].outputs;
      } else if (fusion_.fusion[i].any()) {
        ASSIGN_OR_RETURN(step.kernel, PrepareFusedConvOp(g, op, *this, fusion_.fusion[i]));
      } else {
        ASSIGN_OR_RETURN(step.kernel, PrepareCudaOp(g, op, *this));
      }
      steps_.push_back(std::move(step));
    }

    // Inputs and outputs: pinned host buffers at fixed addresses.
    auto io = [&](int t, std::vector<Io>& dev_io) -> absl::StatusOr<IoTensor> {
      const ir::Tensor& tensor = g.tensors[t];
      const size_t bytes = tensor.byte_size();
      ASSIGN_OR_RETURN(uint8_t * host, PinnedAlloc(std::max<size_t>(bytes, 1), "an input/output"));
      std::fill(host, host + std::max<size_t>(bytes, 1), 0);
      if (tensor.is_constant) std::copy(tensor.data.begin(), tensor.data.end(), host);
      dev_io.push_back({host, dev_[t], bytes, tensor.is_constant});
      return IoTensor{tensor.name, tensor.dtype, tensor.shape, host, bytes};
    };
    for (int t : g.inputs) {
      ASSIGN_OR_RETURN(IoTensor v, io(t, in_io_));
      inputs_.push_back(std::move(v));
    }
    for (int t : g.outputs) {
      ASSIGN_OR_RETURN(IoTensor v, io(t, out_io_));
      outputs_.push_back(std::move(v));
    }

    if (!any_island && !steps_.empty()) RETURN_IF_ERROR(Capture());
    SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_), "cuda backend: compile");
    return absl::OkStatus();
  }

  absl::Status Invoke() override {
    for (size_t i = 0; i < in_io_.size(); ++i) {
      const Io& v = in_io_[i];
      if (v.bytes == 0) continue;
      SLUICE_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(v.dev, v.host, v.bytes, cudaMemcpyHostToDevice, stream_),
          absl::StrCat("cuda backend: upload of input '", inputs_[i].name, "'"));
    }
    RETURN_IF_ERROR(RunOps(stream_));
    for (size_t i = 0; i < out_io_.size(); ++i) {
      const Io& v = out_io_[i];
      if (v.bytes == 0 || v.constant) continue;
      SLUICE_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(v.host, v.dev, v.bytes, cudaMemcpyDeviceToHost, stream_),
          absl::StrCat("cuda backend: download of output '", outputs_[i].name, "'"));
    }
    SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_), "cuda backend: Invoke");
    return absl::OkStatus();
  }

  absl::Status InvokeOnStream(cudaStream_t stream) override { return RunOps(stream); }

  std::string_view BackendName() const override { return "cuda"; }
  std::vector<std::string> OpPlacement() const override { return placement_; }
  void* DeviceInput(int i) const override {
    return i >= 0 && i < static_cast<int>(in_io_.size()) ? in_io_[i].dev : nullptr;
  }
  void* DeviceOutput(int i) const override {
    return i >= 0 && i < static_cast<int>(out_io_.size()) ? out_io_[i].dev : nullptr;
  }
  cudaStream_t stream() const override { return stream_; }
  bool UsesCudaGraph() const override { return graph_exec_ != nullptr; }
  std::vector<std::string> IslandReasons() const override { return island_reasons_; }

 private:
  struct Step {
    int op = -1;
    bool island = false;
    CudaKernel kernel;                  // device op
    reference::Kernel host;             // island
    std::vector<int> downloads, uploads;  // island: tensors copied around it
  };
  struct Io {
    void* host;
    void* dev;
    size_t bytes;
    bool constant;
  };

  // --- CudaOpContext ---
  void* Device(int t) const override {
    return t >= 0 && t < static_cast<int>(dev_.size()) ? dev_[t] : nullptr;
  }
  absl::StatusOr<void*> UploadConstant(const void* host, size_t bytes) override {
    ASSIGN_OR_RETURN(uint8_t * p, DeviceAlloc(std::max<size_t>(bytes, 1), "a prepared constant"));
    if (bytes > 0) {
      SLUICE_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(p, host, bytes, cudaMemcpyHostToDevice, stream_),
          "cuda backend: upload of a prepared constant");
      // `host` may be the caller's temporary: finish the copy now (compile time).
      SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_),
                                  "cuda backend: upload of a prepared constant");
    }
    return p;
  }
  absl::StatusOr<void*> Scratch(size_t bytes) override {
    ASSIGN_OR_RETURN(uint8_t * p, DeviceAlloc(std::max<size_t>(bytes, 1), "op scratch"));
    return p;
  }

  absl::StatusOr<uint8_t*> DeviceAlloc(size_t bytes, const char* what) {
    void* p = nullptr;
    SLUICE_CUDA_RETURN_IF_ERROR(cudaMalloc(&p, bytes),
                                absl::StrCat("cuda backend: cudaMalloc(", bytes, ") for ", what,
                                             " of ", g_->source));
    device_blocks_.push_back(p);
    return static_cast<uint8_t*>(p);
  }
  absl::StatusOr<uint8_t*> PinnedAlloc(size_t bytes, const char* what) {
    void* p = nullptr;
    SLUICE_CUDA_RETURN_IF_ERROR(cudaMallocHost(&p, bytes),
                                absl::StrCat("cuda backend: cudaMallocHost(", bytes, ") for ",
                                             what, " of ", g_->source));
    pinned_blocks_.push_back(p);
    return static_cast<uint8_t*>(p);
  }

  // Records every op's launch into one graph on the model's stream.
  absl::Status Capture() {
    SLUICE_CUDA_RETURN_IF_ERROR(
        cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
        "cuda backend: cudaStreamBeginCapture");
    absl::Status launched = absl::OkStatus();
    for (const Step& step : steps_) {
      launched = CudaStatus(step.kernel(stream_), g_->OpLabel(step.op));
      if (!launched.ok()) break;
    }
    const cudaError_t end = cudaStreamEndCapture(stream_, &graph_);
    RETURN_IF_ERROR(launched);
    SLUICE_CUDA_RETURN_IF_ERROR(end, "cuda backend: cudaStreamEndCapture");
    SLUICE_CUDA_RETURN_IF_ERROR(cudaGraphInstantiate(&graph_exec_, graph_, 0),
                                "cuda backend: cudaGraphInstantiate");
    return absl::OkStatus();
  }

  absl::Status RunOps(cudaStream_t s) {
    if (graph_exec_ != nullptr) {
      SLUICE_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(graph_exec_, s), "cuda backend: cudaGraphLaunch");
      return absl::OkStatus();
    }
    for (const Step& step : steps_) {
      if (!step.island) {
        RETURN_IF_ERROR(CudaStatus(step.kernel(s), g_->OpLabel(step.op)));
        continue;
      }
      for (int t : step.downloads) RETURN_IF_ERROR(Copy(t, cudaMemcpyDeviceToHost, s));
      SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s),
                                  absl::StrCat("cuda backend: before ", g_->OpLabel(step.op)));
      step.host();
      for (int t : step.uploads) RETURN_IF_ERROR(Copy(t, cudaMemcpyHostToDevice, s));
    }
    return absl::OkStatus();
  }

  // Between a tensor's arena bytes and their host mirror.
  absl::Status Copy(int t, cudaMemcpyKind kind, cudaStream_t s) {
    const size_t bytes = g_->tensors[t].byte_size();
    if (bytes == 0 || dev_[t] == host_[t]) return absl::OkStatus();
    void* dst = kind == cudaMemcpyDeviceToHost ? host_[t] : dev_[t];
    const void* src = kind == cudaMemcpyDeviceToHost ? dev_[t] : host_[t];
    SLUICE_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes, kind, s),
                                absl::StrCat("cuda backend: copy of '", g_->tensors[t].name,
                                             "' around a host island"));
    return absl::OkStatus();
  }

  const ir::Graph* g_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
  std::vector<void*> device_blocks_, pinned_blocks_;
  std::vector<void*> dev_, host_;  // per tensor
  std::vector<Step> steps_;
  std::vector<Io> in_io_, out_io_;
  std::vector<std::string> placement_, island_reasons_;
  FusionPlan fusion_;
};

class CudaBackend : public Backend {
 public:
  std::string_view Name() const override { return "cuda"; }
  bool IsAvailable() const override {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  }
  absl::Status SupportsOp(const ir::Graph& graph, int op_index) const override {
    return CheckCudaOp(graph, op_index);
  }
  absl::StatusOr<std::unique_ptr<CompiledModel>> Compile(
      const ir::Graph& graph, const BackendOptions& options) const override {
    if (options.num_threads < 1) return absl::InvalidArgumentError("num_threads must be >= 1");
    if (!IsAvailable()) {
      return absl::UnavailableError(
          absl::StrCat("cuda backend: no CUDA device to compile ", graph.source, " for"));
    }
    auto model = std::make_unique<CudaModel>();
    RETURN_IF_ERROR(model->Init(graph));
    return std::unique_ptr<CompiledModel>(std::move(model));
  }
};

}  // namespace

std::unique_ptr<Backend> CreateCudaBackend() { return std::make_unique<CudaBackend>(); }

}  // namespace sluice::inference::cuda
