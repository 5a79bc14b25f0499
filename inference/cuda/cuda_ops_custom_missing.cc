// Stand-in for the custom-op family (cuda_ops_custom.cc, not in this tree
// yet): CMake compiles this file only while that one is missing. MediaPipe's
// custom ops answer "unsupported", so the backend runs them on the reference
// kernels as host islands and the dispatch still links.
#include "absl/strings/str_cat.h"
#include "inference/cuda/cuda_ops.h"

namespace sluice::inference::cuda {

bool IsCustomFamilyOp(ir::OpType type) {
  switch (type) {
    case ir::OpType::kLandmarksToTransformMatrix:
    case ir::OpType::kTransformLandmarks:
    case ir::OpType::kTransformTensorBilinear:
      return true;
    default:
      return false;
  }
}

absl::Status CheckCustomFamilyOp(const ir::Graph& graph, int op_index) {
  return absl::UnimplementedError(absl::StrCat(
      graph.OpLabel(op_index), ": the cuda custom-op family (cuda_ops_custom.cc) is not built"));
}

absl::StatusOr<CudaKernel> PrepareCustomFamilyOp(const ir::Graph& graph, int op_index,
                                                 CudaOpContext&) {
  return CheckCustomFamilyOp(graph, op_index);
}

}  // namespace sluice::inference::cuda
