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

// Re-batches a batch-1 graph (after RunLoadPasses) to `batch` >= 1: the
// leading dimension of every tensor that carries the batch becomes `batch`.
// The batch dimension is recognised by propagation, not by name: every graph
// input must have dim 0 == 1 and is batched; an op's outputs are batched when
// one of its inputs is, and each op type states how its batched inputs map to
// its outputs (NHWC ops, elementwise ops broadcasting at equal rank, MEAN /
// CONCATENATION / PAD / SOFTMAX away from axis 0, RESHAPE and
// FULLY_CONNECTED that keep dim 0 as a 1 of its own, STRIDED_SLICE taking all
// of dim 0). Constants are never batched: they broadcast, and shape-bearing
// ones (RESIZE size, MEAN axes, PAD paddings, STRIDED_SLICE begin/end) stay
// valid because dim 0 is checked to be untouched (STRIDED_SLICE gets
// begin/end mask bit 0 set instead of its constants changed; RESHAPE's shape
// input, already dropped by SimplifyViews, is dropped). Any op that would mix
// the batch into other dimensions (a RESHAPE folding dim 0, FULLY_CONNECTED
// with keep_num_dims=false on more than one row per item, slicing or padding
// dim 0, CONCATENATION on axis 0, MediaPipe's batch-1 custom ops) makes this
// fail with Unimplemented naming the op; `graph` is then unchanged.
// Batch 1 changes nothing. Ends with Graph::Validate().
absl::Status Rebatch(ir::Graph& graph, int batch);

}  // namespace sluice::inference

#endif  // SLUICE_INFERENCE_PASSES_H_
