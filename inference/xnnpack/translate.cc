#include "inference/xnnpack/translate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace sluice::inference::xnn {
namespace {

using ir::OpType;

constexpr float kInf = std::numeric_limits<float>::infinity();

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const int exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);  // zero or subnormal
  } else if (exp == 31) {
    f = mant ? std::numeric_limits<float>::quiet_NaN() : kInf;
  } else {
    f = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  }
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= sign;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::vector<size_t> Dims(const ir::Shape& shape) {
  return std::vector<size_t>(shape.begin(), shape.end());
}

// Leading and trailing padding of one spatial dimension (TF SAME convention).
struct Pads {
  uint32_t before = 0, after = 0;
  int out = 0;
};
Pads SpatialPads(ir::Padding padding, int in, int k, int stride, int dilation) {
  const ir::PadOut po = ir::ComputePadding(padding, in, k, stride, dilation);
  Pads p;
  p.out = po.out;
  if (padding == ir::Padding::kSame) {
    const int total = std::max(0, (po.out - 1) * stride + (k - 1) * dilation + 1 - in);
    p.before = static_cast<uint32_t>(po.pad_before);
    p.after = static_cast<uint32_t>(total - po.pad_before);
  }
  return p;
}

#define XNN_CHECK(cond, why)                                                                    \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      return absl::UnimplementedError(absl::StrCat(info.graph().OpLabel(op_index), ": ", why)); \
    }                                                                                           \
  } while (0)

#define XNN_DEFINE(call)                                                              \
  do {                                                                                \
    const xnn_status s_ = (call);                                                     \
    if (s_ != xnn_status_success) {                                                   \
      return absl::InternalError(absl::StrCat(info.graph().OpLabel(op_index), ": ",   \
                                              #call " failed: ", XnnStatusName(s_))); \
    }                                                                                 \
  } while (0)

}  // namespace

const char* XnnStatusName(xnn_status status) {
  switch (status) {
    case xnn_status_success:
      return "success";
    case xnn_status_uninitialized:
      return "uninitialized";
    case xnn_status_invalid_parameter:
      return "invalid parameter";
    case xnn_status_invalid_state:
      return "invalid state";
    case xnn_status_unsupported_parameter:
      return "unsupported parameter";
    case xnn_status_unsupported_hardware:
      return "unsupported hardware";
    case xnn_status_out_of_memory:
      return "out of memory";
  }
  return "unknown status";
}

GraphInfo::GraphInfo(const ir::Graph& graph) : graph_(graph), producer_(graph.tensors.size(), -1) {
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    for (int t : graph.ops[i].outputs) {
      if (t >= 0 && t < static_cast<int>(producer_.size())) producer_[t] = static_cast<int>(i);
    }
  }
}

bool GraphInfo::IsFoldedOp(const ir::Op& op) const {
  if (op.type != OpType::kDequantize || op.inputs.size() != 1 || op.outputs.size() != 1) {
    return false;
  }
  const int in = op.inputs[0];
  if (in < 0) return false;
  const ir::Tensor& t = graph_.tensors[in];
  return t.is_constant && (t.dtype == ir::DType::kFloat16 || t.dtype == ir::DType::kFloat32) &&
         t.data.size() == t.byte_size() &&
         graph_.tensors[op.outputs[0]].dtype == ir::DType::kFloat32;
}

bool GraphInfo::IsConstant(int tensor) const {
  if (tensor < 0) return false;
  const ir::Tensor& t = graph_.tensors[tensor];
  if (t.is_constant) return t.sparsity.empty() && t.data.size() == t.byte_size();
  const int p = producer_[tensor];
  return p >= 0 && IsFoldedOp(graph_.ops[p]);
}

