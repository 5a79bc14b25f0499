// Shared plumbing of the reference kernels (not a public header).
// Each Prepare* validates one op completely and returns a closure over raw
// pointers; in check-only mode the pointers are null and the closure is
// never run.
#ifndef SLUICE_INFERENCE_REFERENCE_KERNELS_INTERNAL_H_
#define SLUICE_INFERENCE_REFERENCE_KERNELS_INTERNAL_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "inference/ir.h"
#include "inference/reference/reference_kernels.h"

namespace sluice::inference::reference::internal {

// Highest tensor rank the generic (index-walking) kernels accept.
inline constexpr int kMaxRank = 8;

class Ctx {
 public:
  Ctx(const ir::Graph& g, int op_index, const std::vector<void*>* data)
      : g_(g), op_(g.ops[op_index]), index_(op_index), data_(data) {}

  const ir::Op& op() const { return op_; }
  const ir::Graph& graph() const { return g_; }
  int num_inputs() const { return static_cast<int>(op_.inputs.size()); }
  bool has_input(int i) const { return i < num_inputs() && op_.inputs[i] >= 0; }
  const ir::Tensor& in(int i) const { return g_.tensors[op_.inputs[i]]; }
  const ir::Tensor& out(int i = 0) const { return g_.tensors[op_.outputs[i]]; }
  // Bound addresses (null in check-only mode).
  const float* fin(int i) const { return static_cast<const float*>(Addr(op_.inputs[i])); }
  float* fout(int i = 0) const { return static_cast<float*>(Addr(op_.outputs[i])); }
  const void* vin(int i) const { return Addr(op_.inputs[i]); }
  void* vout(int i = 0) const { return Addr(op_.outputs[i]); }

  absl::Status Error(absl::string_view msg) const {
    return absl::InvalidArgumentError(absl::StrCat(g_.OpLabel(index_), ": ", msg));
  }
  absl::Status Unsupported(absl::string_view msg) const {
    return absl::UnimplementedError(absl::StrCat(g_.OpLabel(index_), ": ", msg));
  }
  // Input/output counts, with optional trailing inputs allowed up to max_in.
  absl::Status Arity(int min_in, int max_in, int outs) const;
  absl::Status Float(const ir::Tensor& t, absl::string_view role) const;
  absl::Status Rank(const ir::Tensor& t, int rank, absl::string_view role) const;
  // Input i must be a constant int32 (or int64) tensor; returns its values.
  absl::StatusOr<std::vector<int64_t>> ConstInts(int i, absl::string_view role) const;

 private:
  void* Addr(int t) const { return data_ == nullptr || t < 0 ? nullptr : (*data_)[t]; }
  const ir::Graph& g_;
  const ir::Op& op_;
  int index_;
  const std::vector<void*>* data_;
};

inline float Activate(float v, ir::Activation act) {
  switch (act) {
    case ir::Activation::kRelu:
      return std::max(v, 0.0f);
    case ir::Activation::kRelu6:
      return std::min(std::max(v, 0.0f), 6.0f);
    case ir::Activation::kReluN1To1:
      return std::min(std::max(v, -1.0f), 1.0f);
    case ir::Activation::kTanh:
      return std::tanh(v);
    default:
      return v;
  }
}

// Shape of `s` left-padded with 1s to `rank` dims.
std::vector<int> PadShape(const ir::Shape& s, int rank);

using PrepareFn = absl::StatusOr<Kernel> (*)(const Ctx&);

absl::StatusOr<Kernel> PrepareConv2D(const Ctx& c);
absl::StatusOr<Kernel> PrepareDepthwiseConv2D(const Ctx& c);
absl::StatusOr<Kernel> PrepareTransposeConvBias(const Ctx& c);
absl::StatusOr<Kernel> PrepareFullyConnected(const Ctx& c);
absl::StatusOr<Kernel> PreparePool2D(const Ctx& c);

absl::StatusOr<Kernel> PrepareBinary(const Ctx& c);  // ADD SUB MUL DIV
absl::StatusOr<Kernel> PrepareUnary(const Ctx& c);   // LOGISTIC RELU RELU6 TANH HARD_SWISH SQUARE
absl::StatusOr<Kernel> PreparePrelu(const Ctx& c);
absl::StatusOr<Kernel> PrepareSoftmax(const Ctx& c);

absl::StatusOr<Kernel> PrepareReshape(const Ctx& c);
absl::StatusOr<Kernel> PreparePad(const Ctx& c);
absl::StatusOr<Kernel> PrepareConcatenation(const Ctx& c);
absl::StatusOr<Kernel> PrepareMean(const Ctx& c);
absl::StatusOr<Kernel> PrepareResizeBilinear(const Ctx& c);
absl::StatusOr<Kernel> PrepareStridedSlice(const Ctx& c);
absl::StatusOr<Kernel> PrepareDepthToSpace(const Ctx& c);
absl::StatusOr<Kernel> PrepareDequantize(const Ctx& c);

absl::StatusOr<Kernel> PrepareLandmarksToTransformMatrix(const Ctx& c);
absl::StatusOr<Kernel> PrepareTransformLandmarks(const Ctx& c);
absl::StatusOr<Kernel> PrepareTransformTensorBilinear(const Ctx& c);

}  // namespace sluice::inference::reference::internal

#endif  // SLUICE_INFERENCE_REFERENCE_KERNELS_INTERNAL_H_
