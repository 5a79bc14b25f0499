// The cuda backend's elementwise family (cuda_ops.h): every op that is not a
// convolution/pool or a MediaPipe custom op. Check = the reference kernels'
// own validation (reference::CheckOp, as the conv family does), so the cuda
// ops accept exactly what the oracle accepts and reject with its messages,
// plus the few limits of these kernels. One Build*() per op then only derives
// the launch parameters of a valid op and binds device addresses into a
// launcher of kernels/elementwise_launch.h.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "inference/cuda/cuda_ops.h"
#include "inference/cuda/kernels/elementwise_launch.h"
#include "inference/reference/reference_kernels.h"
#include "util/status_macros.h"

namespace sluice::inference::cuda {
namespace {

namespace k = ::sluice::inference_kernels;

// One op being prepared (already checked).
struct Op {
  const ir::Graph& g;
  int index;
  CudaOpContext* ctx;

  const ir::Op& op() const { return g.ops[index]; }
  int num_inputs() const { return static_cast<int>(op().inputs.size()); }
  const ir::Tensor& in(int i) const { return g.tensors[op().inputs[i]]; }
  const ir::Tensor& out() const { return g.tensors[op().outputs[0]]; }
  void* dev_in(int i) const { return ctx->Device(op().inputs[i]); }
  void* dev_out() const { return ctx->Device(op().outputs[0]); }

