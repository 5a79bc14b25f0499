// The `reference` backend: one arena laid out by the memory planner, one
// prepared reference kernel per op, run in graph order on the calling thread.
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "inference/planner.h"
#include "inference/reference/reference_kernels.h"
#include "util/status_macros.h"

namespace sluice::inference::reference {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

class ReferenceCompiledModel : public CompiledModel {
 public:
  absl::Status Init(const ir::Graph& g) {
    const MemoryPlan plan = PlanMemory(g);
    const size_t bytes =
        (plan.arena_bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
    constexpr size_t kMaxArena = size_t{4} << 30;  // far above any real model; stops absurd files
    if (bytes > kMaxArena) {
      return absl::ResourceExhaustedError(
          absl::StrCat(g.source, ": activations need ", bytes, " bytes (limit ", kMaxArena, ")"));
    }
    arena_.reset(static_cast<uint8_t*>(
        std::aligned_alloc(kArenaAlignment, std::max(bytes, kArenaAlignment))));
    if (!arena_)
      return absl::ResourceExhaustedError(
          absl::StrCat(g.source, ": cannot allocate a ", bytes, "-byte arena"));
    std::memset(arena_.get(), 0, bytes);
    std::vector<void*> data(g.tensors.size(), nullptr);
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      const ir::Tensor& tensor = g.tensors[t];
      if (tensor.is_constant) {
        data[t] = const_cast<uint8_t*>(tensor.data.data());
      } else if (plan.offsets[t] >= 0) {
        data[t] = arena_.get() + plan.offsets[t];
      }
    }
    placement_.assign(g.ops.size(), "reference");
    for (size_t i = 0; i < g.ops.size(); ++i) {
      if (plan.op_is_alias[i]) {
        placement_[i] = "view";
        continue;
      }
      ASSIGN_OR_RETURN(Kernel k, PrepareKernel(g, static_cast<int>(i), data));
      kernels_.push_back(std::move(k));
    }
    auto io = [&](int t) {
      const ir::Tensor& tensor = g.tensors[t];
      IoTensor v{tensor.name, tensor.dtype, tensor.shape, data[t], tensor.byte_size()};
      if (tensor.is_constant) {
        // A constant output still gets a buffer of its own (writable by the caller).
        owned_.emplace_back(tensor.data);
        v.data = owned_.back().data();
      }
      return v;
    };
    for (int t : g.inputs) inputs_.push_back(io(t));
    for (int t : g.outputs) outputs_.push_back(io(t));
    return absl::OkStatus();
  }

  absl::Status Invoke() override {
    for (const Kernel& k : kernels_) k();
    return absl::OkStatus();
  }
  std::string_view BackendName() const override { return "reference"; }
  std::vector<std::string> OpPlacement() const override { return placement_; }

 private:
  std::unique_ptr<uint8_t, FreeDeleter> arena_;
  std::vector<Kernel> kernels_;
  std::vector<std::string> placement_;
  std::vector<std::vector<uint8_t>> owned_;
};

class ReferenceBackend : public Backend {
 public:
  std::string_view Name() const override { return "reference"; }
  absl::Status SupportsOp(const ir::Graph& graph, int op_index) const override {
    return CheckOp(graph, op_index);
  }
  absl::StatusOr<std::unique_ptr<CompiledModel>> Compile(
      const ir::Graph& graph, const BackendOptions& options) const override {
    if (options.num_threads < 1) return absl::InvalidArgumentError("num_threads must be >= 1");
    auto model = std::make_unique<ReferenceCompiledModel>();
    RETURN_IF_ERROR(model->Init(graph));
    return std::unique_ptr<CompiledModel>(std::move(model));
  }
};

}  // namespace

std::unique_ptr<Backend> CreateReferenceBackend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace sluice::inference::reference
