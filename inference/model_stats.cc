#include "inference/model_stats.h"

#include <algorithm>
#include <set>

namespace sluice::inference {

int64_t OpMacs(const ir::Graph& g, int op_index) {
  const ir::Op& op = g.ops[op_index];
  auto dim = [&](int t, size_t d) -> int64_t {
    const ir::Shape& sh = g.tensors[t].shape;
    return d < sh.size() ? sh[d] : 1;
  };
  if (op.inputs.size() < 2 || op.outputs.empty() || op.inputs[1] < 0) return 0;
  const int x = op.inputs[0], w = op.inputs[1], y = op.outputs[0];
  switch (op.type) {
    case ir::OpType::kConv2D:
      return dim(y, 0) * dim(y, 1) * dim(y, 2) * dim(y, 3) * dim(w, 1) * dim(w, 2) * dim(w, 3);
    case ir::OpType::kDepthwiseConv2D:
      return dim(y, 0) * dim(y, 1) * dim(y, 2) * dim(y, 3) * dim(w, 1) * dim(w, 2);
    case ir::OpType::kFullyConnected:
      return g.tensors[x].num_elements() / std::max<int64_t>(1, dim(w, 1)) * dim(w, 0) * dim(w, 1);
    case ir::OpType::kTransposeConvBias:
      return g.tensors[x].num_elements() * dim(w, 0) * dim(w, 1) * dim(w, 2);
    default:
      return 0;
  }
}

int64_t OpElementOps(const ir::Graph& g, int op_index) {
  const ir::Op& op = g.ops[op_index];
  if (op.outputs.empty() || op.outputs[0] < 0) return 0;
  const int64_t out = g.tensors[op.outputs[0]].num_elements();
  auto with_activation = [&](ir::Activation act) -> int64_t {
    return act == ir::Activation::kNone ? 0 : out;
  };
  // Filter ops and Convolution2DTransposeBias take their bias as input 2.
  const bool has_bias = op.inputs.size() > 2 && op.inputs[2] >= 0;
  // A bias and an activation after a filter are one epilogue pass.
  auto epilogue = [&](ir::Activation act) -> int64_t {
    return has_bias || act != ir::Activation::kNone ? out : 0;
  };
  switch (op.type) {
    case ir::OpType::kConv2D:
      return epilogue(op.opts<ir::Conv2DOptions>().activation);
    case ir::OpType::kDepthwiseConv2D:
      return epilogue(op.opts<ir::DepthwiseConv2DOptions>().activation);
    case ir::OpType::kFullyConnected:
      return epilogue(op.opts<ir::FullyConnectedOptions>().activation);
    case ir::OpType::kTransposeConvBias:
      return has_bias ? out : 0;
    case ir::OpType::kAdd:
    case ir::OpType::kSub:
    case ir::OpType::kMul:
    case ir::OpType::kDiv:
      return out + with_activation(op.opts<ir::BinaryOptions>().activation);
    case ir::OpType::kPrelu:
    case ir::OpType::kLogistic:
    case ir::OpType::kHardSwish:
    case ir::OpType::kRelu:
    case ir::OpType::kRelu6:
    case ir::OpType::kTanh:
    case ir::OpType::kSquare:
      return out;
    case ir::OpType::kAveragePool2D:
    case ir::OpType::kMaxPool2D: {
      const auto& o = op.opts<ir::Pool2DOptions>();
      return out * o.filter_h * o.filter_w + with_activation(o.activation);
    }
    case ir::OpType::kMean:
      return op.inputs.empty() || op.inputs[0] < 0 ? 0 : g.tensors[op.inputs[0]].num_elements();
    case ir::OpType::kResizeBilinear:
    case ir::OpType::kTransformTensorBilinear:
      return 4 * out;
    default:
      return 0;
  }
}

int64_t ElementOps(const ir::Graph& g) {
  int64_t n = 0;
  for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) n += OpElementOps(g, i);
  return n;
}

ModelStats ComputeStats(const ir::Graph& g) {
  ModelStats s;
  std::set<int> constants;
  for (const ir::Op& op : g.ops) {
    ++s.op_histogram[std::string(ir::OpTypeName(op.type))];
    for (int t : op.inputs) {
      if (t >= 0 && g.tensors[t].is_constant) constants.insert(t);
    }
    s.macs += OpMacs(g, static_cast<int>(&op - g.ops.data()));
  }
  for (int t : constants) {
    if (g.tensors[t].dtype == ir::DType::kFloat32) s.params += g.tensors[t].num_elements();
    s.param_bytes += static_cast<int64_t>(g.tensors[t].byte_size());
  }
  return s;
}

}  // namespace sluice::inference