absl::StatusOr<std::vector<float>> GraphInfo::ConstantAsFloat(int tensor) const {
  if (!IsConstant(tensor)) {
    return absl::InvalidArgumentError(absl::StrCat("tensor ", tensor, " is not constant"));
  }
  const ir::Tensor* t = &graph_.tensors[tensor];
  if (!t->is_constant) t = &graph_.tensors[graph_.ops[producer_[tensor]].inputs[0]];
  std::vector<float> out(t->num_elements());
  if (t->dtype == ir::DType::kFloat32) {
    std::memcpy(out.data(), t->data.data(), out.size() * sizeof(float));
  } else if (t->dtype == ir::DType::kFloat16) {
    for (size_t i = 0; i < out.size(); ++i) {
      uint16_t h;
      std::memcpy(&h, t->data.data() + 2 * i, 2);
      out[i] = HalfToFloat(h);
    }
  } else {
    return absl::InvalidArgumentError(absl::StrCat("constant '", t->name, "' has dtype ",
                                                   std::string(ir::DTypeName(t->dtype)),
                                                   ", not float"));
  }
  return out;
}

absl::Status SubgraphBuilder::DefineExternal(int tensor, uint32_t external_id, bool is_input) {
  const ir::Tensor& t = info_.graph().tensors[tensor];
  const std::vector<size_t> dims = Dims(t.shape);
  uint32_t id;
  const xnn_status s = xnn_define_tensor_value(
      subgraph_, xnn_datatype_fp32, dims.size(), dims.data(), nullptr, external_id,
      is_input ? XNN_VALUE_FLAG_EXTERNAL_INPUT : XNN_VALUE_FLAG_EXTERNAL_OUTPUT, &id);
  if (s != xnn_status_success) {
    return absl::InternalError(
        absl::StrCat("defining external tensor '", t.name, "': ", XnnStatusName(s)));
  }
  values_[tensor] = id;
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> SubgraphBuilder::Value(int tensor) {
  auto it = values_.find(tensor);
  if (it != values_.end()) return it->second;
  const ir::Tensor& t = info_.graph().tensors[tensor];
  uint32_t id;
  if (info_.IsConstant(tensor)) {
    ASSIGN_OR_RETURN(std::vector<float> data, info_.ConstantAsFloat(tensor));
    ASSIGN_OR_RETURN(id, StaticValue(Dims(t.shape), std::move(data)));
  } else {
    ASSIGN_OR_RETURN(id, InternalValue(Dims(t.shape)));
  }
  values_[tensor] = id;
  return id;
}

absl::StatusOr<uint32_t> SubgraphBuilder::PackedWeight(int tensor) {
  const ir::Tensor& t = info_.graph().tensors[tensor];
  if (!t.is_constant || t.dtype != ir::DType::kFloat32 || !t.sparsity.empty() ||
      t.data.size() != t.byte_size()) {
    return Value(tensor);
  }
  // Kept apart from values_: the same constant used as an elementwise operand
  // needs the padded copy (XNNPACK kernels read past the end of their inputs).
  auto it = packed_.find(tensor);
  if (it != packed_.end()) return it->second;
  const std::vector<size_t> dims = Dims(t.shape);
  uint32_t id;
  const xnn_status s =
      xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(), t.data.data(),
                              XNN_INVALID_VALUE_ID, 0, &id);
  if (s != xnn_status_success) {
    return absl::InternalError(absl::StrCat("defining weights '", t.name, "': ", XnnStatusName(s)));
  }
  packed_[tensor] = id;
  return id;
}

absl::StatusOr<uint32_t> SubgraphBuilder::StaticValue(const std::vector<size_t>& dims,
                                                      std::vector<float> data) {
  // XNNPACK may read XNN_EXTRA_BYTES past the end of any buffer.
  data.resize(data.size() + XNN_EXTRA_BYTES / sizeof(float), 0.0f);
  weights_->push_back(std::move(data));
  uint32_t id;
  const xnn_status s =
      xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(),
                              weights_->back().data(), XNN_INVALID_VALUE_ID, 0, &id);
  if (s != xnn_status_success) {
    return absl::InternalError(absl::StrCat("defining a static value: ", XnnStatusName(s)));
  }
  return id;
}

absl::StatusOr<uint32_t> SubgraphBuilder::InternalValue(const std::vector<size_t>& dims) {
  uint32_t id;
  const xnn_status s = xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(),
                                               dims.data(), nullptr, XNN_INVALID_VALUE_ID, 0, &id);
  if (s != xnn_status_success) {
    return absl::InternalError(absl::StrCat("defining a value: ", XnnStatusName(s)));
  }
  return id;
}

