#include "inference/passes.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace sluice::inference {
namespace {

using ir::Graph;
using ir::Op;
using ir::OpType;
using ir::Tensor;

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

// Expands a TACO-style sparse constant (no blocks) into dense row-major data.
absl::Status Densify(Tensor& t, absl::string_view source) {
  const ir::Sparsity& sp = t.sparsity[0];
  const size_t elem = ir::DTypeSize(t.dtype);
  const int rank = static_cast<int>(t.shape.size());
  const size_t num_values = t.data.size() / elem;
  std::vector<uint8_t> dense(t.byte_size(), 0);
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * t.shape[d + 1];
  std::vector<int> coords(rank, 0);
  size_t next_value = 0;
  const auto bad = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": sparse constant '", t.name, "': ", what));
  };
  // Depth = rank, so plain recursion is fine.
  std::function<absl::Status(int, int64_t)> fill = [&](int level, int64_t prev) -> absl::Status {
    if (level == rank) {
      if (next_value >= num_values) return bad("more positions than stored values");
      int64_t linear = 0;
      for (int d = 0; d < rank; ++d) linear += coords[d] * strides[d];
      std::memcpy(dense.data() + linear * elem, t.data.data() + next_value * elem, elem);
      ++next_value;
      return absl::OkStatus();
    }
    const int dim = sp.traversal_order[level];
    const ir::SparseDim& md = sp.dims[level];
    if (!md.sparse) {
      if (md.dense_size != t.shape[dim])
        return bad("dense dimension size does not match the shape");
      for (int i = 0; i < md.dense_size; ++i) {
        coords[dim] = i;
        RETURN_IF_ERROR(fill(level + 1, prev * md.dense_size + i));
      }
      return absl::OkStatus();
    }
    if (prev < 0 || prev + 1 >= static_cast<int64_t>(md.segments.size()))
      return bad("segment index out of range");
    const int32_t lo = md.segments[prev], hi = md.segments[prev + 1];
    if (lo < 0 || hi < lo || hi > static_cast<int32_t>(md.indices.size()))
      return bad("bad segment bounds");
    for (int32_t j = lo; j < hi; ++j) {
      const int32_t idx = md.indices[j];
      if (idx < 0 || idx >= t.shape[dim]) return bad("index out of range");
      coords[dim] = idx;
      RETURN_IF_ERROR(fill(level + 1, j));
    }
    return absl::OkStatus();
  };
  if (rank > 0) RETURN_IF_ERROR(fill(0, 0));
  t.data = std::move(dense);
  t.sparsity.clear();
  return absl::OkStatus();
}

absl::Status DequantizeInto(const Tensor& in, Tensor& out, absl::string_view where) {
  const int64_t n = in.num_elements();
  std::vector<uint8_t> data(n * sizeof(float));
  float* dst = reinterpret_cast<float*>(data.data());
  switch (in.dtype) {
    case ir::DType::kFloat16:
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, in.data.data() + 2 * i, 2);
        dst[i] = HalfToFloat(h);
      }
      break;
    case ir::DType::kFloat32:
      std::memcpy(dst, in.data.data(), n * sizeof(float));
      break;
    case ir::DType::kInt8:
    case ir::DType::kUInt8: {
      if (in.scale.size() != 1) {
        return absl::UnimplementedError(
            absl::StrCat(where, ": only per-tensor int8/uint8 dequantization is supported"));
      }
      const float scale = in.scale[0];
      const int64_t zp = in.zero_point.empty() ? 0 : in.zero_point[0];
      for (int64_t i = 0; i < n; ++i) {
        const int64_t q =
            in.dtype == ir::DType::kInt8 ? static_cast<int8_t>(in.data[i]) : in.data[i];
        dst[i] = scale * static_cast<float>(q - zp);
      }
      break;
    }
    default:
      return absl::UnimplementedError(
          absl::StrCat(where, ": cannot dequantize ", std::string(ir::DTypeName(in.dtype))));
  }
  if (out.dtype != ir::DType::kFloat32 || out.num_elements() != n) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": output must be float32 with the input's element count"));
  }
  out.data = std::move(data);
  out.is_constant = true;
  return absl::OkStatus();
}

