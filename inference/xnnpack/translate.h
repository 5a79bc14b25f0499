// Translation of IR ops into XNNPACK subgraph nodes. One visitor serves two
// passes (as in TFLite's XNNPACK delegate): called without a builder it only
// answers "can XNNPACK run this op?"; with a builder it defines the nodes. The
// two passes cannot drift apart because they share every check.
#ifndef SLUICE_INFERENCE_XNNPACK_TRANSLATE_H_
#define SLUICE_INFERENCE_XNNPACK_TRANSLATE_H_

#include <xnnpack.h>

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "inference/ir.h"

namespace sluice::inference::xnn {

// Read-only facts about the graph both passes need.
class GraphInfo {
 public:
  explicit GraphInfo(const ir::Graph& graph);
  const ir::Graph& graph() const { return graph_; }
  // Index of the op producing `tensor`, or -1 (graph input or constant).
  int producer(int tensor) const { return tensor < 0 ? -1 : producer_[tensor]; }
  // True when `tensor` is a constant or a DEQUANTIZE of a constant: either way
  // its float32 value is known at compile time.
  bool IsConstant(int tensor) const;
  // True for DEQUANTIZE ops of constants: folded at compile time, no node.
  bool IsFoldedOp(const ir::Op& op) const;
  // The constant's value as float32 (fp16 converted, int32 rejected).
  absl::StatusOr<std::vector<float>> ConstantAsFloat(int tensor) const;

 private:
  const ir::Graph& graph_;
  std::vector<int> producer_;
};

// Defines XNNPACK values for IR tensors while one subgraph is being built.
// Constants are copied (and converted) once into `weights`, which must outlive
// every runtime created from the subgraph.
class SubgraphBuilder {
 public:
  SubgraphBuilder(const GraphInfo& info, xnn_subgraph_t subgraph,
                  std::deque<std::vector<float>>* weights)
      : info_(info), subgraph_(subgraph), weights_(weights) {}

  xnn_subgraph_t subgraph() const { return subgraph_; }
  // Declares an external value (segment input or output) with a fixed id.
  absl::Status DefineExternal(int tensor, uint32_t external_id, bool is_input);
  // The value of an IR tensor: constants become static values on first use,
  // activations internal values unless declared external.
  absl::StatusOr<uint32_t> Value(int tensor);
  // A weight that XNNPACK packs into its own layout when the runtime is created
  // (convolution filters, fully-connected weights): an fp32 constant is used in
  // place, without a copy (the graph outlives the compiled model); anything
  // else goes through Value().
  absl::StatusOr<uint32_t> PackedWeight(int tensor);
  // A static value with the given shape and contents.
  absl::StatusOr<uint32_t> StaticValue(const std::vector<size_t>& dims, std::vector<float> data);
  // A fresh internal value (for ops translated into two nodes).
  absl::StatusOr<uint32_t> InternalValue(const std::vector<size_t>& dims);

 private:
  const GraphInfo& info_;
  xnn_subgraph_t subgraph_;
  std::deque<std::vector<float>>* weights_;
  std::map<int, uint32_t> values_;
  std::map<int, uint32_t> packed_;
};

// The visitor. With builder == nullptr: returns OK iff XNNPACK can run the op
// (UNIMPLEMENTED with the reason otherwise). With a builder: defines it.
// Folded ops (DEQUANTIZE of constants) are accepted and define nothing.
absl::Status VisitOp(const GraphInfo& info, int op_index, SubgraphBuilder* builder);

// "xnn_status_invalid_parameter" etc.
const char* XnnStatusName(xnn_status status);

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_TRANSLATE_H_
