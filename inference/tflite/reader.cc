#include "inference/tflite/reader.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "flatbuffers/flexbuffers.h"
#include "flatbuffers/verifier.h"
#include "inference/tflite/tflite_schema_generated.h"
#include "util/status_macros.h"

namespace sluice::inference::tflite {
namespace {

namespace fb = ::sluice::tflite;
using ir::OpType;

// Ops in the order of inference/ops.inc, for matching opcodes.
constexpr OpType kAllOps[] = {
#define SLUICE_IR_OP(id, name, code) OpType::id,
#include "inference/ops.inc"
#undef SLUICE_IR_OP
};

absl::Status Corrupt(absl::string_view name, absl::string_view what) {
  return absl::DataLossError(absl::StrCat(name, ": ", what));
}

absl::StatusOr<ir::DType> ConvertType(fb::TensorType t) {
  switch (t) {
    case fb::TensorType::FLOAT32:
      return ir::DType::kFloat32;
    case fb::TensorType::FLOAT16:
      return ir::DType::kFloat16;
    case fb::TensorType::INT32:
      return ir::DType::kInt32;
    case fb::TensorType::UINT8:
      return ir::DType::kUInt8;
    case fb::TensorType::INT64:
      return ir::DType::kInt64;
    case fb::TensorType::BOOL:
      return ir::DType::kBool;
    case fb::TensorType::INT8:
      return ir::DType::kInt8;
    default:
      return absl::UnimplementedError(
          absl::StrCat("tensor type ", static_cast<int>(t), " is not supported"));
  }
}

ir::Activation ConvertActivation(fb::ActivationFunctionType a) {
  switch (a) {
    case fb::ActivationFunctionType::RELU:
      return ir::Activation::kRelu;
    case fb::ActivationFunctionType::RELU_N1_TO_1:
      return ir::Activation::kReluN1To1;
    case fb::ActivationFunctionType::RELU6:
      return ir::Activation::kRelu6;
    case fb::ActivationFunctionType::TANH:
      return ir::Activation::kTanh;
    default:
      return ir::Activation::kNone;
  }
}

ir::Padding ConvertPadding(fb::Padding p) {
  return p == fb::Padding::SAME ? ir::Padding::kSame : ir::Padding::kValid;
}

std::vector<int32_t> IndexVector(fb::SparseIndexVector type, const void* value) {
  std::vector<int32_t> out;
  if (value == nullptr) return out;
  switch (type) {
    case fb::SparseIndexVector::Int32Vector: {
      auto* v = static_cast<const fb::Int32Vector*>(value)->values();
      if (v) out.assign(v->begin(), v->end());
      break;
    }
    case fb::SparseIndexVector::Uint16Vector: {
      auto* v = static_cast<const fb::Uint16Vector*>(value)->values();
      if (v) out.assign(v->begin(), v->end());
      break;
    }
    case fb::SparseIndexVector::Uint8Vector: {
      auto* v = static_cast<const fb::Uint8Vector*>(value)->values();
      if (v) out.assign(v->begin(), v->end());
      break;
    }
    default:
      break;
  }
  return out;
}

absl::Status ReadSparsity(const fb::SparsityParameters& sp, ir::Tensor& tensor,
                          absl::string_view where) {
  if (sp.block_map() && sp.block_map()->size() > 0) {
    return absl::UnimplementedError(
        absl::StrCat(where, ": block-sparse constants are not supported"));
  }
  ir::Sparsity s;
  if (sp.traversal_order())
    s.traversal_order.assign(sp.traversal_order()->begin(), sp.traversal_order()->end());
  const size_t rank = tensor.shape.size();
  if (s.traversal_order.size() != rank || !sp.dim_metadata() || sp.dim_metadata()->size() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": sparsity metadata does not match the tensor rank"));
  }
  std::vector<bool> seen(rank, false);
  for (int d : s.traversal_order) {
    if (d < 0 || d >= static_cast<int>(rank) || seen[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": sparsity traversal_order is not a permutation"));
    }
    seen[d] = true;
  }
  for (const fb::DimensionMetadata* dm : *sp.dim_metadata()) {
    ir::SparseDim d;
    d.sparse = dm->format() == fb::DimensionType::SPARSE_CSR;
    d.dense_size = dm->dense_size();
    d.segments = IndexVector(dm->array_segments_type(), dm->array_segments());
    d.indices = IndexVector(dm->array_indices_type(), dm->array_indices());
    s.dims.push_back(std::move(d));
  }
  tensor.sparsity.push_back(std::move(s));
  return absl::OkStatus();
}

