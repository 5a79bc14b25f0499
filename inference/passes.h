// Load-time graph passes. They run once when a model is loaded; backends then
// see float32 dense constants, no DEQUANTIZE/DENSIFY, fused activations and
// only live tensors.
#ifndef SLUICE_INFERENCE_PASSES_H_
#define SLUICE_INFERENCE_PASSES_H_

#include <functional>

#include "absl/status/status.h"
#include "inference/ir.h"

namespace sluice::inference {

// Evaluates op `op_index` whose inputs are all constants, filling the data of
// its outputs (which the caller marks constant). Provided by the reference
// kernels (see model.cc); null = fold only DEQUANTIZE and DENSIFY.
using ConstantEvaluator = std::function<absl::Status(ir::Graph& graph, int op_index)>;

// DENSIFY of sparse constants and DEQUANTIZE (fp16/int8/uint8 -> fp32) of
// constants become plain fp32 constants; other ops whose inputs are all
// constant are evaluated with `evaluator` when given.
absl::Status FoldConstants(ir::Graph& graph, const ConstantEvaluator& evaluator = nullptr);

// A RELU/RELU6 (or fused-activation-less producer followed by one) whose
// producer has a fused-activation slot set to NONE and no other consumer is
// folded into the producer.
absl::Status FuseActivations(ir::Graph& graph);

// STRIDED_SLICE ops that copy their whole input become RESHAPE (a view).
absl::Status SimplifyViews(ir::Graph& graph);

// Drops ops whose outputs nobody uses and tensors no op or graph port uses,
// renumbering tensors.
absl::Status RemoveDeadCode(ir::Graph& graph);

// All of the above in order, then Graph::Validate(). Afterwards: no DEQUANTIZE
// or DENSIFY; constants are dense; RESHAPE ops have exactly one input (the
// target shape is the output tensor's); every tensor is used.
absl::Status RunLoadPasses(ir::Graph& graph, const ConstantEvaluator& evaluator = nullptr);

}  // namespace sluice::inference

#endif  // SLUICE_INFERENCE_PASSES_H_