  // Values of constant int input i (the reference checked its role and type);
  // an error only if its bytes are short.
  absl::StatusOr<std::vector<int64_t>> ConstInts(int i) const {
    const ir::Tensor& t = in(i);
    std::vector<int64_t> v(t.num_elements());
    if (t.dtype == ir::DType::kInt32 && t.data.size() >= v.size() * 4) {
      for (size_t j = 0; j < v.size(); ++j) v[j] = t.i32()[j];
    } else if (t.dtype == ir::DType::kInt64 && t.data.size() >= v.size() * 8) {
      const auto* p = reinterpret_cast<const int64_t*>(t.data.data());
      for (size_t j = 0; j < v.size(); ++j) v[j] = p[j];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(g.OpLabel(index), ": constant '", t.name, "' has too few bytes"));
    }
    return v;
  }
};

std::vector<int> PadShape(const ir::Shape& s, int rank) {
  std::vector<int> r(rank, 1);
  const int off = rank - static_cast<int>(s.size());
  for (size_t i = 0; i < s.size(); ++i) r[off + i] = s[i];
  return r;
}

// Row-major strides of `dims`.
std::vector<long long> Strides(const std::vector<int>& dims) {
  std::vector<long long> s(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * dims[d + 1];
  return s;
}

// Identity gather (start 0, step 1, in bounds = dims) over `dims`.
k::GatherParams PlainGather(const std::vector<int>& dims) {
  k::GatherParams p{};
  p.rank = static_cast<int>(dims.size());
  const std::vector<long long> s = Strides(dims);
  for (int d = 0; d < p.rank; ++d) {
    p.dims[d] = p.in_dims[d] = dims[d];
    p.out_strides[d] = p.in_strides[d] = s[d];
    p.in_start[d] = 0;
    p.in_step[d] = 1;
  }
  return p;
}

// Strides of a and b broadcast to `out` (the reference checked that they do).
k::BroadcastParams MakeBroadcast(const ir::Shape& a, const ir::Shape& b, const ir::Shape& out) {
  k::BroadcastParams bc{};
  if (a == out && b == out) return bc;  // rank 0: same shapes
  const int rank = static_cast<int>(std::max({a.size(), b.size(), out.size()}));
  bc.rank = rank;
  const std::vector<int> od = PadShape(out, rank), ad = PadShape(a, rank), bd = PadShape(b, rank);
  long long sa = 1, sb = 1;
  for (int d = rank - 1; d >= 0; --d) {
    bc.out_dims[d] = od[d];
    bc.a_strides[d] = ad[d] == 1 ? 0 : sa;
    bc.b_strides[d] = bd[d] == 1 ? 0 : sb;
    sa *= ad[d];
    sb *= bd[d];
  }
  return bc;
}

absl::StatusOr<CudaKernel> BuildBinary(const Op& c) {
  const ir::Tensor &a = c.in(0), &b = c.in(1), &y = c.out();
  const k::BroadcastParams bc = MakeBroadcast(a.shape, b.shape, y.shape);
  int op = k::kBinaryAdd;
  switch (c.op().type) {
    case ir::OpType::kSub:
      op = k::kBinarySub;
      break;
    case ir::OpType::kMul:
      op = k::kBinaryMul;
      break;
    case ir::OpType::kDiv:
      op = k::kBinaryDiv;
      break;
    default:
      break;
  }
  const int act = static_cast<int>(c.op().opts<ir::BinaryOptions>().activation);
  const long long na = a.num_elements(), nb = b.num_elements(), n = y.num_elements();
  void *pa = c.dev_in(0), *pb = c.dev_in(1), *po = c.dev_out();
  if (a.dtype == ir::DType::kInt32) {  // no activation (checked)
    return CudaKernel([=](cudaStream_t s) {
      return k::LaunchBinaryI32(static_cast<const int32_t*>(pa), na,
                                static_cast<const int32_t*>(pb), nb, static_cast<int32_t*>(po), n,
                                bc, op, s);
    });
  }
  return CudaKernel([=](cudaStream_t s) {
    return k::LaunchBinaryF32(static_cast<const float*>(pa), na, static_cast<const float*>(pb), nb,
                              static_cast<float*>(po), n, bc, op, act, s);
  });
}

absl::StatusOr<CudaKernel> BuildUnary(const Op& c) {
  const ir::Tensor &x = c.in(0), &y = c.out();
  const long long n = x.num_elements();
  void *pi = c.dev_in(0), *po = c.dev_out();
  const ir::OpType type = c.op().type;
  if (type == ir::OpType::kSquare && x.dtype == ir::DType::kInt32 && y.dtype == ir::DType::kInt32) {
    return CudaKernel([=](cudaStream_t s) {
      return k::LaunchSquareI32(static_cast<const int32_t*>(pi), static_cast<int32_t*>(po), n, s);
    });
  }
  const int kind = UnaryKernelCode(type);
  return CudaKernel([=](cudaStream_t s) {
    return k::LaunchUnaryF32(static_cast<const float*>(pi), static_cast<float*>(po), n, kind, s);
  });
}

absl::StatusOr<CudaKernel> BuildPrelu(const Op& c) {
  const ir::Tensor &x = c.in(0), &alpha = c.in(1), &y = c.out();
  const k::BroadcastParams bc = MakeBroadcast(x.shape, alpha.shape, y.shape);
  const long long n = y.num_elements(), na = alpha.num_elements();
  void *px = c.dev_in(0), *pa = c.dev_in(1), *po = c.dev_out();
  return CudaKernel([=](cudaStream_t s) {
    return k::LaunchPreluF32(static_cast<const float*>(px), static_cast<const float*>(pa), na,
                             static_cast<float*>(po), n, bc, s);
  });
}

absl::StatusOr<CudaKernel> BuildSoftmax(const Op& c) {
  const ir::Tensor &x = c.in(0);
  const float beta = c.op().opts<ir::SoftmaxOptions>().beta;
  const int depth = x.shape.back();
  const long long rows = depth > 0 ? x.num_elements() / depth : 0;
  void *pi = c.dev_in(0), *po = c.dev_out();
  return CudaKernel([=](cudaStream_t s) {
    return k::LaunchSoftmaxF32(static_cast<const float*>(pi), static_cast<float*>(po), rows, depth,
                               beta, s);
  });
}

// A planner-aliased RESHAPE has the same address on both sides: nothing to do.
absl::StatusOr<CudaKernel> BuildReshape(const Op& c) {
  const ir::Tensor& y = c.out();
  void *pi = c.dev_in(0), *po = c.dev_out();
  const size_t bytes = y.byte_size();
  return CudaKernel([=](cudaStream_t s) {
    if (pi == po || bytes == 0) return cudaSuccess;
    return cudaMemcpyAsync(po, pi, bytes, cudaMemcpyDeviceToDevice, s);
  });
}

CudaKernel GatherKernel(const void* in, long long in_elems, void* out, long long out_elems,
                        const k::GatherParams& p, int elem) {
  return [=](cudaStream_t s) { return k::LaunchGather(in, in_elems, out, out_elems, p, elem, s); };
}

absl::StatusOr<CudaKernel> BuildPad(const Op& c) {
  const ir::Tensor &x = c.in(0), &y = c.out();
  const int rank = static_cast<int>(x.shape.size());
  ASSIGN_OR_RETURN(std::vector<int64_t> pads, c.ConstInts(1));
  const std::vector<int> out_dims(y.shape.begin(), y.shape.end());
  k::GatherParams p = PlainGather(out_dims);
  const std::vector<long long> in_strides = Strides(std::vector<int>(x.shape.begin(), x.shape.end()));
  for (int d = 0; d < rank; ++d) {
    p.in_start[d] = -static_cast<int>(pads[2 * d]);
    p.in_dims[d] = x.shape[d];
    p.in_strides[d] = in_strides[d];
  }
  return GatherKernel(c.dev_in(0), x.num_elements(), c.dev_out(), y.num_elements(), p,
                      static_cast<int>(ir::DTypeSize(x.dtype)));
}

absl::StatusOr<CudaKernel> BuildConcatenation(const Op& c) {
  const auto& o = c.op().opts<ir::ConcatenationOptions>();
  const ir::Tensor& y = c.out();
  const int rank = static_cast<int>(y.shape.size());
  const int axis = o.axis < 0 ? o.axis + rank : o.axis;
  long long inner = 1;
  for (int d = axis + 1; d < rank; ++d) inner *= y.shape[d];
  const std::vector<long long> y_strides = Strides(std::vector<int>(y.shape.begin(), y.shape.end()));
  const int elem = static_cast<int>(ir::DTypeSize(y.dtype));
  const long long y_elems = y.num_elements();
  auto* out = static_cast<uint8_t*>(c.dev_out());
  std::vector<CudaKernel> parts;
  int sum = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const ir::Tensor& x = c.in(i);
    // Input i fills columns [sum, sum + x.shape[axis]) of the axis.
    k::GatherParams p = PlainGather(std::vector<int>(x.shape.begin(), x.shape.end()));
    for (int d = 0; d < rank; ++d) p.out_strides[d] = y_strides[d];
    const long long base = sum * inner;
    if (x.num_elements() > 0) {
      parts.push_back(GatherKernel(c.dev_in(i), x.num_elements(),
                                   out == nullptr ? nullptr : out + base * elem, y_elems - base, p,
                                   elem));
    }
    sum += x.shape[axis];
  }
  const int act = static_cast<int>(o.activation);
  return CudaKernel([=](cudaStream_t s) {
    for (const CudaKernel& part : parts) {
      if (cudaError_t e = part(s); e != cudaSuccess) return e;
    }
    return k::LaunchActivationF32(reinterpret_cast<float*>(out), y_elems, act, s);
  });
}

absl::StatusOr<CudaKernel> BuildMean(const Op& c) {
  const ir::Tensor &x = c.in(0), &y = c.out();
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, c.ConstInts(1));
  const int rank = static_cast<int>(x.shape.size());
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) reduced[a < 0 ? a + rank : a] = true;
  const std::vector<long long> in_strides = Strides(std::vector<int>(x.shape.begin(), x.shape.end()));
  k::MeanParams p{};
  p.count = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) {
      p.count *= x.shape[d];
      p.red_dims[p.red_rank] = x.shape[d];
      p.red_strides[p.red_rank++] = in_strides[d];
    } else {
      p.kept_dims[p.kept_rank] = x.shape[d];
      p.kept_strides[p.kept_rank++] = in_strides[d];
    }
  }
  const long long n_in = x.num_elements(), n_out = y.num_elements();
  void *pi = c.dev_in(0), *po = c.dev_out();
  return CudaKernel([=](cudaStream_t s) {
    return k::LaunchMeanF32(static_cast<const float*>(pi), n_in, static_cast<float*>(po), n_out, p,
                            s);
  });
}