// Custom-op options stored as a flexbuffer map; verified before use.
absl::StatusOr<flexbuffers::Map> FlexMap(const std::vector<uint8_t>& bytes,
                                         absl::string_view where) {
  if (bytes.empty() || !flexbuffers::VerifyBuffer(bytes.data(), bytes.size(), nullptr)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": custom options are not a valid flexbuffer"));
  }
  flexbuffers::Reference root = flexbuffers::GetRoot(bytes.data(), bytes.size());
  if (!root.IsMap())
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": custom options are not a flexbuffer map"));
  return root.AsMap();
}

absl::Status ReadCustomOptions(ir::Op& op, const std::vector<uint8_t>& bytes,
                               absl::string_view where) {
  switch (op.type) {
    case OpType::kTransposeConvBias: {
      // A raw TfLiteTransposeConvParams: {int padding (1 SAME, 2 VALID), stride_w, stride_h}.
      if (bytes.size() < 3 * sizeof(int32_t)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": custom options hold ", bytes.size(),
                         " bytes, expected 12 (TfLiteTransposeConvParams)"));
      }
      int32_t raw[3];
      std::memcpy(raw, bytes.data(), sizeof(raw));
      if (raw[0] != 1 && raw[0] != 2) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": unknown padding ", raw[0], " in TfLiteTransposeConvParams"));
      }
      ir::TransposeConvOptions o;
      o.padding = raw[0] == 1 ? ir::Padding::kSame : ir::Padding::kValid;
      o.stride_w = raw[1];
      o.stride_h = raw[2];
      op.options = o;
      return absl::OkStatus();
    }
    case OpType::kLandmarksToTransformMatrix: {
      ASSIGN_OR_RETURN(flexbuffers::Map m, FlexMap(bytes, where));
      ir::LandmarksToTransformMatrixOptions o;
      flexbuffers::Reference subset = m["subset_idxs"];
      if (!subset.IsVector() && !subset.IsTypedVector()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": custom option subset_idxs is missing"));
      }
      if (subset.IsTypedVector()) {
        flexbuffers::TypedVector v = subset.AsTypedVector();
        for (size_t i = 0; i < v.size(); ++i) o.subset_idxs.push_back(v[i].AsInt32());
      } else {
        flexbuffers::Vector v = subset.AsVector();
        for (size_t i = 0; i < v.size(); ++i) o.subset_idxs.push_back(v[i].AsInt32());
      }
      // An odd count repeats the last index (MediaPipe's parser does the same).
      if (o.subset_idxs.size() % 2 == 1) o.subset_idxs.push_back(o.subset_idxs.back());
      o.left_rotation_idx = m["left_rotation_idx"].AsInt32();
      o.right_rotation_idx = m["right_rotation_idx"].AsInt32();
      o.target_rotation_radians = m["target_rotation_radians"].AsFloat();
      o.output_height = m["output_height"].AsInt32();
      o.output_width = m["output_width"].AsInt32();
      o.scale_x = m["scale_x"].AsFloat();
      o.scale_y = m["scale_y"].AsFloat();
      op.options = std::move(o);
      return absl::OkStatus();
    }
    case OpType::kTransformTensorBilinear: {
      ASSIGN_OR_RETURN(flexbuffers::Map m, FlexMap(bytes, where));
      ir::TransformTensorBilinearOptions o;
      o.output_height = m["output_height"].AsInt32();
      o.output_width = m["output_width"].AsInt32();
      op.options = o;
      return absl::OkStatus();
    }
    default:
      return absl::OkStatus();  // TransformLandmarks v2 takes everything from shapes
  }
}