// The fused-activation field of ops that have one, else null.
ir::Activation* ActivationSlot(Op& op) {
  if (auto* o = std::get_if<ir::Conv2DOptions>(&op.options)) return &o->activation;
  if (auto* o = std::get_if<ir::DepthwiseConv2DOptions>(&op.options)) return &o->activation;
  if (auto* o = std::get_if<ir::Pool2DOptions>(&op.options)) return &o->activation;
  if (auto* o = std::get_if<ir::FullyConnectedOptions>(&op.options)) return &o->activation;
  if (auto* o = std::get_if<ir::BinaryOptions>(&op.options)) return &o->activation;
  if (auto* o = std::get_if<ir::ConcatenationOptions>(&op.options)) return &o->activation;
  return nullptr;
}

std::vector<int> ConsumerCounts(const Graph& g) {
  std::vector<int> n(g.tensors.size(), 0);
  for (const Op& op : g.ops) {
    for (int t : op.inputs)
      if (t >= 0) ++n[t];
  }
  for (int t : g.outputs) ++n[t];
  return n;
}

}  // namespace

absl::Status FoldConstants(Graph& g, const ConstantEvaluator& evaluator) {
  for (Tensor& t : g.tensors) {
    if (t.is_constant && !t.sparsity.empty()) RETURN_IF_ERROR(Densify(t, g.source));
  }
  std::vector<Op> kept;
  for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
    Op& op = g.ops[i];
    bool all_const = !op.inputs.empty();
    for (int t : op.inputs) {
      if (t >= 0 && !g.tensors[t].is_constant) all_const = false;
    }
    bool folded = false;
    if (all_const && op.outputs.size() == 1) {
      Tensor& out = g.tensors[op.outputs[0]];
      const Tensor& in = g.tensors[op.inputs[0]];
      if (op.type == OpType::kDequantize) {
        RETURN_IF_ERROR(DequantizeInto(in, out, g.OpLabel(i)));
        folded = true;
      } else if (op.type == OpType::kDensify) {
        if (in.dtype != out.dtype || in.byte_size() != out.byte_size()) {
          return absl::InvalidArgumentError(
              absl::StrCat(g.OpLabel(i), ": output type/shape differ from the input"));
        }
        out.data = in.data;
        out.is_constant = true;
        folded = true;
      }
    }
    if (!folded && all_const && evaluator) {
      RETURN_IF_ERROR(evaluator(g, i));
      for (int t : op.outputs) g.tensors[t].is_constant = true;
      folded = true;
    }
    if (!folded) kept.push_back(std::move(op));
  }
  g.ops = std::move(kept);
  for (const Op& op : g.ops) {
    if (op.type == OpType::kDequantize || op.type == OpType::kDensify) {
      return absl::UnimplementedError(absl::StrCat(g.source, ": operator ", op.source_index, " (",
                                                   std::string(ir::OpTypeName(op.type)),
                                                   ") on a non-constant input is not supported"));
    }
  }
  return absl::OkStatus();
}

absl::Status FuseActivations(Graph& g) {
  std::vector<int> producer(g.tensors.size(), -1);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (int t : g.ops[i].outputs) producer[t] = static_cast<int>(i);
  }
  const std::vector<int> consumers = ConsumerCounts(g);
  std::vector<bool> removed(g.ops.size(), false);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    Op& act = g.ops[i];
    if (act.type != OpType::kRelu && act.type != OpType::kRelu6) continue;
    if (act.inputs.size() != 1 || act.outputs.size() != 1) continue;
    const int t = act.inputs[0];
    if (t < 0 || producer[t] < 0 || consumers[t] != 1) continue;
    Op& prod = g.ops[producer[t]];
    if (prod.outputs.size() != 1) continue;
    ir::Activation* slot = ActivationSlot(prod);
    if (slot == nullptr || *slot != ir::Activation::kNone) continue;
    if (g.tensors[act.outputs[0]].shape != g.tensors[t].shape) continue;
    *slot = act.type == OpType::kRelu ? ir::Activation::kRelu : ir::Activation::kRelu6;
    prod.outputs[0] = act.outputs[0];
    removed[i] = true;
  }
  std::vector<Op> kept;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!removed[i]) kept.push_back(std::move(g.ops[i]));
  }
  g.ops = std::move(kept);
  return absl::OkStatus();
}

