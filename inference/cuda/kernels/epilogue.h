// Elementwise ops fused into a convolution / FULLY_CONNECTED output (issue 7):
// after bias and the op's own activation, each output element runs the fused
// consumers' maths in graph order. The per-element functions are the
// elementwise family's own (kernels/elementwise.h), so the fused result has
// the reference's bits on the host build. Built at compile time by the cuda
// backend (cuda_ops.cc PlanFusion, cuda_ops_conv.cc).
#ifndef SLUICE_INFERENCE_CUDA_KERNELS_EPILOGUE_H_
#define SLUICE_INFERENCE_CUDA_KERNELS_EPILOGUE_H_

#include <stdint.h>

#include "gpu/kernels/host_device.h"
#include "inference/cuda/kernels/elementwise.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {

constexpr int kMaxEpilogueSteps = 4;

enum EpilogueKind : int {
  kEpiAdd = 0,    // v + operand, then activation `code` (ADD)
  kEpiMul = 1,    // v * operand, then activation `code` (MUL)
  kEpiPrelu = 2,  // v >= 0 ? v : operand * v (PRELU)
  kEpiUnary = 3,  // UnaryF32(code, v): LOGISTIC, RELU, RELU6, TANH, HARD_SWISH
};
// How a step's operand is indexed: like the output, per output channel (the
// innermost dimension), one value, or a zero PAD of the channels of a tensor
// with `channels` channels placed at channel `offset` (BlazeNet's
// "channel_padding" residuals; the PAD runs here instead of as a kernel).
enum EpilogueOperand : int {
  kEpiFull = 0,
  kEpiChannel = 1,
  kEpiScalar = 2,
  kEpiPaddedChannels = 3
};

struct EpilogueStep {
  int kind;
  int code;
  int operand_kind;
  const float* operand;  // device address; null for kEpiUnary
  int channels, offset;  // kEpiPaddedChannels only
};

struct Epilogue {
  int count;  // 0: nothing fused
  EpilogueStep steps[kMaxEpilogueSteps];
};

// Output element `i` (flat, NHWC), channel `c` of `c_count`, value `v` after
// the op's own bias and activation.
// `c_count`: the output's channel count.
SLUICE_HOST_DEVICE float EpilogueOperandAt(const EpilogueStep& st, int64_t i, int c, int c_count) {
  switch (st.operand_kind) {
    case kEpiFull:
      return st.operand[i];
    case kEpiChannel:
      return st.operand[c];
    case kEpiScalar:
      return st.operand[0];
    default: {
      const int src = c - st.offset;
      if (src < 0 || src >= st.channels) return 0.0f;  // what the PAD wrote
      return st.operand[(i / c_count) * st.channels + src];
    }
  }
}

SLUICE_HOST_DEVICE float ApplyEpilogue(float v, const Epilogue& e, int64_t i, int c, int c_count) {
  for (int s = 0; s < e.count; ++s) {
    const EpilogueStep& st = e.steps[s];
    const float x = st.kind == kEpiUnary ? 0.0f : EpilogueOperandAt(st, i, c, c_count);
    switch (st.kind) {
      case kEpiAdd:
        v = ::sluice::inference_kernels::Activate(v + x, st.code);
        break;
      case kEpiMul:
        v = ::sluice::inference_kernels::Activate(v * x, st.code);
        break;
      case kEpiPrelu:
        v = v >= 0.0f ? v : x * v;
        break;
      default:
        v = ::sluice::inference_kernels::UnaryF32(st.code, v);
        break;
    }
  }
  return v;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice

#endif  // SLUICE_INFERENCE_CUDA_KERNELS_EPILOGUE_H_