absl::StatusOr<CudaKernel> BuildResizeBilinear(const Op& c) {
  const auto& o = c.op().opts<ir::ResizeBilinearOptions>();
  const ir::Tensor &x = c.in(0), &y = c.out();
  const k::ResizeParams p{x.shape[0], x.shape[1], x.shape[2], x.shape[3], y.shape[1], y.shape[2]};
  if (y.num_elements() == 0) {
    return CudaKernel([](cudaStream_t) { return cudaSuccess; });
  }
  // The reference's tap formula, evaluated once here (host float maths), so
  // the device samples exactly where the reference does.
  auto taps = [&](int in, int out) {
    std::vector<k::ResizeTap> t(out);
    const float s = o.align_corners && out > 1 ? static_cast<float>(in - 1) / (out - 1)
                                               : static_cast<float>(in) / out;
    for (int i = 0; i < out; ++i) {
      const float v = o.half_pixel_centers ? (i + 0.5f) * s - 0.5f : i * s;
      const int lo = std::min(std::max(static_cast<int>(std::floor(v)), 0), in - 1);
      const int hi = std::min(static_cast<int>(std::ceil(v)), in - 1);
      t[i] = {lo, hi, v - lo};
    }
    return t;
  };
  const std::vector<k::ResizeTap> ty = taps(p.ih, p.oh), tx = taps(p.iw, p.ow);
  ASSIGN_OR_RETURN(void* dty, c.ctx->UploadConstant(ty.data(), ty.size() * sizeof(k::ResizeTap)));
  ASSIGN_OR_RETURN(void* dtx, c.ctx->UploadConstant(tx.data(), tx.size() * sizeof(k::ResizeTap)));
  void *pi = c.dev_in(0), *po = c.dev_out();
  return CudaKernel([=](cudaStream_t s) {
    return k::LaunchResizeBilinearF32(static_cast<const float*>(pi), static_cast<float*>(po), p,
                                      static_cast<const k::ResizeTap*>(dty),
                                      static_cast<const k::ResizeTap*>(dtx), s);
  });
}

