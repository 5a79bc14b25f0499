#include "inference/reference/reference_kernels.h"

#include "inference/reference/kernels_internal.h"

namespace sluice::inference::reference {
namespace internal {

absl::Status Ctx::Arity(int min_in, int max_in, int outs) const {
  if (num_inputs() < min_in || num_inputs() > max_in) {
    return Error(absl::StrCat("expects ", min_in == max_in ? "" : "between ", min_in,
                              min_in == max_in ? "" : absl::StrCat(" and ", max_in),
                              " inputs, has ", num_inputs()));
  }
  for (int i = 0; i < min_in; ++i) {
    if (op_.inputs[i] < 0) return Error(absl::StrCat("input ", i, " is required"));
  }
  if (static_cast<int>(op_.outputs.size()) != outs) {
    return Error(absl::StrCat("expects ", outs, " outputs, has ", op_.outputs.size()));
  }
  return absl::OkStatus();
}

absl::Status Ctx::Float(const ir::Tensor& t, absl::string_view role) const {
  if (t.dtype != ir::DType::kFloat32) {
    return Unsupported(absl::StrCat(role, " '", t.name, "' is ",
                                    std::string(ir::DTypeName(t.dtype)),
                                    ", only float32 is supported"));
  }
  return absl::OkStatus();
}

absl::Status Ctx::Rank(const ir::Tensor& t, int rank, absl::string_view role) const {
  if (static_cast<int>(t.shape.size()) != rank) {
    return Error(absl::StrCat(role, " '", t.name, "' must have rank ", rank, ", has shape ",
                              ir::ShapeString(t.shape)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> Ctx::ConstInts(int i, absl::string_view role) const {
  if (!has_input(i)) return Error(absl::StrCat(role, " (input ", i, ") is missing"));
  const ir::Tensor& t = in(i);
  if (!t.is_constant) return Unsupported(absl::StrCat(role, " '", t.name, "' must be a constant"));
  std::vector<int64_t> v(t.num_elements());
  if (t.dtype == ir::DType::kInt32) {
    for (size_t k = 0; k < v.size(); ++k) v[k] = t.i32()[k];
  } else if (t.dtype == ir::DType::kInt64) {
    const auto* p = reinterpret_cast<const int64_t*>(t.data.data());
    for (size_t k = 0; k < v.size(); ++k) v[k] = p[k];
  } else {
    return Error(absl::StrCat(role, " '", t.name, "' must be int32 or int64"));
  }
  return v;
}

std::vector<int> PadShape(const ir::Shape& s, int rank) {
  std::vector<int> r(rank, 1);
  const int off = rank - static_cast<int>(s.size());
  for (size_t i = 0; i < s.size(); ++i) r[off + i] = s[i];
  return r;
}

PrepareFn Lookup(ir::OpType type) {
  using ir::OpType;
  switch (type) {
    case OpType::kConv2D:
      return PrepareConv2D;
    case OpType::kDepthwiseConv2D:
      return PrepareDepthwiseConv2D;
    case OpType::kTransposeConvBias:
      return PrepareTransposeConvBias;
    case OpType::kFullyConnected:
      return PrepareFullyConnected;
    case OpType::kAveragePool2D:
    case OpType::kMaxPool2D:
      return PreparePool2D;
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kDiv:
      return PrepareBinary;
    case OpType::kLogistic:
    case OpType::kRelu:
    case OpType::kRelu6:
    case OpType::kTanh:
    case OpType::kHardSwish:
    case OpType::kSquare:
      return PrepareUnary;
    case OpType::kPrelu:
      return PreparePrelu;
    case OpType::kSoftmax:
      return PrepareSoftmax;
    case OpType::kReshape:
      return PrepareReshape;
    case OpType::kPad:
      return PreparePad;
    case OpType::kConcatenation:
      return PrepareConcatenation;
    case OpType::kMean:
      return PrepareMean;
    case OpType::kResizeBilinear:
      return PrepareResizeBilinear;
    case OpType::kStridedSlice:
      return PrepareStridedSlice;
    case OpType::kDepthToSpace:
      return PrepareDepthToSpace;
    case OpType::kDequantize:
      return PrepareDequantize;
    case OpType::kLandmarksToTransformMatrix:
      return PrepareLandmarksToTransformMatrix;
    case OpType::kTransformLandmarks:
      return PrepareTransformLandmarks;
    case OpType::kTransformTensorBilinear:
      return PrepareTransformTensorBilinear;
    case OpType::kDensify:
      return nullptr;  // load-time only
  }
  return nullptr;
}

}  // namespace internal

absl::Status CheckOp(const ir::Graph& graph, int op_index) {
  return PrepareKernel(graph, op_index, {}).status();
}

absl::StatusOr<Kernel> PrepareKernel(const ir::Graph& graph, int op_index,
                                     const std::vector<void*>& tensor_data) {
  if (op_index < 0 || op_index >= static_cast<int>(graph.ops.size())) {
    return absl::InvalidArgumentError(absl::StrCat(graph.source, ": no op ", op_index));
  }
  const ir::Op& op = graph.ops[op_index];
  internal::PrepareFn fn = internal::Lookup(op.type);
  if (fn == nullptr) {
    return absl::UnimplementedError(absl::StrCat(graph.OpLabel(op_index), ": no reference kernel (",
                                                 std::string(ir::OpTypeName(op.type)),
                                                 " must be folded at load time)"));
  }
  const bool bound = !tensor_data.empty();
  if (bound && tensor_data.size() != graph.tensors.size()) {
    return absl::InvalidArgumentError(absl::StrCat(graph.OpLabel(op_index), ": tensor_data has ",
                                                   tensor_data.size(), " entries for ",
                                                   graph.tensors.size(), " tensors"));
  }
  internal::Ctx ctx(graph, op_index, bound ? &tensor_data : nullptr);
  return fn(ctx);
}

}  // namespace sluice::inference::reference
