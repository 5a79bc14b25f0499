// Family dispatch of the cuda backend's ops (cuda_ops.h): conv and custom ops
// go to their families (cuda_ops_conv.cc, cuda_ops_custom.cc, or their
// *_missing.cc fallbacks while those are not built), everything else to the
// elementwise family.
#include "absl/strings/str_cat.h"
#include "inference/cuda/cuda_ops.h"

namespace sluice::inference::cuda {
namespace {

absl::Status CheckIndex(const ir::Graph& graph, int op_index) {
  if (op_index < 0 || op_index >= static_cast<int>(graph.ops.size())) {
    return absl::InvalidArgumentError(absl::StrCat(graph.source, ": no op ", op_index));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckCudaOp(const ir::Graph& graph, int op_index) {
  if (absl::Status s = CheckIndex(graph, op_index); !s.ok()) return s;
  const ir::OpType type = graph.ops[op_index].type;
  if (IsConvFamilyOp(type)) return CheckConvFamilyOp(graph, op_index);
  if (IsCustomFamilyOp(type)) return CheckCustomFamilyOp(graph, op_index);
  return CheckElementwiseFamilyOp(graph, op_index);
}

absl::StatusOr<CudaKernel> PrepareCudaOp(const ir::Graph& graph, int op_index,
                                         CudaOpContext& context) {
  if (absl::Status s = CheckIndex(graph, op_index); !s.ok()) return s;
  const ir::OpType type = graph.ops[op_index].type;
  if (IsConvFamilyOp(type)) return PrepareConvFamilyOp(graph, op_index, context);
  if (IsCustomFamilyOp(type)) return PrepareCustomFamilyOp(graph, op_index, context);
  return PrepareElementwiseFamilyOp(graph, op_index, context);
}

}  // namespace sluice::inference::cuda