absl::Status SimplifyViews(Graph& g) {
  for (Op& op : g.ops) {
    if (op.type == OpType::kReshape && op.inputs.size() > 1) {
      op.inputs.resize(1);  // the target shape is the output tensor's shape
    }
    if (op.type != OpType::kStridedSlice || op.inputs.size() != 4) continue;
    const auto& o = op.opts<ir::StridedSliceOptions>();
    if (o.ellipsis_mask || o.new_axis_mask || o.shrink_axis_mask || o.offset) continue;
    const Tensor& in = g.tensors[op.inputs[0]];
    const Tensor& out = g.tensors[op.outputs[0]];
    const Tensor* b = op.inputs[1] >= 0 ? &g.tensors[op.inputs[1]] : nullptr;
    const Tensor* e = op.inputs[2] >= 0 ? &g.tensors[op.inputs[2]] : nullptr;
    const Tensor* s = op.inputs[3] >= 0 ? &g.tensors[op.inputs[3]] : nullptr;
    const size_t rank = in.shape.size();
    if (!b || !e || !s || !b->is_constant || !e->is_constant || !s->is_constant) continue;
    if (b->dtype != ir::DType::kInt32 || e->dtype != ir::DType::kInt32 ||
        s->dtype != ir::DType::kInt32)
      continue;
    if (b->num_elements() != static_cast<int64_t>(rank) ||
        e->num_elements() != static_cast<int64_t>(rank) ||
        s->num_elements() != static_cast<int64_t>(rank) || out.shape != in.shape) {
      continue;
    }
    bool identity = true;
    for (size_t d = 0; d < rank; ++d) {
      const bool begin0 = (o.begin_mask >> d & 1) || b->i32()[d] == 0;
      const bool end_full = (o.end_mask >> d & 1) || e->i32()[d] >= in.shape[d];
      if (!begin0 || !end_full || s->i32()[d] != 1) identity = false;
    }
    if (identity) {
      op.type = OpType::kReshape;
      op.inputs.resize(1);
      op.options = std::monostate();
    }
  }
  return absl::OkStatus();
}

absl::Status RemoveDeadCode(Graph& g) {
  std::vector<bool> live(g.tensors.size(), false);
  for (int t : g.outputs) live[t] = true;
  std::vector<bool> op_live(g.ops.size(), false);
  for (int i = static_cast<int>(g.ops.size()) - 1; i >= 0; --i) {
    for (int t : g.ops[i].outputs)
      if (live[t]) op_live[i] = true;
    if (!op_live[i]) continue;
    for (int t : g.ops[i].inputs)
      if (t >= 0) live[t] = true;
  }
  std::vector<Op> kept;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (op_live[i]) kept.push_back(std::move(g.ops[i]));
  }
  g.ops = std::move(kept);
  // Renumber: keep tensors used by a live op or a graph port, in their order.
  std::vector<bool> used(g.tensors.size(), false);
  for (int t : g.inputs) used[t] = true;
  for (int t : g.outputs) used[t] = true;
  for (const Op& op : g.ops) {
    for (int t : op.inputs)
      if (t >= 0) used[t] = true;
    for (int t : op.outputs) used[t] = true;
  }
  std::vector<int> remap(g.tensors.size(), -1);
  std::vector<Tensor> tensors;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (!used[t]) continue;
    remap[t] = static_cast<int>(tensors.size());
    tensors.push_back(std::move(g.tensors[t]));
  }
  g.tensors = std::move(tensors);
  auto apply = [&](std::vector<int>& v) {
    for (int& t : v)
      if (t >= 0) t = remap[t];
  };
  apply(g.inputs);
  apply(g.outputs);
  for (Op& op : g.ops) {
    apply(op.inputs);
    apply(op.outputs);
  }
  return absl::OkStatus();
}

absl::Status RunLoadPasses(Graph& g, const ConstantEvaluator& evaluator) {
  RETURN_IF_ERROR(FoldConstants(g, evaluator));
  RETURN_IF_ERROR(SimplifyViews(g));
  RETURN_IF_ERROR(FuseActivations(g));
  RETURN_IF_ERROR(RemoveDeadCode(g));
  return g.Validate();
}

