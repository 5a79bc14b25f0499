// The reference kernels: plain, obviously-correct loops for every op of the IR
// (NHWC, float32; int32 for the elementwise ops). They are the oracle other
// backends are tested against, and the fallback other backends use for ops they
// cannot run themselves.
//
// Two phases, as in tflite-micro: PrepareKernel validates shapes, dtypes and
// options once and binds the tensor addresses; the returned kernel checks
// nothing when it runs.
#ifndef SLUICE_INFERENCE_REFERENCE_REFERENCE_KERNELS_H_
#define SLUICE_INFERENCE_REFERENCE_REFERENCE_KERNELS_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "inference/backend.h"
#include "inference/ir.h"

namespace sluice::inference::reference {

using Kernel = std::function<void()>;

// Everything PrepareKernel checks, without binding memory: OK if the reference
// kernels can run op `op_index` of `graph`, else InvalidArgument/Unimplemented
// naming the op.
absl::Status CheckOp(const ir::Graph& graph, int op_index);

// `tensor_data[t]` is the address of tensor t (for constants, usually
// graph.tensors[t].data.data()); entries of tensors the op does not touch may
// be null. The addresses must stay valid while the kernel is used. An op whose
// output address equals its input's (an aliased RESHAPE) does nothing.
absl::StatusOr<Kernel> PrepareKernel(const ir::Graph& graph, int op_index,
                                     const std::vector<void*>& tensor_data);

// The `reference` backend: one arena (inference/planner.h), one kernel per op.
std::unique_ptr<Backend> CreateReferenceBackend();

}  // namespace sluice::inference::reference

#endif  // SLUICE_INFERENCE_REFERENCE_REFERENCE_KERNELS_H_
