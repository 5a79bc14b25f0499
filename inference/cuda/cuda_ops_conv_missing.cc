// Stand-in for the conv family (cuda_ops_conv.cc, not in this tree yet):
// CMake compiles this file only while that one is missing. Every conv-family
// op answers "unsupported", so the backend runs it on the reference kernels
// as a host island and the dispatch still links.
#include "absl/strings/str_cat.h"
#include "inference/cuda/cuda_ops.h"

namespace sluice::inference::cuda {

bool IsConvFamilyOp(ir::OpType type) {
  switch (type) {
    case ir::OpType::kConv2D:
    case ir::OpType::kDepthwiseConv2D:
    case ir::OpType::kFullyConnected:
    case ir::OpType::kTransposeConvBias:
    case ir::OpType::kAveragePool2D:
    case ir::OpType::kMaxPool2D:
      return true;
    default:
      return false;
  }
}

absl::Status CheckConvFamilyOp(const ir::Graph& graph, int op_index) {
  return absl::UnimplementedError(absl::StrCat(
      graph.OpLabel(op_index), ": the cuda conv family (cuda_ops_conv.cc) is not built"));
}

absl::StatusOr<CudaKernel> PrepareConvFamilyOp(const ir::Graph& graph, int op_index,
                                               CudaOpContext&) {
  return CheckConvFamilyOp(graph, op_index);
}

absl::StatusOr<CudaKernel> PrepareFusedConvOp(const ir::Graph& graph, int op_index,
                                              CudaOpContext&, const ConvFusion&) {
  return CheckConvFamilyOp(graph, op_index);
}

}  // namespace sluice::inference::cuda
