// Family dispatch of the cuda backend's ops (cuda_ops.h): conv and custom ops
// go to their families (cuda_ops_conv.cc, cuda_ops_custom.cc, or their
// *_missing.cc fallbacks while those are not built), everything else to the
// elementwise family.
#include <vector>

#include "absl/strings/str_cat.h"
#include "inference/cuda/cuda_ops.h"
#include "inference/cuda/kernels/epilogue.h"

namespace sluice::inference::cuda {
namespace {

absl::Status CheckIndex(const ir::Graph& graph, int op_index) {
  if (op_index < 0 || op_index >= static_cast<int>(graph.ops.size())) {
    return absl::InvalidArgumentError(absl::StrCat(graph.source, ": no op ", op_index));
  }
  return absl::OkStatus();
}

// How an ADD/MUL/PRELU operand of shape `o` reaches an output of shape `y`
// (kernels/epilogue.h EpilogueOperand), or -1 if the epilogue cannot index it.
int OperandKind(const ir::Shape& o, const ir::Shape& y) {
  if (o == y) return kernels::kEpiFull;
  if (ir::NumElements(o) == 1) return kernels::kEpiScalar;
  if (o.empty() || y.empty() || o.size() > y.size() || o.back() != y.back()) return -1;
  for (size_t d = 0; d + 1 < o.size(); ++d)
    if (o[d] != 1) return -1;
  return kernels::kEpiChannel;
}

// A PAD of zeros on H and W only, with constant paddings, rank 4.
bool IsSpatialPad(const ir::Graph& g, const ir::Op& pad, int* top, int* left) {
  if (pad.inputs.size() != 2 || pad.inputs[1] < 0) return false;
  const ir::Tensor &x = g.tensors[pad.inputs[0]], &pads = g.tensors[pad.inputs[1]];
  if (x.shape.size() != 4 || x.dtype != ir::DType::kFloat32 || x.num_elements() == 0 ||
      !pads.is_constant || pads.num_elements() != 8) {
    return false;
  }
  int64_t v[8];
  for (int i = 0; i < 8; ++i) {
    if (pads.dtype == ir::DType::kInt32 && pads.data.size() >= 32) {
      v[i] = pads.i32()[i];
    } else if (pads.dtype == ir::DType::kInt64 && pads.data.size() >= 64) {
      v[i] = reinterpret_cast<const int64_t*>(pads.data.data())[i];
    } else {
      return false;
    }
    if (v[i] < 0 || v[i] > (1 << 20)) return false;
  }
  if (v[0] || v[1] || v[6] || v[7]) return false;  // batch, channels
  *top = static_cast<int>(v[2]);
  *left = static_cast<int>(v[4]);
  return true;
}

// A PAD of zeros on the channels only (rank 4, constant paddings); its
// leading channel count.
bool IsChannelPad(const ir::Graph& g, const ir::Op& pad, int* before) {
  if (pad.inputs.size() != 2 || pad.inputs[1] < 0) return false;
  const ir::Tensor &x = g.tensors[pad.inputs[0]], &pads = g.tensors[pad.inputs[1]];
  if (x.shape.size() != 4 || x.dtype != ir::DType::kFloat32 || x.num_elements() == 0 ||
      !pads.is_constant || pads.num_elements() != 8 || pads.dtype != ir::DType::kInt32 ||
      pads.data.size() < 32) {
    return false;
  }
  const int32_t* v = pads.i32();
  for (int i = 0; i < 6; ++i)
    if (v[i] != 0) return false;
  if (v[6] < 0 || v[7] < 0) return false;
  *before = v[6];
  return true;
}

}  // namespace

FusionPlan PlanFusion(const ir::Graph& g, const std::vector<bool>& on_device) {
  const int n_ops = static_cast<int>(g.ops.size()), n_t = static_cast<int>(g.tensors.size());
  FusionPlan plan;
  plan.fused_into.assign(n_ops, -1);
  plan.fusion.assign(n_ops, ConvFusion{});
  std::vector<int> producer(n_t, -1), uses(n_t, 0), user(n_t, -1);
  std::vector<std::vector<int>> users(n_t);
  std::vector<bool> is_output(n_t, false);
  for (int t : g.outputs) is_output[t] = true;
  for (int i = 0; i < n_ops; ++i) {
    for (int t : g.ops[i].outputs) producer[t] = i;
    for (int t : g.ops[i].inputs) {
      if (t < 0) continue;
      ++uses[t];
      user[t] = i;
      if (users[t].empty() || users[t].back() != i) users[t].push_back(i);
    }
  }
  auto dev = [&](int i) { return i >= 0 && i < n_ops && on_device[i] && plan.fused_into[i] < 0; };
  // A tensor the fused chain may hand on: one use, not a graph output.
  auto internal = [&](int t) { return uses[t] == 1 && !is_output[t]; };
  for (int i = 0; i < n_ops; ++i) {
    const ir::Op& op = g.ops[i];
    const bool conv = op.type == ir::OpType::kConv2D || op.type == ir::OpType::kDepthwiseConv2D;
    if (!dev(i) || !(conv || op.type == ir::OpType::kFullyConnected)) continue;
    if (op.outputs.size() != 1 || op.inputs.empty() || op.inputs[0] < 0) continue;
    ConvFusion f;
    f.input = op.inputs[0];
    f.output = op.outputs[0];
    const int pad = producer[f.input];
    int top = 0, left = 0;
    // Every consumer of the padded tensor must read through the PAD (pose
    // detection's heads share one): all are convs taking it as input 0.
    auto all_convs_read = [&](int t) {
      if (is_output[t]) return false;
      for (int k : users[t]) {
        const ir::Op& u = g.ops[k];
        if (!on_device[k] || plan.fused_into[k] >= 0 || u.inputs[0] != t ||
            (u.type != ir::OpType::kConv2D && u.type != ir::OpType::kDepthwiseConv2D)) {
          return false;
        }
        for (size_t j = 1; j < u.inputs.size(); ++j)
          if (u.inputs[j] == t) return false;
      }
      return true;
    };
    const bool pad_free = pad >= 0 && on_device[pad] &&
                          (plan.fused_into[pad] < 0 ||
                           plan.fusion[plan.fused_into[pad]].pad_op == pad);
    if (conv && pad_free && g.ops[pad].type == ir::OpType::kPad && all_convs_read(f.input) &&
        IsSpatialPad(g, g.ops[pad], &top, &left)) {
      f.pad_op = pad;
      f.input = g.ops[pad].inputs[0];
      f.pad_top = top;
      f.pad_left = left;
    }
    int t = f.output;
    while (static_cast<int>(f.epilogue.size()) < kernels::kMaxEpilogueSteps && internal(t)) {
      const int c = user[t];
      if (!dev(c) || g.ops[c].outputs.size() != 1) break;
      const ir::Op& cop = g.ops[c];
      const ir::Tensor& y = g.tensors[cop.outputs[0]];
      if (y.dtype != ir::DType::kFloat32 || y.shape != g.tensors[t].shape) break;
      EpilogueOp e{c, -1};
      if (UnaryKernelCode(cop.type) >= 0) {
        if (cop.inputs.size() != 1) break;
      } else if (cop.type == ir::OpType::kAdd || cop.type == ir::OpType::kMul ||
                 cop.type == ir::OpType::kPrelu) {
        if (cop.inputs.size() != 2) break;
        // PRELU's alpha is input 1; ADD and MUL commute (exactly, in IEEE).
        if (cop.type == ir::OpType::kPrelu && cop.inputs[0] != t) break;
        e.operand = cop.inputs[0] == t ? cop.inputs[1] : cop.inputs[0];
        if (e.operand < 0 || e.operand == t) break;
        const ir::Tensor& o = g.tensors[e.operand];
        if (o.dtype != ir::DType::kFloat32 || OperandKind(o.shape, y.shape) < 0) break;
        // ADD/MUL of a channel-padded tensor: read the PAD's input instead.
        const int q = producer[e.operand];
        int before = 0;
        if (cop.type != ir::OpType::kPrelu && o.shape == y.shape && dev(q) &&
            g.ops[q].type == ir::OpType::kPad && internal(e.operand) &&
            IsChannelPad(g, g.ops[q], &before)) {
          e.pad_op = q;
          e.pad_before = before;
          e.operand = g.ops[q].inputs[0];
        }
      } else {
        break;
      }
      f.epilogue.push_back(e);
      t = cop.outputs[0];
    }
    f.output = t;
    f.run_at = f.epilogue.empty() ? i : f.epilogue.back().op;
    if (!f.any()) continue;
    if (f.pad_op >= 0 && plan.fused_into[f.pad_op] < 0) plan.fused_into[f.pad_op] = i;
    for (const EpilogueOp& e : f.epilogue) {
      plan.fused_into[e.op] = i;
      if (e.pad_op >= 0) plan.fused_into[e.pad_op] = i;
    }
    plan.fusion[i] = std::move(f);
  }
  // Execution order: unfused ops in place, heads where their chain ends.
  std::vector<int> head_at(n_ops, -1);
  for (int i = 0; i < n_ops; ++i)
    if (plan.fusion[i].any()) head_at[plan.fusion[i].run_at] = i;
  for (int i = 0; i < n_ops; ++i) {
    if (head_at[i] >= 0) {
      plan.order.push_back(head_at[i]);
    } else if (plan.fused_into[i] < 0 && !plan.fusion[i].any()) {
      plan.order.push_back(i);
    }
  }
  return plan;
}

ir::Graph FusedGraphForPlanning(const ir::Graph& g, const FusionPlan& plan) {
  ir::Graph out;
  out.source = g.source;
  out.inputs = g.inputs;
  out.outputs = g.outputs;
  out.tensors.resize(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    out.tensors[t].dtype = g.tensors[t].dtype;
    out.tensors[t].shape = g.tensors[t].shape;
    out.tensors[t].is_constant = g.tensors[t].is_constant;
  }
  out.ops.resize(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) out.ops[i].type = g.ops[i].type;
  // Op slots keep their positions (time in the planner); a head moves to run_at.
  for (int i : plan.order) {
    const ConvFusion& f = plan.fusion[i];
    ir::Op& op = out.ops[f.any() ? f.run_at : i];
    op.type = g.ops[i].type;
    op.inputs = g.ops[i].inputs;
    op.outputs = g.ops[i].outputs;
    if (!f.any()) continue;
    op.inputs[0] = f.input;
    for (const EpilogueOp& e : f.epilogue)
      if (e.operand >= 0) op.inputs.push_back(e.operand);
    op.outputs = {f.output};
  }
  return out;
}

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
