// The backend interface: a backend compiles an ir::Graph (after the load-time
// passes) into a CompiledModel that runs it on fixed buffers. One implementation
// per backend, each its own CMake target: reference (plain loops, the oracle),
// xnnpack, cuda. A backend that cannot run some op itself hands that island to
// the reference kernels (inference/reference/reference_kernels.h): first ask
// SupportsOp for every op, then compile — "one visitor, used twice".
//
// Lifetimes: Compile() keeps pointers into `graph` (constant data); the graph
// must outlive the CompiledModel. Model/Runner (inference/model.h) take care of it.
#ifndef SLUICE_INFERENCE_BACKEND_H_
#define SLUICE_INFERENCE_BACKEND_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "inference/ir.h"

namespace sluice::inference {

struct BackendOptions {
  int num_threads = 1;  // CPU threads the backend may use (>= 1)
  // Per-op profiling (`sluice bench-model --per-op`): a backend that supports
  // it runs every op as its own step and times it (CompiledModel::OpTimes);
  // slower than the normal build (no fusion across ops), for finding hot spots.
  bool profile_ops = false;
  // Items per run (>= 1). Applied by Model::CreateRunner, which compiles the
  // model re-batched to this (Model::WithBatch) when it is not 1; 1 runs the
  // Model as it is (one made by WithBatch keeps its batch). Backends get a
  // graph with the batch in its shapes and never read this field.
  int batch = 1;
};

// Per-op timing of a profiled CompiledModel (BackendOptions::profile_ops).
struct OpTime {
  int op = -1;          // op index in the compiled graph (first op of the step)
  std::vector<int> ops;  // every op the step runs (fused ones too), `op` first
  int runs = 0;         // Invoke() calls timed
  double min_ms = 0;    // fastest run of this step
  double total_ms = 0;  // summed over the runs
};

// One input or output of a compiled model. `data` is host memory owned by the
// CompiledModel, at a fixed address for its whole life: write inputs, Invoke(),
// read outputs. Invoke() never changes the inputs.
struct IoTensor {
  std::string name;
  ir::DType dtype = ir::DType::kFloat32;
  ir::Shape shape;
  void* data = nullptr;
  size_t bytes = 0;

  float* f32() const { return static_cast<float*>(data); }
  int32_t* i32() const { return static_cast<int32_t*>(data); }
  int64_t num_elements() const { return ir::NumElements(shape); }
};

class CompiledModel {
 public:
  virtual ~CompiledModel() = default;
  CompiledModel() = default;
  CompiledModel(const CompiledModel&) = delete;
  CompiledModel& operator=(const CompiledModel&) = delete;

  // In the order of the graph's inputs / outputs.
  const std::vector<IoTensor>& Inputs() const { return inputs_; }
  const std::vector<IoTensor>& Outputs() const { return outputs_; }

  // Runs the graph once. Everything was validated at compile time; an error
  // here is a runtime failure of the device/library, never of the model.
  virtual absl::Status Invoke() = 0;

  virtual std::string_view BackendName() const = 0;
  // For each op of the compiled graph (same indices), which kernels run it:
  // the backend's name, "reference" for delegated islands, or "view" for ops
  // that cost nothing (aliased reshapes).
  virtual std::vector<std::string> OpPlacement() const = 0;
  // With BackendOptions::profile_ops: one entry per timed step, in execution
  // order. Empty when the backend does not profile.
  virtual std::vector<OpTime> OpTimes() const { return {}; }

 protected:
  std::vector<IoTensor> inputs_;
  std::vector<IoTensor> outputs_;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view Name() const = 0;
  // False when the backend is built but cannot run here (e.g. no CUDA device).
  virtual bool IsAvailable() const { return true; }
  // OK if this backend runs op `op_index` of `graph` with its own kernels;
  // otherwise a status saying why (Compile then delegates it to reference).
  virtual absl::Status SupportsOp(const ir::Graph& graph, int op_index) const = 0;
  // Validates every shape, type and option once and prepares all buffers.
  virtual absl::StatusOr<std::unique_ptr<CompiledModel>> Compile(
      const ir::Graph& graph, const BackendOptions& options) const = 0;
};

// --- Registry (inference/backend_registry.cc, part of sluice_inference) ----
// The backends built into this binary are registered on first use from one
// explicit list (no static initialisers); tests may add their own.

// Adds or replaces (same Name()) a backend.
void RegisterBackend(std::unique_ptr<Backend> backend);
// nullptr when no backend of that name is built.
const Backend* FindBackend(std::string_view name);
// Names of the built backends, best first (cuda, xnnpack, reference).
std::vector<std::string> BuiltBackendNames();
// `name` = "reference" | "xnnpack" | "cuda" | ... ; "" or "auto" picks the
// best built and available one. NotFound lists what is built.
absl::StatusOr<const Backend*> SelectBackend(std::string_view name);

}  // namespace sluice::inference

#endif  // SLUICE_INFERENCE_BACKEND_H_