// TF semantics, as the reference: masked begin/end take the full range,
// negative indices count from the end, shrink_axis takes one element.
absl::StatusOr<CudaKernel> BuildStridedSlice(const Op& c) {
  const auto& o = c.op().opts<ir::StridedSliceOptions>();
  const ir::Tensor &x = c.in(0), &y = c.out();
  ASSIGN_OR_RETURN(std::vector<int64_t> begin, c.ConstInts(1));
  ASSIGN_OR_RETURN(std::vector<int64_t> end, c.ConstInts(2));
  ASSIGN_OR_RETURN(std::vector<int64_t> stride, c.ConstInts(3));
  const int rank = static_cast<int>(x.shape.size());
  std::vector<int> count(rank);
  k::GatherParams p{};
  p.rank = rank;
  const std::vector<long long> in_strides = Strides(std::vector<int>(x.shape.begin(), x.shape.end()));
  for (int d = 0; d < rank; ++d) {
    const int dim = x.shape[d];
    const int64_t s = stride[d];
    auto norm = [&](int64_t v) {
      if (v < 0) v += dim;
      return s > 0 ? std::clamp<int64_t>(v, 0, dim) : std::clamp<int64_t>(v, -1, dim - 1);
    };
    int64_t b = (o.begin_mask >> d & 1) ? (s > 0 ? 0 : dim - 1) : norm(begin[d]);
    int64_t e;
    const bool shrink = o.shrink_axis_mask >> d & 1;
    if (shrink) {
      b = begin[d] < 0 ? begin[d] + dim : begin[d];
      e = b + 1;
    } else if (o.end_mask >> d & 1) {
      e = s > 0 ? dim : -1;
    } else {
      e = o.offset ? b + end[d] : norm(end[d]);
    }
    const int64_t n = s > 0 ? std::max<int64_t>(0, (e - b + s - 1) / s)
                            : std::max<int64_t>(0, (b - e - s - 1) / -s);
    count[d] = static_cast<int>(shrink ? 1 : n);
    p.dims[d] = count[d];
    p.in_start[d] = static_cast<int>(b);
    p.in_step[d] = static_cast<int>(s);
    p.in_dims[d] = dim;
    p.in_strides[d] = in_strides[d];
  }
  const std::vector<long long> out_strides = Strides(count);
  for (int d = 0; d < rank; ++d) p.out_strides[d] = out_strides[d];
  return GatherKernel(c.dev_in(0), x.num_elements(), c.dev_out(), y.num_elements(), p,
                      static_cast<int>(ir::DTypeSize(x.dtype)));
}

