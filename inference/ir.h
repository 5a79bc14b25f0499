// The engine's intermediate representation: one static-shaped dataflow graph of
// tensors and ops with typed options, independent of the file format and of any
// backend. The TFLite reader produces it, the load-time passes rewrite it, and
// every backend compiles it. Layout is NHWC, as in TFLite.
#ifndef SLUICE_INFERENCE_IR_H_
#define SLUICE_INFERENCE_IR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"

namespace sluice::inference::ir {

enum class DType : uint8_t { kFloat32, kFloat16, kInt32, kInt64, kUInt8, kInt8, kBool };
std::string_view DTypeName(DType dtype);
size_t DTypeSize(DType dtype);

enum class OpType : uint8_t {
#define SLUICE_IR_OP(id, name, code) id,
#include "inference/ops.inc"
#undef SLUICE_IR_OP
};
inline constexpr int kNumOpTypes = 0
#define SLUICE_IR_OP(id, name, code) +1
#include "inference/ops.inc"
#undef SLUICE_IR_OP
    ;
std::string_view OpTypeName(OpType type);
// TFLite BuiltinOperator code of the op (32 = CUSTOM for MediaPipe's ops).
int OpTypeBuiltinCode(OpType type);
inline constexpr int kBuiltinCustom = 32;

// Activation fused into an op's output (TFLite's fused_activation_function).
enum class Activation : uint8_t { kNone, kRelu, kReluN1To1, kRelu6, kTanh };
std::string_view ActivationName(Activation act);
// Clamp bounds of a piecewise-linear activation; kTanh has none (use ApplyActivation).
void ActivationRange(Activation act, float* lo, float* hi);

// TF padding: SAME pads so that out = ceil(in / stride), pad_before = total / 2.
enum class Padding : uint8_t { kSame, kValid };

struct Conv2DOptions {
  Padding padding = Padding::kValid;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  Activation activation = Activation::kNone;
};
struct DepthwiseConv2DOptions {
  Padding padding = Padding::kValid;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int depth_multiplier = 1;  // informational: the real multiplier is OC / IC
  Activation activation = Activation::kNone;
};
struct Pool2DOptions {
  Padding padding = Padding::kValid;
  int stride_h = 1, stride_w = 1;
  int filter_h = 1, filter_w = 1;
  Activation activation = Activation::kNone;
};
struct FullyConnectedOptions {
  Activation activation = Activation::kNone;
  bool keep_num_dims = false;
};
// ADD, SUB, MUL, DIV.
struct BinaryOptions {
  Activation activation = Activation::kNone;
};
struct ConcatenationOptions {
  int axis = 0;  // normalised to [0, rank)
  Activation activation = Activation::kNone;
};
struct ResizeBilinearOptions {
  bool align_corners = false;
  bool half_pixel_centers = false;
};
struct SoftmaxOptions {
  float beta = 1.0f;
};
// MEAN: axes come from the (constant) second input.
struct ReducerOptions {
  bool keep_dims = false;
};
struct StridedSliceOptions {
  int begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
  bool offset = false;
};
struct DepthToSpaceOptions {
  int block_size = 1;
};
// MediaPipe's Convolution2DTransposeBias (raw TfLiteTransposeConvParams).
struct TransposeConvOptions {
  Padding padding = Padding::kSame;
  int stride_h = 1, stride_w = 1;
};
// MediaPipe's Landmarks2TransformMatrix (version 2).
struct LandmarksToTransformMatrixOptions {
  std::vector<int> subset_idxs;  // pairs of landmark indices, flattened
  int left_rotation_idx = 0, right_rotation_idx = 0;
  float target_rotation_radians = 0.0f;
  int output_height = 0, output_width = 0;
  float scale_x = 1.0f, scale_y = 1.0f;
};
// MediaPipe's TransformTensorBilinear (version 2).
struct TransformTensorBilinearOptions {
  int output_height = 0, output_width = 0;
};

using OpOptions = std::variant<std::monostate, Conv2DOptions, DepthwiseConv2DOptions, Pool2DOptions,
                               FullyConnectedOptions, BinaryOptions, ConcatenationOptions,
                               ResizeBilinearOptions, SoftmaxOptions, ReducerOptions,
                               StridedSliceOptions, DepthToSpaceOptions, TransposeConvOptions,
                               LandmarksToTransformMatrixOptions, TransformTensorBilinearOptions>;

using Shape = std::vector<int32_t>;
int64_t NumElements(const Shape& shape);
std::string ShapeString(const Shape& shape);

// Sparse storage of a constant (TFLite SparsityParameters, no block sparsity);
// the DENSIFY fold turns it into dense data.
struct SparseDim {
  bool sparse = false;
  int dense_size = 0;
  std::vector<int32_t> segments, indices;
};
struct Sparsity {
  std::vector<int> traversal_order;
  std::vector<SparseDim> dims;
};

struct Tensor {
  std::string name;
  DType dtype = DType::kFloat32;
  Shape shape;
  // Constant contents (little-endian, densely packed); empty for activations.
  bool is_constant = false;
  std::vector<uint8_t> data;
  // Set on constants stored sparse in the file until the DENSIFY fold.
  std::vector<Sparsity> sparsity;  // 0 or 1 entry
  // Quantization (only read by DEQUANTIZE of int8/uint8 constants).
  std::vector<float> scale;
  std::vector<int64_t> zero_point;

  int64_t num_elements() const { return NumElements(shape); }
  size_t byte_size() const { return static_cast<size_t>(num_elements()) * DTypeSize(dtype); }
  const float* f32() const { return reinterpret_cast<const float*>(data.data()); }
  const int32_t* i32() const { return reinterpret_cast<const int32_t*>(data.data()); }
};

struct Op {
  OpType type;
  std::vector<int> inputs;  // tensor indices; -1 = optional input absent
  std::vector<int> outputs;
  OpOptions options;
  int source_index = -1;  // operator index in the model file, for messages
  int version = 1;        // opcode version in the file

  template <typename T>
  const T& opts() const {
    return std::get<T>(options);
  }
};

struct Graph {
  std::string source;  // file name, for messages
  std::vector<Tensor> tensors;
  std::vector<Op> ops;  // execution order (topologically sorted)
  std::vector<int> inputs;
  std::vector<int> outputs;

  // "op 12 (CONV_2D) of face.tflite", for error messages.
  std::string OpLabel(int op_index) const;
  // Consistency checks every pass must preserve: indices in range, every
  // non-constant input produced before use or a graph input, one producer each.
  absl::Status Validate() const;
};

// Output size and leading pad of one spatial dimension, TF conventions.
struct PadOut {
  int out = 0;
  int pad_before = 0;
};
PadOut ComputePadding(Padding padding, int in, int filter, int stride, int dilation);

}  // namespace sluice::inference::ir

#endif  // SLUICE_INFERENCE_IR_H_
