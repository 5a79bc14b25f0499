// The CUDA backend's ops: one Prepare per op, as in the reference kernels
// (inference/reference/reference_kernels.h): Check validates shapes, dtypes
// and options once; Prepare binds device addresses and returns a launcher that
// checks nothing and only enqueues work on the stream it is given (no host
// synchronisation, no allocation: the backend captures the launchers of a whole
// model into one CUDA graph).
//
// Op families, each in its own file:
//   cuda_ops_conv.cc       CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
//                          Convolution2DTransposeBias, AVERAGE_POOL_2D, MAX_POOL_2D
//   cuda_ops_custom.cc     Landmarks2TransformMatrix, TransformLandmarks,
//                          TransformTensorBilinear
//   cuda_ops_elementwise.cc  every other op
// Per-element maths lives in kernels/*.h as SLUICE_HOST_DEVICE functions, the
// CUDA kernels in kernels/*.cu behind host launchers (kernels/*_launch.h), and
// testing/*_host.cc has host versions of those launchers for the fake CUDA
// runtime (gpu/testing/fake_cuda_runtime.h), so CI runs every op without a GPU.
#ifndef SLUICE_INFERENCE_CUDA_CUDA_OPS_H_
#define SLUICE_INFERENCE_CUDA_CUDA_OPS_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "inference/ir.h"

namespace sluice::inference::cuda {

// Enqueues one op's work on `stream`; returns the launch error, if any.
using CudaKernel = std::function<cudaError_t(cudaStream_t stream)>;

// What an op's Prepare may ask of the compiling backend.
class CudaOpContext {
 public:
  virtual ~CudaOpContext() = default;
  // Device address of tensor `t` of the graph: activations live in the
  // model's arena, constants were uploaded once. nullptr for t == -1.
  virtual void* Device(int t) const = 0;
  // Uploads `bytes` of host data (e.g. repacked weights) as an extra device
  // constant that lives as long as the compiled model.
  virtual absl::StatusOr<void*> UploadConstant(const void* host, size_t bytes) = 0;
  // Device scratch memory for this op alone, alive as long as the model.
  virtual absl::StatusOr<void*> Scratch(size_t bytes) = 0;
};

// Family dispatch (cuda_ops.cc): OK if the cuda backend runs op `op_index`
// itself; else a status naming the op and why (the backend then hands it to
// the reference kernels on the host).
absl::Status CheckCudaOp(const ir::Graph& graph, int op_index);
absl::StatusOr<CudaKernel> PrepareCudaOp(const ir::Graph& graph, int op_index,
                                         CudaOpContext& context);

// Per family. Is*Op says whether the op type belongs to the family.
bool IsConvFamilyOp(ir::OpType type);
absl::Status CheckConvFamilyOp(const ir::Graph& graph, int op_index);
absl::StatusOr<CudaKernel> PrepareConvFamilyOp(const ir::Graph& graph, int op_index,
                                               CudaOpContext& context);

bool IsCustomFamilyOp(ir::OpType type);
absl::Status CheckCustomFamilyOp(const ir::Graph& graph, int op_index);
absl::StatusOr<CudaKernel> PrepareCustomFamilyOp(const ir::Graph& graph, int op_index,
                                                 CudaOpContext& context);

// --- Compile-time fusion (issue 7: at batch 1 every model is launch-bound) ---
// A zero PAD (spatial only) whose one consumer is a CONV_2D / DEPTHWISE_CONV_2D
// is read through by that conv (pad offsets, no PAD kernel, no padded buffer);
// a chain of ADD / MUL / PRELU / RELU / RELU6 / LOGISTIC / HARD_SWISH / TANH / SQUARE
// ops, each the one consumer of its predecessor's output (which is no graph
// output), runs in the conv / depthwise / FULLY_CONNECTED kernel's epilogue;
// an ADD/MUL operand that is a channel-only zero PAD (used once) is read
// through too. The fused kernel runs where the chain's last op ran, so every
// operand exists by then; the arena is planned for that order.
struct EpilogueOp {
  int op = -1;       // the fused op
  int operand = -1;  // its other input (ADD/MUL/PRELU), -1 for unary ops
  int pad_op = -1;   // a fused channel PAD whose input `operand` then is
  int pad_before = 0;  // that PAD's leading channels
};
struct ConvFusion {
  int run_at = -1;  // op position the fused kernel runs at (the chain's last op)
  int pad_op = -1;  // fused PAD feeding input 0, -1 if none
  int input = -1;   // tensor read as input 0 (the PAD's input when fused)
  int pad_top = 0, pad_left = 0;  // the PAD's leading pads (H, W)
  std::vector<EpilogueOp> epilogue;
  int output = -1;  // tensor the kernel writes (the last fused op's output)
  bool any() const { return pad_op >= 0 || !epilogue.empty(); }
};
struct FusionPlan {
  std::vector<int> fused_into;     // per op: the op it runs inside, or -1
  std::vector<ConvFusion> fusion;  // per op: what it absorbs (heads only)
  std::vector<int> order;          // ops that launch, in execution order
};
// Finds the fusions among ops with on_device[i] (their own Check passed).
FusionPlan PlanFusion(const ir::Graph& graph, const std::vector<bool>& on_device);
// The graph as the fused kernels touch it, for the memory planner: fused ops
// have no inputs/outputs, a head, at position run_at, reads `input` and the
// operands and writes `output`. Constants' data are not copied.
ir::Graph FusedGraphForPlanning(const ir::Graph& graph, const FusionPlan& plan);
// PrepareConvFamilyOp with `fusion` applied (an empty one = the plain op).
absl::StatusOr<CudaKernel> PrepareFusedConvOp(const ir::Graph& graph, int op_index,
                                              CudaOpContext& context, const ConvFusion& fusion);

// kernels/elementwise.h's UnaryCode of LOGISTIC, RELU, RELU6, TANH,
// HARD_SWISH, SQUARE; -1 for other ops (cuda_ops_elementwise.cc).
int UnaryKernelCode(ir::OpType type);

absl::Status CheckElementwiseFamilyOp(const ir::Graph& graph, int op_index);
absl::StatusOr<CudaKernel> PrepareElementwiseFamilyOp(const ir::Graph& graph, int op_index,
                                                      CudaOpContext& context);

}  // namespace sluice::inference::cuda

#endif  // SLUICE_INFERENCE_CUDA_CUDA_OPS_H_