absl::Status VisitOp(const GraphInfo& info, int op_index, SubgraphBuilder* b) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (info.IsFoldedOp(op)) return absl::OkStatus();

  // Common checks: float32 activations, ranks XNNPACK handles, one output.
  XNN_CHECK(op.outputs.size() == 1, "XNNPACK ops have one output");
  for (int t : op.inputs) {
    if (t < 0 || info.IsConstant(t)) continue;
    XNN_CHECK(g.tensors[t].dtype == ir::DType::kFloat32, "non-float32 input");
    XNN_CHECK(g.tensors[t].shape.size() <= XNN_MAX_TENSOR_DIMS, "rank too large");
  }
  const int out_t = op.outputs[0];
  const ir::Tensor& out = g.tensors[out_t];
  XNN_CHECK(out.dtype == ir::DType::kFloat32, "non-float32 output");
  XNN_CHECK(out.shape.size() <= XNN_MAX_TENSOR_DIMS, "rank too large");
  auto in_shape = [&](int i) -> const ir::Shape& { return g.tensors[op.inputs[i]].shape; };
  auto has_input = [&](size_t i) { return op.inputs.size() > i && op.inputs[i] >= 0; };
  auto is_activation = [&](size_t i) { return has_input(i) && !info.IsConstant(op.inputs[i]); };
  float lo = -kInf, hi = kInf;
  auto act_range = [&](ir::Activation a) {
    ir::ActivationRange(a, &lo, &hi);
    return a != ir::Activation::kTanh;
  };
  // Bias: the constant input, or zeros (XNNPACK's 2022 convolution needs one).
  auto bias_value = [&](size_t i, int channels) -> absl::StatusOr<uint32_t> {
    if (has_input(i)) return b->Value(op.inputs[i]);
    return b->StaticValue({static_cast<size_t>(channels)}, std::vector<float>(channels, 0.0f));
  };
  auto bias_ok = [&](size_t i, int channels) {
    return !has_input(i) || (info.IsConstant(op.inputs[i]) &&
                             ir::NumElements(in_shape(i)) == channels && in_shape(i).size() == 1);
  };

  switch (op.type) {
    case OpType::kAdd:
    case OpType::kMul:
    case OpType::kSub:
    case OpType::kDiv: {
      XNN_CHECK(op.inputs.size() == 2 && has_input(0) && has_input(1), "needs two inputs");
      XNN_CHECK(is_activation(0) || is_activation(1), "both inputs constant");
      XNN_CHECK(act_range(op.opts<ir::BinaryOptions>().activation), "TANH activation");
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t a, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t c, b->Value(op.inputs[1]));
      ASSIGN_OR_RETURN(uint32_t o, b->Value(out_t));
      auto define = op.type == OpType::kAdd   ? xnn_define_add2
                    : op.type == OpType::kMul ? xnn_define_multiply2
                    : op.type == OpType::kSub ? xnn_define_subtract
                                              : xnn_define_divide;
      XNN_DEFINE(define(b->subgraph(), lo, hi, a, c, o, 0));
      return absl::OkStatus();
    }
    case OpType::kConv2D:
    case OpType::kDepthwiseConv2D: {
      const bool dw = op.type == OpType::kDepthwiseConv2D;
      XNN_CHECK(is_activation(0) && in_shape(0).size() == 4, "input must be a 4-D activation");
      XNN_CHECK(has_input(1) && info.IsConstant(op.inputs[1]) && in_shape(1).size() == 4,
                "filter must be a constant 4-D tensor");
      const ir::Shape& x = in_shape(0);
      const ir::Shape& f = in_shape(1);
      int sh, sw, dh, dwl;
      ir::Padding pad;
      ir::Activation act;
      if (dw) {
        const auto& o = op.opts<ir::DepthwiseConv2DOptions>();
        sh = o.stride_h, sw = o.stride_w, dh = o.dilation_h, dwl = o.dilation_w;
        pad = o.padding, act = o.activation;
      } else {
        const auto& o = op.opts<ir::Conv2DOptions>();
        sh = o.stride_h, sw = o.stride_w, dh = o.dilation_h, dwl = o.dilation_w;
        pad = o.padding, act = o.activation;
      }
      const int oc = dw ? f[3] : f[0];
      XNN_CHECK(act_range(act), "TANH activation");
      XNN_CHECK(sh >= 1 && sw >= 1 && dh >= 1 && dwl >= 1, "bad stride or dilation");
      XNN_CHECK(dw ? (f[0] == 1 && x[3] > 0 && oc % x[3] == 0) : f[3] == x[3],
                "filter channels do not match the input");
      XNN_CHECK(bias_ok(2, oc), "bias must be a constant of output-channel length");
      const Pads ph = SpatialPads(pad, x[1], f[1], sh, dh);
      const Pads pw = SpatialPads(pad, x[2], f[2], sw, dwl);
      XNN_CHECK(out.shape.size() == 4 && out.shape[1] == ph.out && out.shape[2] == pw.out &&
                    out.shape[3] == oc,
                "output shape does not match the convolution");
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t filter, b->PackedWeight(op.inputs[1]));
      ASSIGN_OR_RETURN(uint32_t bias, bias_value(2, oc));
      ASSIGN_OR_RETURN(uint32_t o, b->Value(out_t));
      if (dw) {
        XNN_DEFINE(xnn_define_depthwise_convolution_2d(
            b->subgraph(), ph.before, pw.after, ph.after, pw.before, f[1], f[2], sh, sw, dh, dwl,
            oc / x[3], x[3], lo, hi, in, filter, bias, o, 0));
      } else {
        XNN_DEFINE(xnn_define_convolution_2d(b->subgraph(), ph.before, pw.after, ph.after,
                                             pw.before, f[1], f[2], sh, sw, dh, dwl, 1, x[3], oc,
                                             lo, hi, in, filter, bias, o, 0));
      }
      return absl::OkStatus();
    }
    case OpType::kTransposeConvBias: {
      XNN_CHECK(is_activation(0) && in_shape(0).size() == 4, "input must be a 4-D activation");
      XNN_CHECK(has_input(1) && info.IsConstant(op.inputs[1]) && in_shape(1).size() == 4,
                "filter must be a constant 4-D tensor");
      const ir::Shape& x = in_shape(0);
      const ir::Shape& f = in_shape(1);
      const auto& o = op.opts<ir::TransposeConvOptions>();
      XNN_CHECK(o.stride_h >= 1 && o.stride_w >= 1, "bad stride");
      XNN_CHECK(f[3] == x[3], "filter channels do not match the input");
      XNN_CHECK(bias_ok(2, f[0]), "bias must be a constant of output-channel length");
      XNN_CHECK(out.shape.size() == 4 && out.shape[3] == f[0], "bad output shape");
      // Only the unpadded case (every shipped model: 2x2 kernel, stride 2); other
      // paddings run on our own kernel, whose conventions are MediaPipe's.
      XNN_CHECK((x[1] - 1) * o.stride_h + f[1] == out.shape[1] &&
                    (x[2] - 1) * o.stride_w + f[2] == out.shape[2],
                "padded transposed convolution");
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t filter, b->PackedWeight(op.inputs[1]));
      ASSIGN_OR_RETURN(uint32_t bias, bias_value(2, f[0]));
      ASSIGN_OR_RETURN(uint32_t ov, b->Value(out_t));
      XNN_DEFINE(xnn_define_deconvolution_2d(b->subgraph(), 0, 0, 0, 0, 0, 0, f[1], f[2],
                                             o.stride_h, o.stride_w, 1, 1, 1, x[3], f[0], -kInf,
                                             kInf, in, filter, bias, ov, 0));
      return absl::OkStatus();
    }
    case OpType::kAveragePool2D:
    case OpType::kMaxPool2D: {
      XNN_CHECK(is_activation(0) && in_shape(0).size() == 4, "input must be a 4-D activation");
      const auto& o = op.opts<ir::Pool2DOptions>();
      const ir::Shape& x = in_shape(0);
      XNN_CHECK(act_range(o.activation), "TANH activation");
      XNN_CHECK(o.stride_h >= 1 && o.stride_w >= 1 && o.filter_h >= 1 && o.filter_w >= 1,
                "bad pooling parameters");
      XNN_CHECK(o.filter_h * o.filter_w > 1, "1x1 pooling");
      const Pads ph = SpatialPads(o.padding, x[1], o.filter_h, o.stride_h, 1);
      const Pads pw = SpatialPads(o.padding, x[2], o.filter_w, o.stride_w, 1);
      XNN_CHECK(out.shape.size() == 4 && out.shape[1] == ph.out && out.shape[2] == pw.out &&
                    out.shape[3] == x[3],
                "output shape does not match the pooling");
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t ov, b->Value(out_t));
      const bool global = op.type == OpType::kAveragePool2D && o.padding == ir::Padding::kValid &&
                          o.filter_h == x[1] && o.filter_w == x[2];
      if (global) {
        XNN_DEFINE(xnn_define_global_average_pooling_2d(b->subgraph(), lo, hi, in, ov, 0));
      } else if (op.type == OpType::kAveragePool2D) {
        XNN_DEFINE(xnn_define_average_pooling_2d(b->subgraph(), ph.before, pw.after, ph.after,
                                                 pw.before, o.filter_h, o.filter_w, o.stride_h,
                                                 o.stride_w, lo, hi, in, ov, 0));
      } else {
        XNN_DEFINE(xnn_define_max_pooling_2d(b->subgraph(), ph.before, pw.after, ph.after,
                                             pw.before, o.filter_h, o.filter_w, o.stride_h,
                                             o.stride_w, 1, 1, lo, hi, in, ov, 0));
      }
      return absl::OkStatus();
    }
    case OpType::kFullyConnected: {
      const auto& o = op.opts<ir::FullyConnectedOptions>();
      XNN_CHECK(is_activation(0), "input must be an activation");
      XNN_CHECK(has_input(1) && info.IsConstant(op.inputs[1]) && in_shape(1).size() == 2,
                "weights must be a constant 2-D tensor");
      const ir::Shape& x = in_shape(0);
      const int units = in_shape(1)[0], depth = in_shape(1)[1];
      XNN_CHECK(act_range(o.activation), "TANH activation");
      XNN_CHECK(bias_ok(2, units), "bias must be a constant of output length");
      XNN_CHECK(!x.empty() && depth > 0 && ir::NumElements(x) % depth == 0,
                "input size is not a multiple of the weights' depth");
      // Without the flag XNNPACK keeps the leading dims (last must be the depth);
      // with it the input is flattened to [N / depth, depth], as TFLite does.
      const bool keep = o.keep_num_dims || (x.size() == 2 && x[1] == depth);
      if (keep) {
        XNN_CHECK(x.back() == depth && out.shape.size() == x.size() && out.shape.back() == units,
                  "shape mismatch");
      } else {
        XNN_CHECK(out.shape.size() == 2 && out.shape[0] == ir::NumElements(x) / depth &&
                      out.shape[1] == units,
                  "shape mismatch");
      }
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t w, b->PackedWeight(op.inputs[1]));
      ASSIGN_OR_RETURN(uint32_t bias, bias_value(2, units));
      ASSIGN_OR_RETURN(uint32_t ov, b->Value(out_t));
      XNN_DEFINE(xnn_define_fully_connected(b->subgraph(), lo, hi, in, w, bias, ov,
                                            keep ? 0 : XNN_FLAG_TENSORFLOW_RESHAPE_2D));
      return absl::OkStatus();
    }
    case OpType::kLogistic:
    case OpType::kHardSwish:
    case OpType::kRelu:
    case OpType::kRelu6:
    case OpType::kSquare:
    case OpType::kSoftmax: {
      XNN_CHECK(op.inputs.size() == 1 && is_activation(0), "needs one activation input");
      XNN_CHECK(in_shape(0) == out.shape, "output shape differs from input");
      if (op.type == OpType::kSoftmax) {
        XNN_CHECK(op.opts<ir::SoftmaxOptions>().beta == 1.0f, "softmax beta != 1");
        XNN_CHECK(!out.shape.empty(), "softmax of a scalar");
      }
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t ov, b->Value(out_t));
      switch (op.type) {
        case OpType::kLogistic:
          XNN_DEFINE(xnn_define_sigmoid(b->subgraph(), in, ov, 0));
          break;
        case OpType::kHardSwish:
          XNN_DEFINE(xnn_define_hardswish(b->subgraph(), in, ov, 0));
          break;
        case OpType::kRelu:
          XNN_DEFINE(xnn_define_clamp(b->subgraph(), 0.f, kInf, in, ov, 0));
          break;
        case OpType::kRelu6:
          XNN_DEFINE(xnn_define_clamp(b->subgraph(), 0.f, 6.f, in, ov, 0));
          break;
        case OpType::kSquare:
          XNN_DEFINE(xnn_define_square(b->subgraph(), in, ov, 0));
          break;
        default:
          XNN_DEFINE(xnn_define_softmax(b->subgraph(), in, ov, 0));
          break;
      }
      return absl::OkStatus();
    }
    case OpType::kPad: {
      XNN_CHECK(op.inputs.size() == 2 && is_activation(0), "needs an activation input");
      const int rank = static_cast<int>(in_shape(0).size());
      XNN_CHECK(has_input(1) && g.tensors[op.inputs[1]].is_constant &&
                    g.tensors[op.inputs[1]].dtype == ir::DType::kInt32 &&
                    ir::NumElements(in_shape(1)) == 2 * rank &&
                    g.tensors[op.inputs[1]].data.size() == 8u * rank,
                "paddings must be a constant int32 [rank, 2] tensor");
      const int32_t* p = g.tensors[op.inputs[1]].i32();
      std::vector<size_t> pre(rank), post(rank);
      for (int d = 0; d < rank; ++d) {
        XNN_CHECK(p[2 * d] >= 0 && p[2 * d + 1] >= 0, "negative padding");
        XNN_CHECK(out.shape.size() == static_cast<size_t>(rank) &&
                      out.shape[d] == in_shape(0)[d] + p[2 * d] + p[2 * d + 1],
                  "output shape does not match the paddings");
        pre[d] = p[2 * d], post[d] = p[2 * d + 1];
      }
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t ov, b->Value(out_t));
      XNN_DEFINE(
          xnn_define_static_constant_pad(b->subgraph(), pre.data(), post.data(), 0.f, in, ov, 0));
      return absl::OkStatus();
    }
    case OpType::kMean: {
      XNN_CHECK(is_activation(0) && in_shape(0).size() == 4, "input must be a 4-D activation");
      XNN_CHECK(has_input(1) && g.tensors[op.inputs[1]].is_constant &&
                    g.tensors[op.inputs[1]].dtype == ir::DType::kInt32 &&
                    g.tensors[op.inputs[1]].data.size() == 8,
                "axes must be a constant int32 pair");
      const int32_t* ax = g.tensors[op.inputs[1]].i32();
      const int a0 = ax[0] < 0 ? ax[0] + 4 : ax[0], a1 = ax[1] < 0 ? ax[1] + 4 : ax[1];
      XNN_CHECK(std::min(a0, a1) == 1 && std::max(a0, a1) == 2,
                "only the spatial mean (axes 1, 2) maps to XNNPACK");
      const ir::Shape& x = in_shape(0);
      const bool keep = op.opts<ir::ReducerOptions>().keep_dims;
      const ir::Shape want = keep ? ir::Shape{x[0], 1, 1, x[3]} : ir::Shape{x[0], x[3]};
      XNN_CHECK(out.shape == want, "output shape does not match the mean");
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t ov, b->Value(out_t));
      if (keep) {
        XNN_DEFINE(xnn_define_global_average_pooling_2d(b->subgraph(), -kInf, kInf, in, ov, 0));
      } else {
        const std::vector<size_t> pooled = {static_cast<size_t>(x[0]), 1, 1,
                                            static_cast<size_t>(x[3])};
        ASSIGN_OR_RETURN(uint32_t mid, b->InternalValue(pooled));
        XNN_DEFINE(xnn_define_global_average_pooling_2d(b->subgraph(), -kInf, kInf, in, mid, 0));
        const std::vector<size_t> dims = Dims(out.shape);
        XNN_DEFINE(xnn_define_static_reshape(b->subgraph(), dims.size(), dims.data(), mid, ov, 0));
      }
      return absl::OkStatus();
    }
    case OpType::kResizeBilinear: {
      XNN_CHECK(is_activation(0) && in_shape(0).size() == 4, "input must be a 4-D activation");
      const auto& o = op.opts<ir::ResizeBilinearOptions>();
      XNN_CHECK(!(o.align_corners && o.half_pixel_centers),
                "align_corners with half_pixel_centers");
      XNN_CHECK(
          out.shape.size() == 4 && out.shape[0] == in_shape(0)[0] && out.shape[3] == in_shape(0)[3],
          "bad output shape");
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t ov, b->Value(out_t));
      const uint32_t flags = o.align_corners        ? XNN_FLAG_ALIGN_CORNERS
                             : o.half_pixel_centers ? 0
                                                    : XNN_FLAG_TENSORFLOW_LEGACY_MODE;
      XNN_DEFINE(xnn_define_static_resize_bilinear_2d(b->subgraph(), out.shape[1], out.shape[2], in,
                                                      ov, flags));
      return absl::OkStatus();
    }
    case OpType::kDepthToSpace: {
      XNN_CHECK(is_activation(0) && in_shape(0).size() == 4, "input must be a 4-D activation");
      const int bs = op.opts<ir::DepthToSpaceOptions>().block_size;
      const ir::Shape& x = in_shape(0);
      XNN_CHECK(bs >= 2 && x[3] % (bs * bs) == 0, "bad block size");
      XNN_CHECK(out.shape == (ir::Shape{x[0], x[1] * bs, x[2] * bs, x[3] / (bs * bs)}),
                "bad output shape");
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t ov, b->Value(out_t));
      XNN_DEFINE(xnn_define_depth_to_space(b->subgraph(), in, ov, bs, 0));
      return absl::OkStatus();
    }
    case OpType::kPrelu: {
      XNN_CHECK(op.inputs.size() == 2 && is_activation(0) && !in_shape(0).empty(),
                "needs an activation input");
      XNN_CHECK(info.IsConstant(op.inputs[1]), "slope must be constant");
      const int channels = in_shape(0).back();
      const ir::Shape& s = in_shape(1);
      bool per_channel = ir::NumElements(s) == channels && !s.empty() && s.back() == channels;
      XNN_CHECK(per_channel, "slope must be per-channel ([..., 1, C])");
      XNN_CHECK(out.shape == in_shape(0), "output shape differs from input");
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(std::vector<float> slope, info.ConstantAsFloat(op.inputs[1]));
      ASSIGN_OR_RETURN(uint32_t sv,
                       b->StaticValue({static_cast<size_t>(channels)}, std::move(slope)));
      ASSIGN_OR_RETURN(uint32_t ov, b->Value(out_t));
      XNN_DEFINE(xnn_define_prelu(b->subgraph(), in, sv, ov, 0));
      return absl::OkStatus();
    }
    case OpType::kReshape: {
      XNN_CHECK(is_activation(0), "input must be an activation");
      XNN_CHECK(ir::NumElements(in_shape(0)) == out.num_elements(), "element count changes");
      if (!b) return absl::OkStatus();
      ASSIGN_OR_RETURN(uint32_t in, b->Value(op.inputs[0]));
      ASSIGN_OR_RETURN(uint32_t ov, b->Value(out_t));
      const std::vector<size_t> dims = Dims(out.shape);
      XNN_DEFINE(xnn_define_static_reshape(b->subgraph(), dims.size(), dims.data(), in, ov, 0));
      return absl::OkStatus();
    }
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat(g.OpLabel(op_index), ": no XNNPACK node for this op in this version"));
}

}  // namespace sluice::inference::xnn
