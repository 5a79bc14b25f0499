// The cuda backend's conv family: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
// Convolution2DTransposeBias, AVERAGE_POOL_2D, MAX_POOL_2D.
//
// Check = the reference kernels' own validation (reference::CheckOp), so the
// cuda ops accept exactly what the oracle accepts and reject with its
// messages. Prepare repacks weights once into the layout its kernel reads
// (kernels/conv.h), uploads them, and returns a launcher over device addresses:
//   * CONV_2D 1x1 stride 1 (no padding possible) and FULLY_CONNECTED: a tiled
//     GEMM, weights [IC,OC] / [IN,OUT]; FULLY_CONNECTED with at most
//     kGemvMaxRows rows (batch 1): a warp per output, weights [OUT,IN];
//   * other CONV_2D: direct convolution, weights [KH,KW,IC,OC];
//   * DEPTHWISE_CONV_2D: one thread per output, 3x3 / 5x5 unrolled, TFLite's
//     own weight layout;
//   * Convolution2DTransposeBias: gathered per output, weights [KH,KW,IC,OC];
//   * pools: one thread per output, or a block reduction for global pools.
// An absent bias becomes uploaded zeros, so kernels always read one.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "inference/cuda/cuda_ops.h"
#include "inference/cuda/kernels/conv.h"
#include "inference/cuda/kernels/conv_launch.h"
#include "inference/cuda/kernels/pool.h"
#include "inference/cuda/kernels/pool_launch.h"
#include "inference/ir.h"
#include "inference/reference/reference_kernels.h"
#include "util/status_macros.h"

