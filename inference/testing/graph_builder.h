// Builds small IR graphs by hand for kernel tests and the op harness.
#ifndef SLUICE_INFERENCE_TESTING_GRAPH_BUILDER_H_
#define SLUICE_INFERENCE_TESTING_GRAPH_BUILDER_H_

#include <cstring>
#include <string>
#include <vector>

#include "inference/ir.h"

namespace sluice::inference::testing {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name = "test") { g_.source = std::move(name); }

  // A graph input (activation).
  int Input(const ir::Shape& shape, ir::DType dtype = ir::DType::kFloat32) {
    const int t = Tensor(shape, dtype);
    g_.inputs.push_back(t);
    return t;
  }
  // An intermediate or output activation.
  int Tensor(const ir::Shape& shape, ir::DType dtype = ir::DType::kFloat32) {
    ir::Tensor t;
    t.name = "t" + std::to_string(g_.tensors.size());
    t.shape = shape;
    t.dtype = dtype;
    g_.tensors.push_back(std::move(t));
    return static_cast<int>(g_.tensors.size()) - 1;
  }
  int Const(const ir::Shape& shape, const std::vector<float>& values) {
    return ConstBytes(shape, ir::DType::kFloat32, values.data(), values.size() * sizeof(float));
  }
  int ConstInt(const ir::Shape& shape, const std::vector<int32_t>& values) {
    return ConstBytes(shape, ir::DType::kInt32, values.data(), values.size() * sizeof(int32_t));
  }
  int ConstBytes(const ir::Shape& shape, ir::DType dtype, const void* data, size_t bytes) {
    const int t = Tensor(shape, dtype);
    g_.tensors[t].is_constant = true;
    g_.tensors[t].data.resize(bytes);
    if (bytes) std::memcpy(g_.tensors[t].data.data(), data, bytes);
    return t;
  }
  void Output(int t) { g_.outputs.push_back(t); }
  void Op(ir::OpType type, std::vector<int> inputs, std::vector<int> outputs,
          ir::OpOptions options = {}) {
    ir::Op op;
    op.type = type;
    op.inputs = std::move(inputs);
    op.outputs = std::move(outputs);
    op.options = std::move(options);
    op.source_index = static_cast<int>(g_.ops.size());
    g_.ops.push_back(std::move(op));
  }
  ir::Graph& graph() { return g_; }
  ir::Graph Build() { return g_; }

 private:
  ir::Graph g_;
};

}  // namespace sluice::inference::testing

#endif  // SLUICE_INFERENCE_TESTING_GRAPH_BUILDER_H_
