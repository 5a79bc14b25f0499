#include "inference/ir.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice::inference::ir {

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt8:
      return "int8";
    case DType::kBool:
      return "bool";
  }
  return "?";
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kInt32:
      return 4;
    case DType::kFloat16:
      return 2;
    case DType::kInt64:
      return 8;
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kBool:
      return 1;
  }
  return 1;
}

std::string_view OpTypeName(OpType type) {
  static constexpr std::string_view kNames[] = {
#define SLUICE_IR_OP(id, name, code) name,
#include "inference/ops.inc"
#undef SLUICE_IR_OP
  };
  const auto i = static_cast<size_t>(type);
  return i < std::size(kNames) ? kNames[i] : "?";
}

int OpTypeBuiltinCode(OpType type) {
  static constexpr int kCodes[] = {
#define SLUICE_IR_OP(id, name, code) code,
#include "inference/ops.inc"
#undef SLUICE_IR_OP
  };
  const auto i = static_cast<size_t>(type);
  return i < std::size(kCodes) ? kCodes[i] : -1;
}

std::string_view ActivationName(Activation act) {
  switch (act) {
    case Activation::kNone:
      return "NONE";
    case Activation::kRelu:
      return "RELU";
    case Activation::kReluN1To1:
      return "RELU_N1_TO_1";
    case Activation::kRelu6:
      return "RELU6";
    case Activation::kTanh:
      return "TANH";
  }
  return "?";
}

void ActivationRange(Activation act, float* lo, float* hi) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  switch (act) {
    case Activation::kRelu:
      *lo = 0.0f;
      *hi = kInf;
      return;
    case Activation::kReluN1To1:
      *lo = -1.0f;
      *hi = 1.0f;
      return;
    case Activation::kRelu6:
      *lo = 0.0f;
      *hi = 6.0f;
      return;
    default:
      *lo = -kInf;
      *hi = kInf;
      return;
  }
}

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

std::string ShapeString(const Shape& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

std::string Graph::OpLabel(int op_index) const {
  if (op_index < 0 || op_index >= static_cast<int>(ops.size())) {
    return absl::StrCat("op ", op_index, " of ", source);
  }
  const Op& op = ops[op_index];
  return absl::StrCat("operator ", op.source_index >= 0 ? op.source_index : op_index, " (",
                      std::string(OpTypeName(op.type)), ") of ", source);
}

absl::Status Graph::Validate() const {
  const int n = static_cast<int>(tensors.size());
  // Sizes first, so nothing below (or in later passes) can overflow, and no
  // corrupt shape makes the engine allocate gigabytes (MediaPipe's largest
  // tensor is a few MiB): at most 2^28 elements per tensor, 2^29 in all.
  constexpr int64_t kMaxElements = int64_t{1} << 28;
  constexpr int64_t kMaxTotalElements = int64_t{1} << 29;
  int64_t total_elements = 0;
  for (const Tensor& t : tensors) {
    int64_t elements = 1;
    for (int32_t d : t.shape) {
      if (d < 0)
        return absl::InvalidArgumentError(absl::StrCat(source, ": tensor '", t.name,
                                                       "' has a dynamic or negative dimension ",
                                                       ShapeString(t.shape)));
      if (d > 0 && elements > kMaxElements / d) {
        return absl::InvalidArgumentError(absl::StrCat(source, ": tensor '", t.name, "' of shape ",
                                                       ShapeString(t.shape), " is too large"));
      }
      elements *= d;
    }
    total_elements += elements;
    if (total_elements > kMaxTotalElements) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": the tensors need more than ", kMaxTotalElements,
          " elements in all (at tensor '", t.name, "' of shape ", ShapeString(t.shape), ")"));
    }
  }
  std::vector<int> producer(n, -1);
  std::vector<bool> available(n, false);
  for (int t = 0; t < n; ++t) available[t] = tensors[t].is_constant;
  for (int t : inputs) {
    if (t < 0 || t >= n)
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": graph input tensor index ", t, " out of range"));
    available[t] = true;
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    for (int t : op.inputs) {
      if (t == -1) continue;
      if (t < 0 || t >= n)
        return absl::InvalidArgumentError(
            absl::StrCat(OpLabel(i), ": input tensor index ", t, " out of range"));
      if (!available[t]) {
        return absl::InvalidArgumentError(
            absl::StrCat(OpLabel(i), ": input tensor ", t, " '", tensors[t].name,
                         "' is used before any operator produces it"));
      }
    }
    for (int t : op.outputs) {
      if (t < 0 || t >= n)
        return absl::InvalidArgumentError(
            absl::StrCat(OpLabel(i), ": output tensor index ", t, " out of range"));
      if (tensors[t].is_constant || producer[t] != -1 ||
          std::find(inputs.begin(), inputs.end(), t) != inputs.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(OpLabel(i), ": output tensor ", t, " '", tensors[t].name,
                         "' is a constant, a graph input or written twice"));
      }
      producer[t] = static_cast<int>(i);
      available[t] = true;
    }
  }
  for (int t : outputs) {
    if (t < 0 || t >= n)
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": graph output tensor index ", t, " out of range"));
    if (!available[t])
      return absl::InvalidArgumentError(absl::StrCat(source, ": graph output tensor ", t, " '",
                                                     tensors[t].name, "' is never produced"));
  }
  for (int t = 0; t < n; ++t) {
    const Tensor& tensor = tensors[t];
    if (tensor.is_constant && tensor.sparsity.empty() && tensor.data.size() != tensor.byte_size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": constant tensor '", tensor.name, "' holds ", tensor.data.size(),
                       " bytes, its shape ", ShapeString(tensor.shape), " ",
                       std::string(DTypeName(tensor.dtype)), " needs ", tensor.byte_size()));
    }
  }
  return absl::OkStatus();
}

PadOut ComputePadding(Padding padding, int in, int filter, int stride, int dilation) {
  const int effective = (filter - 1) * dilation + 1;
  PadOut r;
  if (padding == Padding::kSame) {
    r.out = (in + stride - 1) / stride;
    const int total = std::max(0, (r.out - 1) * stride + effective - in);
    r.pad_before = total / 2;
  } else {
    r.out = (in - effective + stride) / stride;
    r.pad_before = 0;
  }
  return r;
}

}  // namespace sluice::inference::ir