// TF DCR order: output (h*b + by, w*b + bx, c) = input (h, w, (by*b + bx)*C + c),
// i.e. a permutation of the input seen as [N, H, W, b, b, C].
absl::StatusOr<CudaKernel> BuildDepthToSpace(const Op& c) {
  const ir::Tensor &x = c.in(0), &y = c.out();
  const int bs = c.op().opts<ir::DepthToSpaceOptions>().block_size;
  const int n = x.shape[0], h = x.shape[1], w = x.shape[2], oc = x.shape[3] / (bs * bs);
  k::GatherParams p = PlainGather({n, h, bs, w, bs, oc});
  const long long in_str[6] = {static_cast<long long>(h) * w * bs * bs * oc,
                               static_cast<long long>(w) * bs * bs * oc,
                               static_cast<long long>(bs) * oc,
                               static_cast<long long>(bs) * bs * oc,
                               oc,
                               1};
  for (int d = 0; d < 6; ++d) p.in_strides[d] = in_str[d];
  return GatherKernel(c.dev_in(0), x.num_elements(), c.dev_out(), y.num_elements(), p,
                      static_cast<int>(ir::DTypeSize(x.dtype)));
}

using BuildFn = absl::StatusOr<CudaKernel> (*)(const Op&);

// The family's ops: their Build, or nullptr.
BuildFn BuilderOf(ir::OpType type) {
  switch (type) {
    case ir::OpType::kAdd:
    case ir::OpType::kSub:
    case ir::OpType::kMul:
    case ir::OpType::kDiv:
      return BuildBinary;
    case ir::OpType::kLogistic:
    case ir::OpType::kRelu:
    case ir::OpType::kRelu6:
    case ir::OpType::kTanh:
    case ir::OpType::kHardSwish:
    case ir::OpType::kSquare:
      return BuildUnary;
    case ir::OpType::kPrelu:
      return BuildPrelu;
    case ir::OpType::kSoftmax:
      return BuildSoftmax;
    case ir::OpType::kReshape:
      return BuildReshape;
    case ir::OpType::kPad:
      return BuildPad;
    case ir::OpType::kConcatenation:
      return BuildConcatenation;
    case ir::OpType::kMean:
      return BuildMean;
    case ir::OpType::kResizeBilinear:
      return BuildResizeBilinear;
    case ir::OpType::kStridedSlice:
      return BuildStridedSlice;
    case ir::OpType::kDepthToSpace:
      return BuildDepthToSpace;
    default:
      return nullptr;
  }
}

}  // namespace

int UnaryKernelCode(ir::OpType type) {
  switch (type) {
    case ir::OpType::kLogistic:
      return k::kUnaryLogistic;
    case ir::OpType::kRelu:
      return k::kUnaryRelu;
    case ir::OpType::kRelu6:
      return k::kUnaryRelu6;
    case ir::OpType::kTanh:
      return k::kUnaryTanh;
    case ir::OpType::kHardSwish:
      return k::kUnaryHardSwish;
    case ir::OpType::kSquare:
      return k::kUnarySquare;
    default:
      return -1;
  }
}

absl::Status CheckElementwiseFamilyOp(const ir::Graph& graph, int op_index) {
  if (op_index < 0 || op_index >= static_cast<int>(graph.ops.size())) {
    return absl::InvalidArgumentError(absl::StrCat(graph.source, ": no op ", op_index));
  }
  const ir::Op& op = graph.ops[op_index];
  auto unsupported = [&](absl::string_view msg) {
    return absl::UnimplementedError(absl::StrCat(graph.OpLabel(op_index), ": ", msg));
  };
  if (op.type == ir::OpType::kDequantize || op.type == ir::OpType::kDensify) {
    return unsupported(
        "weight conversions are folded at load time (FoldConstants); the cuda backend has no "
        "kernel for them");
  }
  if (BuilderOf(op.type) == nullptr) return unsupported("not an elementwise-family op");
  RETURN_IF_ERROR(reference::CheckOp(graph, op_index));
  // The kernels' rank limit where the reference has none.
  if (op.type == ir::OpType::kConcatenation &&
      graph.tensors[op.outputs[0]].shape.size() > static_cast<size_t>(k::kMaxRank)) {
    return unsupported(absl::StrCat("rank above ", k::kMaxRank));
  }
  return absl::OkStatus();
}

absl::StatusOr<CudaKernel> PrepareElementwiseFamilyOp(const ir::Graph& graph, int op_index,
                                                      CudaOpContext& context) {
  RETURN_IF_ERROR(CheckElementwiseFamilyOp(graph, op_index));
  return BuilderOf(graph.ops[op_index].type)(Op{graph, op_index, &context});
}

}  // namespace sluice::inference::cuda
