// The cuda backend's MediaPipe custom ops of the face-mesh attention model:
// Landmarks2TransformMatrix, TransformLandmarks, TransformTensorBilinear
// (maths in kernels/custom.h, the steps of reference/kernels_custom.cc).
// Check = the reference kernels' validation; Prepare uploads the subset
// indices once and binds device addresses.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "inference/cuda/cuda_ops.h"
#include "inference/cuda/kernels/custom.h"
#include "inference/cuda/kernels/custom_launch.h"
#include "inference/ir.h"
#include "inference/reference/reference_kernels.h"
#include "util/status_macros.h"

namespace sluice::inference::cuda {
namespace {

namespace k = kernels;

absl::StatusOr<void*> DeviceOf(const ir::Graph& g, int op_index, const CudaOpContext& ctx, int t) {
  void* d = ctx.Device(t);
  if (d == nullptr) {
    return absl::InternalError(absl::StrCat(g.OpLabel(op_index), ": tensor '", g.tensors[t].name,
                                            "' has no device memory"));
  }
  return d;
}

// Device addresses of the op's inputs (all of them) and first output.
struct Bound {
  std::vector<const float*> in;
  float* out = nullptr;
};

absl::StatusOr<Bound> Bind(const ir::Graph& g, int op_index, const CudaOpContext& ctx) {
  const ir::Op& op = g.ops[op_index];
  Bound b;
  for (int t : op.inputs) {
    ASSIGN_OR_RETURN(void* d, DeviceOf(g, op_index, ctx, t));
    b.in.push_back(static_cast<const float*>(d));
  }
  ASSIGN_OR_RETURN(void* out, DeviceOf(g, op_index, ctx, op.outputs[0]));
  b.out = static_cast<float*>(out);
  return b;
}

absl::StatusOr<CudaKernel> PrepareLandmarksToMatrix(const ir::Graph& g, int op_index,
                                                    CudaOpContext& ctx) {
  const ir::Op& op = g.ops[op_index];
  const auto& o = op.opts<ir::LandmarksToTransformMatrixOptions>();
  k::LandmarksToMatrixParams p{};
  p.num_landmarks = g.tensors[op.inputs[0]].shape[1];
  p.num_subset = static_cast<int>(o.subset_idxs.size());
  p.left_rotation_idx = o.left_rotation_idx;
  p.right_rotation_idx = o.right_rotation_idx;
  p.target_rotation_radians = o.target_rotation_radians;
  p.output_height = o.output_height;
  p.output_width = o.output_width;
  p.scale_x = o.scale_x;
  p.scale_y = o.scale_y;
  const std::vector<int32_t> subset(o.subset_idxs.begin(), o.subset_idxs.end());
  ASSIGN_OR_RETURN(void* subset_d,
                   ctx.UploadConstant(subset.data(), subset.size() * sizeof(int32_t)));
  ASSIGN_OR_RETURN(Bound b, Bind(g, op_index, ctx));
  const float* lm = b.in[0];
  float* out = b.out;
  const int* idx = static_cast<const int*>(subset_d);
  return CudaKernel(
      [=](cudaStream_t s) { return k::LaunchLandmarksToMatrix(lm, idx, out, p, s); });
}

absl::StatusOr<CudaKernel> PrepareTransformLandmarks(const ir::Graph& g, int op_index,
                                                     CudaOpContext& ctx) {
  const ir::Op& op = g.ops[op_index];
  const ir::Tensor& x = g.tensors[op.inputs[0]];
  const int dims = x.shape[2];
  const int64_t count = x.num_elements() / dims;
  ASSIGN_OR_RETURN(Bound b, Bind(g, op_index, ctx));
  const float *in = b.in[0], *mat = b.in[1];
  float* out = b.out;
  return CudaKernel(
      [=](cudaStream_t s) { return k::LaunchTransformLandmarks(in, mat, out, dims, count, s); });
}

absl::StatusOr<CudaKernel> PrepareTransformTensorBilinear(const ir::Graph& g, int op_index,
                                                          CudaOpContext& ctx) {
  const ir::Op& op = g.ops[op_index];
  const ir::Tensor &x = g.tensors[op.inputs[0]], &y = g.tensors[op.outputs[0]];
  const k::TransformBilinearParams p{x.shape[1], x.shape[2], x.shape[3], y.shape[1], y.shape[2]};
  ASSIGN_OR_RETURN(Bound b, Bind(g, op_index, ctx));
  const float *in = b.in[0], *mat = b.in[1];
  float* out = b.out;
  return CudaKernel(
      [=](cudaStream_t s) { return k::LaunchTransformTensorBilinear(in, mat, out, p, s); });
}

}  // namespace

bool IsCustomFamilyOp(ir::OpType type) {
  return type == ir::OpType::kLandmarksToTransformMatrix ||
         type == ir::OpType::kTransformLandmarks || type == ir::OpType::kTransformTensorBilinear;
}

absl::Status CheckCustomFamilyOp(const ir::Graph& graph, int op_index) {
  if (op_index < 0 || op_index >= static_cast<int>(graph.ops.size())) {
    return absl::InvalidArgumentError(absl::StrCat(graph.source, ": no op ", op_index));
  }
  if (!IsCustomFamilyOp(graph.ops[op_index].type)) {
    return absl::InvalidArgumentError(
        absl::StrCat(graph.OpLabel(op_index), ": not a MediaPipe face-mesh custom op"));
  }
  // Shapes, dtypes, option ranges (subset and rotation indices in range): the
  // oracle's checks, so the kernels index nothing out of bounds.
  return reference::CheckOp(graph, op_index);
}

absl::StatusOr<CudaKernel> PrepareCustomFamilyOp(const ir::Graph& graph, int op_index,
                                                 CudaOpContext& context) {
  RETURN_IF_ERROR(CheckCustomFamilyOp(graph, op_index));
  // An empty output: nothing to launch (the kernels' grids must not be empty).
  if (graph.tensors[graph.ops[op_index].outputs[0]].num_elements() == 0) {
    return CudaKernel([](cudaStream_t) { return cudaSuccess; });
  }
  switch (graph.ops[op_index].type) {
    case ir::OpType::kLandmarksToTransformMatrix:
      return PrepareLandmarksToMatrix(graph, op_index, context);
    case ir::OpType::kTransformLandmarks:
      return PrepareTransformLandmarks(graph, op_index, context);
    case ir::OpType::kTransformTensorBilinear:
      return PrepareTransformTensorBilinear(graph, op_index, context);
    default:
      break;
  }
  return absl::InternalError(absl::StrCat(graph.OpLabel(op_index), ": not a custom-family op"));
}

}  // namespace sluice::inference::cuda
