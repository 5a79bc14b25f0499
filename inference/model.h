// A loaded model, usable without any graph framework:
//
//   ASSIGN_OR_RETURN(Model model, Model::Load("face_detection_short_range.tflite"));
//   ASSIGN_OR_RETURN(auto runner, model.CreateRunner("auto", /*threads=*/2));
//   std::copy(pixels, pixels + n, runner->Inputs()[0].f32());
//   RETURN_IF_ERROR(runner->Invoke());
//   const float* scores = runner->Outputs()[1].f32();
//
// Load() reads and verifies the file and runs the load-time passes (constant
// folding, activation fusion, views, dead code). A Model is cheap to copy and
// immutable; each Runner owns its buffers, so one model can feed many runners
// (one per thread).
//
// Batch: WithBatch(n) (or BackendOptions::batch) gives the same model with n
// items per run: every input, output and activation gets dim 0 = n (the
// Rebatch pass in passes.h; models whose ops mix the batch, e.g. the face
// attention model's custom ops, are refused with the op named). Item b of
// an input/output is the b-th slice of bytes / n.
#ifndef SLUICE_INFERENCE_MODEL_H_
#define SLUICE_INFERENCE_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "inference/backend.h"
#include "inference/ir.h"

namespace sluice::inference {

struct TensorInfo {
  std::string name;
  ir::DType dtype = ir::DType::kFloat32;
  ir::Shape shape;
};

class Runner {
 public:
  Runner(std::shared_ptr<const ir::Graph> graph, std::unique_ptr<CompiledModel> compiled);

  const std::vector<IoTensor>& Inputs() const { return compiled_->Inputs(); }
  const std::vector<IoTensor>& Outputs() const { return compiled_->Outputs(); }
  absl::Status Invoke() { return compiled_->Invoke(); }
  std::string_view backend_name() const { return compiled_->BackendName(); }
  std::vector<std::string> OpPlacement() const { return compiled_->OpPlacement(); }
  std::vector<OpTime> OpTimes() const { return compiled_->OpTimes(); }

 private:
  std::shared_ptr<const ir::Graph> graph_;  // the compiled model points into it
  std::unique_ptr<CompiledModel> compiled_;
};

class Model {
 public:
  static absl::StatusOr<Model> Load(const std::string& path);
  // `name` is used in messages.
  static absl::StatusOr<Model> LoadFromBuffer(std::string_view bytes, std::string_view name);

  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  // The graph after the load-time passes.
  const ir::Graph& graph() const { return *graph_; }
  // Operator count in the file, before folding (for reports).
  int file_op_count() const { return file_op_count_; }
  // Float operations besides the multiply-accumulates, counted on the file's
  // graph as MODELS_INVENTORY.md does (model_stats.h OpElementOps); the FLOP
  // count is 2 * ComputeStats(graph()).macs + element_ops().
  int64_t element_ops() const { return element_ops_; }

  // Items per run of this model (1 for a loaded file).
  int batch() const { return batch_; }
  // This model re-batched to `batch` >= 1 items per run (inputs(), outputs()
  // and graph() then show it); from any batch, as the re-batching starts from
  // the loaded batch-1 graph. InvalidArgument for batch < 1, Unimplemented
  // naming the op for a model that cannot be re-batched.
  absl::StatusOr<Model> WithBatch(int batch) const;

  // `backend`: see SelectBackend(); `threads` >= 1.
  absl::StatusOr<std::unique_ptr<Runner>> CreateRunner(std::string_view backend = "auto",
                                                       int threads = 1) const;
  // Same, with every backend option (e.g. profile_ops, batch).
  absl::StatusOr<std::unique_ptr<Runner>> CreateRunner(std::string_view backend,
                                                       const BackendOptions& options) const;

 private:
  std::shared_ptr<const ir::Graph> graph_;
  std::shared_ptr<const ir::Graph> batch1_graph_;  // as loaded (== graph_ at batch 1)
  std::vector<TensorInfo> inputs_, outputs_;
  int file_op_count_ = 0;
  int64_t element_ops_ = 0;
  int batch_ = 1;
};

// Evaluates constant-input ops with the reference kernels (for FoldConstants).
absl::Status EvaluateConstantOp(ir::Graph& graph, int op_index);

}  // namespace sluice::inference

#endif  // SLUICE_INFERENCE_MODEL_H_