absl::Status ReadBuiltinOptions(ir::Op& op, const fb::Operator& fop) {
  switch (op.type) {
    case OpType::kConv2D: {
      ir::Conv2DOptions o;
      if (auto* p = fop.builtin_options_as_Conv2DOptions()) {
        o.padding = ConvertPadding(p->padding());
        o.stride_w = p->stride_w();
        o.stride_h = p->stride_h();
        o.dilation_w = p->dilation_w_factor();
        o.dilation_h = p->dilation_h_factor();
        o.activation = ConvertActivation(p->fused_activation_function());
      }
      op.options = o;
      break;
    }
    case OpType::kDepthwiseConv2D: {
      ir::DepthwiseConv2DOptions o;
      if (auto* p = fop.builtin_options_as_DepthwiseConv2DOptions()) {
        o.padding = ConvertPadding(p->padding());
        o.stride_w = p->stride_w();
        o.stride_h = p->stride_h();
        o.dilation_w = p->dilation_w_factor();
        o.dilation_h = p->dilation_h_factor();
        o.depth_multiplier = p->depth_multiplier();
        o.activation = ConvertActivation(p->fused_activation_function());
      }
      op.options = o;
      break;
    }
    case OpType::kAveragePool2D:
    case OpType::kMaxPool2D: {
      ir::Pool2DOptions o;
      if (auto* p = fop.builtin_options_as_Pool2DOptions()) {
        o.padding = ConvertPadding(p->padding());
        o.stride_w = p->stride_w();
        o.stride_h = p->stride_h();
        o.filter_w = p->filter_width();
        o.filter_h = p->filter_height();
        o.activation = ConvertActivation(p->fused_activation_function());
      }
      op.options = o;
      break;
    }
    case OpType::kFullyConnected: {
      ir::FullyConnectedOptions o;
      if (auto* p = fop.builtin_options_as_FullyConnectedOptions()) {
        if (p->weights_format() != 0) {
          return absl::UnimplementedError("shuffled FULLY_CONNECTED weights are not supported");
        }
        o.activation = ConvertActivation(p->fused_activation_function());
        o.keep_num_dims = p->keep_num_dims();
      }
      op.options = o;
      break;
    }
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kDiv: {
      ir::BinaryOptions o;
      if (auto* p = fop.builtin_options_as_AddOptions())
        o.activation = ConvertActivation(p->fused_activation_function());
      if (auto* p = fop.builtin_options_as_SubOptions())
        o.activation = ConvertActivation(p->fused_activation_function());
      if (auto* p = fop.builtin_options_as_MulOptions())
        o.activation = ConvertActivation(p->fused_activation_function());
      if (auto* p = fop.builtin_options_as_DivOptions())
        o.activation = ConvertActivation(p->fused_activation_function());
      op.options = o;
      break;
    }
    case OpType::kConcatenation: {
      ir::ConcatenationOptions o;
      if (auto* p = fop.builtin_options_as_ConcatenationOptions()) {
        o.axis = p->axis();
        o.activation = ConvertActivation(p->fused_activation_function());
      }
      op.options = o;
      break;
    }
    case OpType::kResizeBilinear: {
      ir::ResizeBilinearOptions o;
      if (auto* p = fop.builtin_options_as_ResizeBilinearOptions()) {
        o.align_corners = p->align_corners();
        o.half_pixel_centers = p->half_pixel_centers();
      }
      op.options = o;
      break;
    }
    case OpType::kSoftmax: {
      ir::SoftmaxOptions o;
      if (auto* p = fop.builtin_options_as_SoftmaxOptions()) o.beta = p->beta();
      op.options = o;
      break;
    }
    case OpType::kMean: {
      ir::ReducerOptions o;
      if (auto* p = fop.builtin_options_as_ReducerOptions()) o.keep_dims = p->keep_dims();
      op.options = o;
      break;
    }
    case OpType::kStridedSlice: {
      ir::StridedSliceOptions o;
      if (auto* p = fop.builtin_options_as_StridedSliceOptions()) {
        o.begin_mask = p->begin_mask();
        o.end_mask = p->end_mask();
        o.ellipsis_mask = p->ellipsis_mask();
        o.new_axis_mask = p->new_axis_mask();
        o.shrink_axis_mask = p->shrink_axis_mask();
        o.offset = p->offset();
      }
      op.options = o;
      break;
    }
    case OpType::kDepthToSpace: {
      ir::DepthToSpaceOptions o;
      if (auto* p = fop.builtin_options_as_DepthToSpaceOptions()) o.block_size = p->block_size();
      op.options = o;
      break;
    }
    default:
      break;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ir::Graph> ReadModel(std::string_view bytes_in, std::string_view name_in) {
  const std::string name(name_in);
  if (bytes_in.empty()) return absl::InvalidArgumentError(absl::StrCat(name, ": empty model file"));
  if (bytes_in.size() < 8)
    return Corrupt(name, absl::StrCat("truncated model file (", bytes_in.size(), " bytes)"));
  if (bytes_in.size() >= (size_t{1} << 31)) {
    return absl::UnimplementedError(
        absl::StrCat(name, ": models of 2 GiB or more are not supported"));
  }
  // The verifier checks alignment relative to the start: keep our own aligned copy.
  std::vector<uint8_t> bytes(bytes_in.begin(), bytes_in.end());
  if (!fb::ModelBufferHasIdentifier(bytes.data())) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not a TFLite model (file identifier is not 'TFL3')"));
  }
  flatbuffers::Verifier::Options vopts;
  vopts.max_tables = 50'000'000;
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), vopts);
  if (!fb::VerifyModelBuffer(verifier)) {
    return Corrupt(name, "corrupt or truncated TFLite flatbuffer (verification failed)");
  }
  const fb::Model* model = fb::GetModel(bytes.data());
  if (!model->subgraphs() || model->subgraphs()->size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": model has no subgraph"));
  }
  const fb::SubGraph* sg = model->subgraphs()->Get(0);
  const auto* buffers = model->buffers();
  const auto* codes = model->operator_codes();

  ir::Graph g;
  g.source = std::string(name);
  const int num_tensors = sg->tensors() ? static_cast<int>(sg->tensors()->size()) : 0;
  g.tensors.resize(num_tensors);
  for (int i = 0; i < num_tensors; ++i) {
    const fb::Tensor* ft = sg->tensors()->Get(i);
    ir::Tensor& t = g.tensors[i];
    t.name = ft->name() ? ft->name()->str() : absl::StrCat("tensor_", i);
    const std::string where = absl::StrCat(name, ": tensor ", i, " '", t.name, "'");
    auto dtype = ConvertType(ft->type());
    if (!dtype.ok())
      return absl::UnimplementedError(absl::StrCat(where, ": ", dtype.status().message()));
    t.dtype = *dtype;
    if (ft->shape()) t.shape.assign(ft->shape()->begin(), ft->shape()->end());
    if (ft->shape_signature()) {
      for (int d : *ft->shape_signature()) {
        if (d < 0)
          return absl::UnimplementedError(
              absl::StrCat(where, ": dynamic shapes are not supported"));
      }
    }
    if (const fb::QuantizationParameters* q = ft->quantization()) {
      if (q->scale()) t.scale.assign(q->scale()->begin(), q->scale()->end());
      if (q->zero_point()) t.zero_point.assign(q->zero_point()->begin(), q->zero_point()->end());
    }
    const uint32_t b = ft->buffer();
    if (b != 0) {
      if (!buffers || b >= buffers->size())
        return Corrupt(name,
                       absl::StrCat("tensor ", i, " '", t.name, "' refers to missing buffer ", b));
      const fb::Buffer* buf = buffers->Get(b);
      if (buf->offset() > 1) {
        return absl::UnimplementedError(
            absl::StrCat(where, ": buffers stored outside the flatbuffer are not supported"));
      }
      if (buf->data() && buf->data()->size() > 0) {
        t.is_constant = true;
        t.data.assign(buf->data()->begin(), buf->data()->end());
      }
    }
    if (ft->sparsity()) RETURN_IF_ERROR(ReadSparsity(*ft->sparsity(), t, where));
  }
  auto read_indices = [&](const flatbuffers::Vector<int32_t>* v, std::vector<int>& out,
                          absl::string_view what) -> absl::Status {
    if (!v) return absl::OkStatus();
    for (int32_t t : *v) {
      if (t < -1 || t >= num_tensors)
        return Corrupt(name, absl::StrCat(what, " refers to tensor ", t, " of ", num_tensors));
      out.push_back(t);
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(read_indices(sg->inputs(), g.inputs, "subgraph input"));
  RETURN_IF_ERROR(read_indices(sg->outputs(), g.outputs, "subgraph output"));
  for (int t : g.inputs)
    if (t < 0) return Corrupt(name, "subgraph input -1");
  for (int t : g.outputs)
    if (t < 0) return Corrupt(name, "subgraph output -1");

  const int num_ops = sg->operators() ? static_cast<int>(sg->operators()->size()) : 0;
  for (int i = 0; i < num_ops; ++i) {
    const fb::Operator* fop = sg->operators()->Get(i);
    if (!codes || fop->opcode_index() >= codes->size()) {
      return Corrupt(name, absl::StrCat("operator ", i, " has opcode index ", fop->opcode_index(),
                                        " out of range"));
    }
    const fb::OperatorCode* code = codes->Get(fop->opcode_index());
    // Files before schema 3a only fill the byte-sized deprecated code.
    const int builtin = std::max<int>(code->builtin_code(), code->deprecated_builtin_code());
    ir::Op op;
    op.source_index = i;
    op.version = code->version();
    bool known = false;
    std::string op_name;
    if (builtin == ir::kBuiltinCustom) {
      op_name = code->custom_code() ? code->custom_code()->str() : "";
      for (OpType t : kAllOps) {
        if (ir::OpTypeBuiltinCode(t) == ir::kBuiltinCustom &&
            std::string(ir::OpTypeName(t)) == op_name) {
          op.type = t;
          known = true;
        }
      }
      op_name = absl::StrCat("custom op '", op_name, "'");
    } else {
      for (OpType t : kAllOps) {
        if (ir::OpTypeBuiltinCode(t) == builtin) {
          op.type = t;
          known = true;
        }
      }
      op_name = known ? std::string(ir::OpTypeName(op.type))
                      : absl::StrCat("builtin operator code ", builtin);
    }
    if (!known) {
      return absl::UnimplementedError(
          absl::StrCat(name, ": operator ", i, " uses unsupported ", op_name));
    }
    const std::string where =
        absl::StrCat(name, ": operator ", i, " (", std::string(ir::OpTypeName(op.type)), ")");
    RETURN_IF_ERROR(read_indices(fop->inputs(), op.inputs, absl::StrCat("operator ", i, " input")));
    RETURN_IF_ERROR(
        read_indices(fop->outputs(), op.outputs, absl::StrCat("operator ", i, " output")));
    for (int t : op.outputs)
      if (t < 0) return Corrupt(name, absl::StrCat("operator ", i, " has output -1"));
    if (builtin == ir::kBuiltinCustom) {
      std::vector<uint8_t> custom;
      if (fop->custom_options())
        custom.assign(fop->custom_options()->begin(), fop->custom_options()->end());
      RETURN_IF_ERROR(ReadCustomOptions(op, custom, where));
    } else {
      absl::Status s = ReadBuiltinOptions(op, *fop);
      if (!s.ok()) return absl::Status(s.code(), absl::StrCat(where, ": ", s.message()));
    }
    g.ops.push_back(std::move(op));
  }
  RETURN_IF_ERROR(g.Validate());
  return g;
}

absl::StatusOr<ir::Graph> ReadModelFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open model file ", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  return ReadModel(bytes, path);
}

}  // namespace sluice::inference::tflite