namespace sluice::inference::cuda {
namespace {

namespace k = kernels;

static_assert(static_cast<int>(ir::Activation::kNone) == k::kConvActNone &&
                  static_cast<int>(ir::Activation::kRelu) == k::kConvActRelu &&
                  static_cast<int>(ir::Activation::kReluN1To1) == k::kConvActReluN1To1 &&
                  static_cast<int>(ir::Activation::kRelu6) == k::kConvActRelu6 &&
                  static_cast<int>(ir::Activation::kTanh) == k::kConvActTanh,
              "kernels/conv.h activation codes must be ir::Activation's values");

int ActCode(ir::Activation act) { return static_cast<int>(act); }

const ir::Tensor& In(const ir::Graph& g, const ir::Op& op, int i) {
  return g.tensors[op.inputs[i]];
}
const ir::Tensor& Out(const ir::Graph& g, const ir::Op& op) { return g.tensors[op.outputs[0]]; }
bool HasInput(const ir::Op& op, int i) {
  return i < static_cast<int>(op.inputs.size()) && op.inputs[i] >= 0;
}

absl::StatusOr<const float*> Upload(CudaOpContext& ctx, const std::vector<float>& host) {
  ASSIGN_OR_RETURN(void* d, ctx.UploadConstant(host.data(), host.size() * sizeof(float)));
  return static_cast<const float*>(d);
}

// Device address of activation tensor `t`; an error instead of a null pointer
// if the backend has none for it.
absl::StatusOr<void*> DeviceOf(const ir::Graph& g, int op_index, const CudaOpContext& ctx, int t) {
  void* d = ctx.Device(t);
  if (d == nullptr) {
    return absl::InternalError(absl::StrCat(g.OpLabel(op_index), ": tensor '", g.tensors[t].name,
                                            "' has no device memory"));
  }
  return d;
}

// The op's bias on the device: the uploaded constant, or zeros.
absl::StatusOr<const float*> BiasOf(const ir::Graph& g, int op_index, CudaOpContext& ctx, int n) {
  const ir::Op& op = g.ops[op_index];
  if (HasInput(op, 2)) {
    ASSIGN_OR_RETURN(void* d, DeviceOf(g, op_index, ctx, op.inputs[2]));
    return static_cast<const float*>(d);
  }
  return Upload(ctx, std::vector<float>(n, 0.0f));
}

// TFLite [OC,KH,KW,IC] -> [KH,KW,IC,OC].
std::vector<float> PackOcLast(const float* w, int oc, int kh, int kw, int ic) {
  std::vector<float> packed(static_cast<size_t>(oc) * kh * kw * ic);
  for (int o = 0; o < oc; ++o)
    for (int t = 0; t < kh * kw; ++t)
      for (int i = 0; i < ic; ++i)
        packed[(static_cast<size_t>(t) * ic + i) * oc + o] =
            w[(static_cast<size_t>(o) * kh * kw + t) * ic + i];
  return packed;
}

struct Io {
  const float* in;
  float* out;
};

// With a fusion, the kernel reads the PAD's input and writes the chain's end.
absl::StatusOr<Io> BindIo(const ir::Graph& g, int op_index, const CudaOpContext& ctx,
                          const ConvFusion* f = nullptr) {
  const ir::Op& op = g.ops[op_index];
  const bool fused = f != nullptr && f->any();
  ASSIGN_OR_RETURN(void* in, DeviceOf(g, op_index, ctx, fused ? f->input : op.inputs[0]));
  ASSIGN_OR_RETURN(void* out, DeviceOf(g, op_index, ctx, fused ? f->output : op.outputs[0]));
  return Io{static_cast<const float*>(in), static_cast<float*>(out)};
}

// The fused consumers as kernel epilogue steps (kernels/epilogue.h).
absl::StatusOr<k::Epilogue> EpilogueOf(const ir::Graph& g, int op_index, const CudaOpContext& ctx,
                                       const ConvFusion* f) {
  k::Epilogue e{};
  if (f == nullptr) return e;
  if (f->epilogue.size() > static_cast<size_t>(k::kMaxEpilogueSteps)) {
    return absl::InternalError(absl::StrCat(g.OpLabel(op_index), ": too many fused ops"));
  }
  const ir::Shape& y = g.tensors[f->output].shape;
  for (const EpilogueOp& fused : f->epilogue) {
    const ir::Op& op = g.ops[fused.op];
    k::EpilogueStep st{k::kEpiUnary, 0, k::kEpiFull, nullptr, 0, 0};
    switch (op.type) {
      case ir::OpType::kAdd:
      case ir::OpType::kMul:
        st.kind = op.type == ir::OpType::kAdd ? k::kEpiAdd : k::kEpiMul;
        st.code = static_cast<int>(op.opts<ir::BinaryOptions>().activation);
        break;
      case ir::OpType::kPrelu:
        st.kind = k::kEpiPrelu;
        break;
      default:
        st.code = UnaryKernelCode(op.type);
        if (st.code < 0) {
          return absl::InternalError(
              absl::StrCat(g.OpLabel(op_index), ": cannot fuse ", g.OpLabel(fused.op)));
        }
    }
    if (fused.pad_op >= 0) {
      const ir::Tensor& src = g.tensors[fused.operand];
      st.operand_kind = k::kEpiPaddedChannels;
      st.channels = src.shape.back();
      st.offset = fused.pad_before;
      ASSIGN_OR_RETURN(void* d, DeviceOf(g, op_index, ctx, fused.operand));
      st.operand = static_cast<const float*>(d);
    } else if (st.kind != k::kEpiUnary) {
      const ir::Shape& o = g.tensors[fused.operand].shape;
      st.operand_kind = o == y ? k::kEpiFull
                        : ir::NumElements(o) == 1 ? k::kEpiScalar : k::kEpiChannel;
      ASSIGN_OR_RETURN(void* d, DeviceOf(g, op_index, ctx, fused.operand));
      st.operand = static_cast<const float*>(d);
    }
    e.steps[e.count++] = st;
  }
  return e;
}

// Geometry of a convolution-like op from its (already checked) tensors.
k::ConvParams ConvGeometry(const ir::Tensor& x, const ir::Tensor& w, const ir::Tensor& y,
                           int sh, int sw, int dh, int dw, ir::Activation act) {
  k::ConvParams p{};
  p.n = x.shape[0], p.ih = x.shape[1], p.iw = x.shape[2], p.ic = x.shape[3];
  p.oh = y.shape[1], p.ow = y.shape[2], p.oc = y.shape[3];
  p.kh = w.shape[1], p.kw = w.shape[2];
  p.sh = sh, p.sw = sw, p.dh = dh, p.dw = dw;
  p.act = ActCode(act);
  return p;
}

// A fused PAD (cuda_ops.h ConvFusion): the conv reads the PAD's input, whose
// missing border the kernels' bounds checks already read as zeros, with the
// PAD's leading pads added to its own.
void ApplyPad(const ir::Graph& g, const ConvFusion* f, k::ConvParams& p) {
  if (f == nullptr || f->pad_op < 0) return;
  const ir::Tensor& src = g.tensors[f->input];
  p.ih = src.shape[1];
  p.iw = src.shape[2];
  p.pt += f->pad_top;
  p.pl += f->pad_left;
}

// CONV_2D / DEPTHWISE_CONV_2D: geometry, TF padding, a fused PAD, fused consumers.
absl::StatusOr<k::ConvParams> SpatialConv(const ir::Graph& g, int op_index,
                                          const CudaOpContext& ctx, const ConvFusion* f,
                                          ir::Padding padding, int sh, int sw, int dh, int dw,
                                          ir::Activation act) {
  const ir::Op& op = g.ops[op_index];
  k::ConvParams p = ConvGeometry(In(g, op, 0), In(g, op, 1), Out(g, op), sh, sw, dh, dw, act);
  p.pt = ir::ComputePadding(padding, p.ih, p.kh, p.sh, p.dh).pad_before;
  p.pl = ir::ComputePadding(padding, p.iw, p.kw, p.sw, p.dw).pad_before;
  ApplyPad(g, f, p);
  ASSIGN_OR_RETURN(p.epi, EpilogueOf(g, op_index, ctx, f));
  return p;
}

absl::StatusOr<CudaKernel> PrepareConv2D(const ir::Graph& g, int op_index, CudaOpContext& ctx,
                                         const ConvFusion* f) {
  const ir::Op& op = g.ops[op_index];
  const auto& o = op.opts<ir::Conv2DOptions>();
  const ir::Tensor& w = In(g, op, 1);
  ASSIGN_OR_RETURN(const k::ConvParams p,
                   SpatialConv(g, op_index, ctx, f, o.padding, o.stride_h, o.stride_w,
                               o.dilation_h, o.dilation_w, o.activation));
  ASSIGN_OR_RETURN(const float* bias, BiasOf(g, op_index, ctx, p.oc));
  ASSIGN_OR_RETURN(Io io, BindIo(g, op_index, ctx, f));
  if (p.oh == 1 && p.ow == 1 && p.kh == p.ih && p.kw == p.iw && p.pt == 0 && p.pl == 0 &&
      p.dh == 1 && p.dw == 1 && p.n <= k::kGemvMaxRows) {
    // The window covers the whole unpadded input (the pose landmark heads): a
    // fully connected layer over the flattened (KH, KW, IC) input, on TFLite's
    // [OC, KH*KW*IC] weight rows as they are; a warp per output instead of
    // one thread (one block in all) walking every tap.
    k::GemmParams gp{p.n, p.oc, p.kh * p.kw * p.ic, p.act};
    gp.epi = p.epi;
    ASSIGN_OR_RETURN(const float* wr,
                     Upload(ctx, std::vector<float>(w.f32(), w.f32() + w.num_elements())));
    return CudaKernel([=](cudaStream_t s) { return k::LaunchGemv(io.in, wr, bias, io.out, gp, s); });
  }
  ASSIGN_OR_RETURN(const float* wd, Upload(ctx, PackOcLast(w.f32(), p.oc, p.kh, p.kw, p.ic)));
  if (p.kh == 1 && p.kw == 1 && p.sh == 1 && p.sw == 1 && p.ih == p.oh && p.iw == p.ow) {
    // Stride 1 and a 1x1 window: no padding either way (unless a PAD was
    // fused), out = in, a GEMM over all pixels of the batch.
    k::GemmParams gp{p.n * p.oh * p.ow, p.oc, p.ic, p.act};
    gp.epi = p.epi;
    return CudaKernel([=](cudaStream_t s) { return k::LaunchGemm(io.in, wd, bias, io.out, gp, s); });
  }
  return CudaKernel([=](cudaStream_t s) { return k::LaunchConv2D(io.in, wd, bias, io.out, p, s); });
}

absl::StatusOr<CudaKernel> PrepareDepthwise(const ir::Graph& g, int op_index, CudaOpContext& ctx,
                                            const ConvFusion* f) {
  const ir::Op& op = g.ops[op_index];
  const auto& o = op.opts<ir::DepthwiseConv2DOptions>();
  const ir::Tensor& w = In(g, op, 1);
  ASSIGN_OR_RETURN(const k::ConvParams p,
                   SpatialConv(g, op_index, ctx, f, o.padding, o.stride_h, o.stride_w,
                               o.dilation_h, o.dilation_w, o.activation));
  // [1,KH,KW,OC] is already channel-innermost; a copy of our own keeps the
  // kernel independent of how the backend stores constants.
  ASSIGN_OR_RETURN(const float* wd,
                   Upload(ctx, std::vector<float>(w.f32(), w.f32() + w.num_elements())));
  ASSIGN_OR_RETURN(const float* bias, BiasOf(g, op_index, ctx, p.oc));
  ASSIGN_OR_RETURN(Io io, BindIo(g, op_index, ctx, f));
  return CudaKernel(
      [=](cudaStream_t s) { return k::LaunchDepthwiseConv2D(io.in, wd, bias, io.out, p, s); });
}

absl::StatusOr<CudaKernel> PrepareTransposeConv(const ir::Graph& g, int op_index,
                                                CudaOpContext& ctx) {
  const ir::Op& op = g.ops[op_index];
  const auto& o = op.opts<ir::TransposeConvOptions>();
  const ir::Tensor &x = In(g, op, 0), &w = In(g, op, 1), &y = Out(g, op);
  k::ConvParams p = ConvGeometry(x, w, y, o.stride_h, o.stride_w, 1, 1, ir::Activation::kNone);
  // MediaPipe's own SAME rule (see reference/kernels_conv.cc).
  if (o.padding == ir::Padding::kSame) {
    p.pt = std::max(0, p.kh - (p.ih - 1) % p.sh - 1) / 2;
    p.pl = std::max(0, p.kw - (p.iw - 1) % p.sw - 1) / 2;
  }
  ASSIGN_OR_RETURN(const float* wd, Upload(ctx, PackOcLast(w.f32(), p.oc, p.kh, p.kw, p.ic)));
  ASSIGN_OR_RETURN(const float* bias, BiasOf(g, op_index, ctx, p.oc));
  ASSIGN_OR_RETURN(Io io, BindIo(g, op_index, ctx));
  return CudaKernel(
      [=](cudaStream_t s) { return k::LaunchTransposeConv(io.in, wd, bias, io.out, p, s); });
}

absl::StatusOr<CudaKernel> PrepareFullyConnected(const ir::Graph& g, int op_index,
                                                 CudaOpContext& ctx, const ConvFusion* f) {
  const ir::Op& op = g.ops[op_index];
  const auto& o = op.opts<ir::FullyConnectedOptions>();
  const ir::Tensor &x = In(g, op, 0), &w = In(g, op, 1);
  const int out_n = w.shape[0], in_n = w.shape[1];
  // keep_num_dims only changes the output's shape, which the checks matched
  // against rows x out_n already.
  k::GemmParams gp{static_cast<int>(x.num_elements() / in_n), out_n, in_n,
                   ActCode(o.activation)};
  ASSIGN_OR_RETURN(gp.epi, EpilogueOf(g, op_index, ctx, f));
  ASSIGN_OR_RETURN(const float* bias, BiasOf(g, op_index, ctx, out_n));
  ASSIGN_OR_RETURN(Io io, BindIo(g, op_index, ctx, f));
  const float* wd = w.f32();
  if (gp.m <= k::kGemvMaxRows) {
    // Few rows: a warp per output over TFLite's [OUT,IN] rows.
    ASSIGN_OR_RETURN(const float* wp,
                     Upload(ctx, std::vector<float>(wd, wd + static_cast<size_t>(out_n) * in_n)));
    return CudaKernel(
        [=](cudaStream_t s) { return k::LaunchGemv(io.in, wp, bias, io.out, gp, s); });
  }
  std::vector<float> packed(static_cast<size_t>(in_n) * out_n);  // [IN,OUT]
  for (int j = 0; j < out_n; ++j)
    for (int i = 0; i < in_n; ++i)
      packed[static_cast<size_t>(i) * out_n + j] = wd[static_cast<size_t>(j) * in_n + i];
  ASSIGN_OR_RETURN(const float* wp, Upload(ctx, packed));
  return CudaKernel([=](cudaStream_t s) { return k::LaunchGemm(io.in, wp, bias, io.out, gp, s); });
}

absl::StatusOr<CudaKernel> PreparePool(const ir::Graph& g, int op_index, CudaOpContext& ctx) {
  const ir::Op& op = g.ops[op_index];
  const auto& o = op.opts<ir::Pool2DOptions>();
  const ir::Tensor &x = In(g, op, 0), &y = Out(g, op);
  k::PoolParams p{};
  p.n = x.shape[0], p.ih = x.shape[1], p.iw = x.shape[2], p.c = x.shape[3];
  p.oh = y.shape[1], p.ow = y.shape[2];
  p.kh = o.filter_h, p.kw = o.filter_w, p.sh = o.stride_h, p.sw = o.stride_w;
  p.pt = ir::ComputePadding(o.padding, p.ih, p.kh, p.sh, 1).pad_before;
  p.pl = ir::ComputePadding(o.padding, p.iw, p.kw, p.sw, 1).pad_before;
  p.is_max = op.type == ir::OpType::kMaxPool2D ? 1 : 0;
  p.act = ActCode(o.activation);
  ASSIGN_OR_RETURN(Io io, BindIo(g, op_index, ctx));
  return CudaKernel([=](cudaStream_t s) { return k::LaunchPool2D(io.in, io.out, p, s); });
}

}  // namespace

bool IsConvFamilyOp(ir::OpType type) {
  switch (type) {
    case ir::OpType::kConv2D:
    case ir::OpType::kDepthwiseConv2D:
    case ir::OpType::kFullyConnected:
    case ir::OpType::kTransposeConvBias:
    case ir::OpType::kAveragePool2D:
    case ir::OpType::kMaxPool2D:
      return true;
    default:
      return false;
  }
}

absl::Status CheckConvFamilyOp(const ir::Graph& graph, int op_index) {
  if (op_index < 0 || op_index >= static_cast<int>(graph.ops.size())) {
    return absl::InvalidArgumentError(absl::StrCat(graph.source, ": no op ", op_index));
  }
  const ir::Op& op = graph.ops[op_index];
  if (!IsConvFamilyOp(op.type)) {
    return absl::InvalidArgumentError(
        absl::StrCat(graph.OpLabel(op_index), ": not a convolution or pooling op"));
  }
  // Shapes, dtypes (float32 only), options, constant weights: the oracle's checks.
  RETURN_IF_ERROR(reference::CheckOp(graph, op_index));
  // What the reference accepts but these kernels index with int: sizes
  // beyond 2^31 elements in a GEMM dimension.
  const int64_t in_elems = graph.tensors[op.inputs[0]].num_elements();
  const int64_t out_elems = graph.tensors[op.outputs[0]].num_elements();
  if (in_elems >= (int64_t{1} << 31) || out_elems >= (int64_t{1} << 31)) {
    return absl::UnimplementedError(
        absl::StrCat(graph.OpLabel(op_index), ": tensors of 2^31 or more elements"));
  }
  return absl::OkStatus();
}

absl::StatusOr<CudaKernel> PrepareConvFamilyOp(const ir::Graph& graph, int op_index,
                                               CudaOpContext& context) {
  return PrepareFusedConvOp(graph, op_index, context, ConvFusion{});
}

absl::StatusOr<CudaKernel> PrepareFusedConvOp(const ir::Graph& graph, int op_index,
                                              CudaOpContext& context, const ConvFusion& fusion) {
  RETURN_IF_ERROR(CheckConvFamilyOp(graph, op_index));
  const ConvFusion* f = fusion.any() ? &fusion : nullptr;
  const ir::OpType type = graph.ops[op_index].type;
  if (f != nullptr && f->pad_op >= 0 && type != ir::OpType::kConv2D &&
      type != ir::OpType::kDepthwiseConv2D) {
    return absl::InternalError(absl::StrCat(graph.OpLabel(op_index), ": cannot absorb a PAD"));
  }
  if (f != nullptr && !f->epilogue.empty() && type != ir::OpType::kConv2D &&
      type != ir::OpType::kDepthwiseConv2D && type != ir::OpType::kFullyConnected) {
    return absl::InternalError(absl::StrCat(graph.OpLabel(op_index), ": cannot fuse consumers"));
  }
  // An empty output: nothing to launch (the kernels' grids must not be empty).
  if (graph.tensors[graph.ops[op_index].outputs[0]].num_elements() == 0) {
    return CudaKernel([](cudaStream_t) { return cudaSuccess; });
  }
  switch (graph.ops[op_index].type) {
    case ir::OpType::kConv2D:
      return PrepareConv2D(graph, op_index, context, f);
    case ir::OpType::kDepthwiseConv2D:
      return PrepareDepthwise(graph, op_index, context, f);
    case ir::OpType::kTransposeConvBias:
      return PrepareTransposeConv(graph, op_index, context);
    case ir::OpType::kFullyConnected:
      return PrepareFullyConnected(graph, op_index, context, f);
    case ir::OpType::kAveragePool2D:
    case ir::OpType::kMaxPool2D:
      return PreparePool(graph, op_index, context);
    default:
      break;
  }
  return absl::InternalError(absl::StrCat(graph.OpLabel(op_index), ": not a conv-family op"));
}

}  // namespace sluice::inference::cuda