namespace {

// Values of a constant int32/int64 tensor (shape-bearing inputs).
bool ConstIntValues(const Tensor& t, std::vector<int64_t>* v) {
  if (!t.is_constant) return false;
  v->resize(t.num_elements());
  if (t.dtype == ir::DType::kInt32) {
    for (size_t k = 0; k < v->size(); ++k) (*v)[k] = t.i32()[k];
  } else if (t.dtype == ir::DType::kInt64) {
    const auto* p = reinterpret_cast<const int64_t*>(t.data.data());
    for (size_t k = 0; k < v->size(); ++k) (*v)[k] = p[k];
  } else {
    return false;
  }
  return true;
}

int64_t TrailingElements(const ir::Shape& s) {
  int64_t n = 1;
  for (size_t d = 1; d < s.size(); ++d) n *= s[d];
  return n;
}

// Why op `i` cannot carry a batch (its batched inputs given), or "" if it
// can: its outputs then carry it in dim 0. Shapes are the batch-1 ones.
std::string RebatchBlocker(const Graph& g, int i, const std::vector<bool>& batched) {
  const Op& op = g.ops[i];
  const auto in = [&](int k) -> const Tensor& { return g.tensors[op.inputs[k]]; };
  const auto is_batched = [&](int k) {
    return k < static_cast<int>(op.inputs.size()) && op.inputs[k] >= 0 && batched[op.inputs[k]];
  };
  switch (op.type) {
    case OpType::kLandmarksToTransformMatrix:
    case OpType::kTransformLandmarks:
    case OpType::kTransformTensorBilinear:
      return "MediaPipe's custom op is defined for batch 1 only";
    case OpType::kDequantize:
    case OpType::kDensify:
      return "load-time op (run the load passes first)";
    default:
      break;
  }
  if (op.outputs.empty()) return "no output";
  for (int t : op.outputs) {
    const ir::Shape& s = g.tensors[t].shape;
    if (s.empty() || s[0] != 1) {
      return absl::StrCat("output '", g.tensors[t].name, "' ", ir::ShapeString(s),
                          " has no leading batch dimension of 1");
    }
  }
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    if (op.inputs[k] >= 0 && batched[op.inputs[k]] &&
        g.tensors[op.inputs[k]].shape.size() != g.tensors[op.outputs[0]].shape.size() &&
        op.type != OpType::kReshape && op.type != OpType::kFullyConnected &&
        op.type != OpType::kMean && op.type != OpType::kStridedSlice) {
      return absl::StrCat("input ", k, " has rank ", g.tensors[op.inputs[k]].shape.size(),
                          ", the output another: dim 0 would not stay the batch");
    }
  }
  switch (op.type) {
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kDiv:
    case OpType::kPrelu:
    case OpType::kLogistic:
    case OpType::kRelu:
    case OpType::kRelu6:
    case OpType::kTanh:
    case OpType::kHardSwish:
    case OpType::kSquare:
    case OpType::kConv2D:
    case OpType::kDepthwiseConv2D:
    case OpType::kTransposeConvBias:
    case OpType::kAveragePool2D:
    case OpType::kMaxPool2D:
    case OpType::kResizeBilinear:
    case OpType::kDepthToSpace:
      // Per-item ops (NHWC, or elementwise where the unbatched operands
      // broadcast over dim 0 since the output's dim 0 is 1).
      return "";
    case OpType::kSoftmax:
      return in(0).shape.size() >= 2 ? "" : "softmax over the batch dimension";
    case OpType::kReshape:
      // The output keeps a leading 1 (checked above) and the element count,
      // so dims 1.. hold one item.
      return "";
    case OpType::kFullyConnected: {
      if (op.opts<ir::FullyConnectedOptions>().keep_num_dims) return "";
      const Tensor& w = in(1);
      if (w.shape.size() == 2 && TrailingElements(in(0).shape) == w.shape[1] &&
          g.tensors[op.outputs[0]].shape.size() == 2) {
        return "";  // one row per item: rows = batch
      }
      return "keep_num_dims=false folds the batch into its rows";
    }
    case OpType::kMean: {
      std::vector<int64_t> axes;
      if (op.inputs.size() < 2 || op.inputs[1] < 0 || !ConstIntValues(in(1), &axes))
        return "axes are not a constant";
      const int64_t rank = static_cast<int64_t>(in(0).shape.size());
      for (int64_t a : axes) {
        if (a == 0 || a == -rank) return "reduces over the batch dimension (axis 0)";
      }
      return "";
    }
    case OpType::kPad: {
      std::vector<int64_t> pads;
      if (op.inputs.size() < 2 || op.inputs[1] < 0 || !ConstIntValues(in(1), &pads))
        return "paddings are not a constant";
      return pads.size() >= 2 && pads[0] == 0 && pads[1] == 0 ? "" : "pads the batch dimension";
    }
    case OpType::kConcatenation: {
      const int rank = static_cast<int>(g.tensors[op.outputs[0]].shape.size());
      const int axis = op.opts<ir::ConcatenationOptions>().axis;
      if (axis == 0 || axis == -rank) return "concatenates along the batch dimension (axis 0)";
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        if (!is_batched(static_cast<int>(k))) {
          return absl::StrCat("input ", k, " is a constant (it would need one copy per item)");
        }
      }
      return "";
    }
    case OpType::kStridedSlice: {
      const auto& o = op.opts<ir::StridedSliceOptions>();
      std::vector<int64_t> b, e, st;
      if (op.inputs.size() != 4 || !ConstIntValues(in(1), &b) || !ConstIntValues(in(2), &e) ||
          !ConstIntValues(in(3), &st) || b.empty() || e.empty() || st.empty()) {
        return "begin/end/strides are not constants";
      }
      if (o.ellipsis_mask || o.new_axis_mask || (o.shrink_axis_mask & 1))
        return "its masks move or drop the batch dimension";
      // At batch 1 dim 0 must be taken whole: [0, 1) with stride 1.
      const bool begin0 = (o.begin_mask & 1) || b[0] == 0 || b[0] == -1;
      const bool end1 = (o.end_mask & 1) || (o.offset ? b[0] + e[0] >= 1 : e[0] >= 1);
      if (!begin0 || !end1 || st[0] != 1) return "slices the batch dimension";
      return "";
    }
    case OpType::kLandmarksToTransformMatrix:
    case OpType::kTransformLandmarks:
    case OpType::kTransformTensorBilinear:
    case OpType::kDequantize:
    case OpType::kDensify:
      break;  // rejected above
  }
  return "unknown op";
}

}  // namespace

