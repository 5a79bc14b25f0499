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