absl::Status Rebatch(Graph& g, int batch) {
  if (batch < 1) {
    return absl::InvalidArgumentError(absl::StrCat(g.source, ": batch must be >= 1, got ", batch));
  }
  if (batch == 1) return absl::OkStatus();
  std::vector<bool> batched(g.tensors.size(), false);
  for (int t : g.inputs) {
    const Tensor& x = g.tensors[t];
    if (x.shape.empty() || x.shape[0] != 1) {
      return absl::UnimplementedError(absl::StrCat(g.source, ": cannot re-batch: graph input '",
                                                   x.name, "' ", ir::ShapeString(x.shape),
                                                   " has no leading batch dimension of 1"));
    }
    batched[t] = true;
  }
  std::vector<int> slices;  // STRIDED_SLICE ops that get begin/end mask bit 0
  for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
    const Op& op = g.ops[i];
    bool any = false;
    for (int t : op.inputs) any = any || (t >= 0 && batched[t]);
    if (!any) continue;  // constant-only work (folded by the load passes anyway)
    const std::string why = RebatchBlocker(g, i, batched);
    if (!why.empty()) {
      return absl::UnimplementedError(
          absl::StrCat(g.OpLabel(i), ": cannot re-batch to ", batch, ": ", why));
    }
    for (int t : op.outputs) batched[t] = true;
    if (op.type == OpType::kStridedSlice) slices.push_back(i);
  }
  // Only now change anything (on error the graph is left as it was).
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (batched[t]) g.tensors[t].shape[0] = batch;
  }
  for (int i : slices) {
    auto& o = std::get<ir::StridedSliceOptions>(g.ops[i].options);
    o.begin_mask |= 1;
    o.end_mask |= 1;
  }
  for (Op& op : g.ops) {
    if (op.type == OpType::kReshape && op.inputs.size() > 1) op.inputs.resize(1);
  }
  return g.Validate();
}

}  // namespace sluice::inference
