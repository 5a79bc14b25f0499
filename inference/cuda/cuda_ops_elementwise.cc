// The cuda backend's elementwise family (cuda_ops.h): every op that is not a
// convolution/pool or a MediaPipe custom op. One Build() per op validates
// exactly what the reference kernel validates (inference/reference/
// kernels_elementwise.cc, kernels_misc.cc) and, given a context, binds device
// addresses into a launcher of kernels/elementwise_launch.h. Check runs Build
// without a context (nothing bound, nothing uploaded).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "inference/cuda/cuda_ops.h"
#include "inference/cuda/kernels/elementwise_launch.h"
#include "util/status_macros.h"

namespace sluice::inference::cuda {
namespace {

namespace k = ::sluice::inference_kernels;

// One op being checked or prepared; `ctx` null = check only.
struct Op {
  const ir::Graph& g;
  int index;
  CudaOpContext* ctx;

  const ir::Op& op() const { return g.ops[index]; }
  int num_inputs() const { return static_cast<int>(op().inputs.size()); }
  const ir::Tensor& in(int i) const { return g.tensors[op().inputs[i]]; }
  const ir::Tensor& out() const { return g.tensors[op().outputs[0]]; }
  void* dev_in(int i) const { return ctx ? ctx->Device(op().inputs[i]) : nullptr; }
  void* dev_out() const { return ctx ? ctx->Device(op().outputs[0]) : nullptr; }

  absl::Status Error(absl::string_view msg) const {
    return absl::InvalidArgumentError(absl::StrCat(g.OpLabel(index), ": ", msg));
  }
  absl::Status Unsupported(absl::string_view msg) const {
    return absl::UnimplementedError(absl::StrCat(g.OpLabel(index), ": ", msg));
  }
  absl::Status Arity(int min_in, int max_in) const {
    if (num_inputs() < min_in || num_inputs() > max_in) {
      return Error(absl::StrCat("expects ", min_in, "..", max_in, " inputs, has ", num_inputs()));
    }
    for (int i = 0; i < min_in; ++i) {
      if (op().inputs[i] < 0) return Error(absl::StrCat("input ", i, " is required"));
    }
    if (op().outputs.size() != 1) {
      return Error(absl::StrCat("expects 1 output, has ", op().outputs.size()));
    }
    return absl::OkStatus();
  }
  absl::Status Float(const ir::Tensor& t, absl::string_view role) const {
    if (t.dtype == ir::DType::kFloat32) return absl::OkStatus();
    return Unsupported(absl::StrCat(role, " '", t.name, "' is ",
                                    std::string(ir::DTypeName(t.dtype)),
                                    ", only float32 is supported"));
  }
  absl::Status SameType(const ir::Tensor& a, const ir::Tensor& b) const {
    if (a.dtype != b.dtype) return Error("input and output types differ");
    return absl::OkStatus();
  }
  absl::Status Rank(const ir::Tensor& t, int rank, absl::string_view role) const {
    if (static_cast<int>(t.shape.size()) == rank) return absl::OkStatus();
    return Error(absl::StrCat(role, " '", t.name, "' must have rank ", rank, ", has shape ",
                              ir::ShapeString(t.shape)));
  }
  absl::Status MaxRank(const ir::Tensor& t) const {
    if (t.shape.size() <= static_cast<size_t>(k::kMaxRank)) return absl::OkStatus();
    return Unsupported(absl::StrCat("rank above ", k::kMaxRank));
  }
  // Input i must be a constant int32/int64 tensor; its values.
  absl::StatusOr<std::vector<int64_t>> ConstInts(int i, absl::string_view role) const {
    if (i >= num_inputs() || op().inputs[i] < 0)
      return Error(absl::StrCat(role, " (input ", i, ") is missing"));
    const ir::Tensor& t = in(i);
    if (!t.is_constant) return Unsupported(absl::StrCat(role, " '", t.name, "' must be a constant"));
    std::vector<int64_t> v(t.num_elements());
    if (t.dtype == ir::DType::kInt32 && t.data.size() >= v.size() * 4) {
      for (size_t j = 0; j < v.size(); ++j) v[j] = t.i32()[j];
    } else if (t.dtype == ir::DType::kInt64 && t.data.size() >= v.size() * 8) {
      const auto* p = reinterpret_cast<const int64_t*>(t.data.data());
      for (size_t j = 0; j < v.size(); ++j) v[j] = p[j];
    } else {
      return Error(absl::StrCat(role, " '", t.name, "' must be int32 or int64"));
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

absl::StatusOr<k::BroadcastParams> MakeBroadcast(const Op& c, const ir::Shape& a,
                                                 const ir::Shape& b, const ir::Shape& out) {
  k::BroadcastParams bc{};
  if (a == out && b == out) return bc;  // rank 0: same shapes
  const int rank = static_cast<int>(std::max({a.size(), b.size(), out.size()}));
  if (rank > k::kMaxRank) return c.Unsupported(absl::StrCat("rank above ", k::kMaxRank));
  bc.rank = rank;
  const std::vector<int> od = PadShape(out, rank), ad = PadShape(a, rank), bd = PadShape(b, rank);
  long long sa = 1, sb = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int want = std::max(ad[d], bd[d]);
    if ((ad[d] != want && ad[d] != 1) || (bd[d] != want && bd[d] != 1) || od[d] != want) {
      return c.Error(absl::StrCat("shapes ", ir::ShapeString(a), " and ", ir::ShapeString(b),
                                  " do not broadcast to the output ", ir::ShapeString(out)));
    }
    bc.out_dims[d] = od[d];
    bc.a_strides[d] = ad[d] == 1 ? 0 : sa;
    bc.b_strides[d] = bd[d] == 1 ? 0 : sb;
    sa *= ad[d];
    sb *= bd[d];
  }
  return bc;
}

absl::StatusOr<CudaKernel> BuildBinary(const Op& c) {
  RETURN_IF_ERROR(c.Arity(2, 2));
  const ir::Tensor &a = c.in(0), &b = c.in(1), &y = c.out();
  if (a.dtype != b.dtype || a.dtype != y.dtype ||
      (a.dtype != ir::DType::kFloat32 && a.dtype != ir::DType::kInt32)) {
    return c.Unsupported("inputs and output must all be float32 or all int32");
  }
  ASSIGN_OR_RETURN(const k::BroadcastParams bc, MakeBroadcast(c, a.shape, b.shape, y.shape));
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
  if (a.dtype == ir::DType::kInt32) {
    if (act != k::kActNone) return c.Unsupported("fused activation on int32");
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
  RETURN_IF_ERROR(c.Arity(1, 1));
  const ir::Tensor &x = c.in(0), &y = c.out();
  if (x.num_elements() != y.num_elements()) return c.Error("output size differs from input");
  const long long n = x.num_elements();
  void *pi = c.dev_in(0), *po = c.dev_out();
  const ir::OpType type = c.op().type;
  if (type == ir::OpType::kSquare && x.dtype == ir::DType::kInt32 && y.dtype == ir::DType::kInt32) {
    return CudaKernel([=](cudaStream_t s) {
      return k::LaunchSquareI32(static_cast<const int32_t*>(pi), static_cast<int32_t*>(po), n, s);
    });
  }
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  int kind = k::kUnarySquare;
  switch (type) {
    case ir::OpType::kLogistic:
      kind = k::kUnaryLogistic;
      break;
    case ir::OpType::kRelu:
      kind = k::kUnaryRelu;
      break;
    case ir::OpType::kRelu6:
      kind = k::kUnaryRelu6;
      break;
    case ir::OpType::kTanh:
      kind = k::kUnaryTanh;
      break;
    case ir::OpType::kHardSwish:
      kind = k::kUnaryHardSwish;
      break;
    default:
      break;
  }
  return CudaKernel([=](cudaStream_t s) {
    return k::LaunchUnaryF32(static_cast<const float*>(pi), static_cast<float*>(po), n, kind, s);
  });
}

absl::StatusOr<CudaKernel> BuildPrelu(const Op& c) {
  RETURN_IF_ERROR(c.Arity(2, 2));
  const ir::Tensor &x = c.in(0), &alpha = c.in(1), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(alpha, "alpha"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  if (x.shape != y.shape) return c.Error("output shape differs from input");
  ASSIGN_OR_RETURN(const k::BroadcastParams bc, MakeBroadcast(c, x.shape, alpha.shape, y.shape));
  const long long n = y.num_elements(), na = alpha.num_elements();
  void *px = c.dev_in(0), *pa = c.dev_in(1), *po = c.dev_out();
  return CudaKernel([=](cudaStream_t s) {
    return k::LaunchPreluF32(static_cast<const float*>(px), static_cast<const float*>(pa), na,
                             static_cast<float*>(po), n, bc, s);
  });
}

absl::StatusOr<CudaKernel> BuildSoftmax(const Op& c) {
  RETURN_IF_ERROR(c.Arity(1, 1));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  if (x.shape != y.shape || x.shape.empty()) return c.Error("output shape differs from input");
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
  RETURN_IF_ERROR(c.Arity(1, 2));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.SameType(x, y));
  if (x.num_elements() != y.num_elements()) {
    return c.Error(absl::StrCat("cannot reshape ", ir::ShapeString(x.shape), " to ",
                                ir::ShapeString(y.shape)));
  }
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
  RETURN_IF_ERROR(c.Arity(2, 2));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.SameType(x, y));
  const int rank = static_cast<int>(x.shape.size());
  if (rank > k::kMaxRank || y.shape.size() != x.shape.size())
    return c.Error("input and output ranks differ (or rank > 8)");
  ASSIGN_OR_RETURN(std::vector<int64_t> pads, c.ConstInts(1, "paddings"));
  if (static_cast<int>(pads.size()) != 2 * rank) return c.Error("paddings must be [rank, 2]");
  const std::vector<int> out_dims(y.shape.begin(), y.shape.end());
  k::GatherParams p = PlainGather(out_dims);
  const std::vector<long long> in_strides = Strides(std::vector<int>(x.shape.begin(), x.shape.end()));
  for (int d = 0; d < rank; ++d) {
    if (pads[2 * d] < 0 || pads[2 * d + 1] < 0) return c.Error("negative padding");
    if (x.shape[d] + pads[2 * d] + pads[2 * d + 1] != y.shape[d]) {
      return c.Error(absl::StrCat("output dimension ", d, " is ", y.shape[d], ", paddings give ",
                                  x.shape[d] + pads[2 * d] + pads[2 * d + 1]));
    }
    p.in_start[d] = -static_cast<int>(pads[2 * d]);
    p.in_dims[d] = x.shape[d];
    p.in_strides[d] = in_strides[d];
  }
  return GatherKernel(c.dev_in(0), x.num_elements(), c.dev_out(), y.num_elements(), p,
                      static_cast<int>(ir::DTypeSize(x.dtype)));
}

absl::StatusOr<CudaKernel> BuildConcatenation(const Op& c) {
  if (c.num_inputs() < 1 || c.op().outputs.size() != 1)
    return c.Error("expects inputs and one output");
  const auto& o = c.op().opts<ir::ConcatenationOptions>();
  const ir::Tensor& y = c.out();
  const int rank = static_cast<int>(y.shape.size());
  const int axis = o.axis < 0 ? o.axis + rank : o.axis;
  if (axis < 0 || axis >= rank)
    return c.Error(absl::StrCat("axis ", o.axis, " out of range for rank ", rank));
  if (o.activation != ir::Activation::kNone && y.dtype != ir::DType::kFloat32)
    return c.Unsupported("fused activation on non-float");
  RETURN_IF_ERROR(c.MaxRank(y));
  long long inner = 1;
  for (int d = axis + 1; d < rank; ++d) inner *= y.shape[d];
  const std::vector<long long> y_strides = Strides(std::vector<int>(y.shape.begin(), y.shape.end()));
  const int elem = static_cast<int>(ir::DTypeSize(y.dtype));
  const long long y_elems = y.num_elements();
  auto* out = static_cast<uint8_t*>(c.dev_out());
  std::vector<CudaKernel> parts;
  int sum = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.op().inputs[i] < 0) return c.Error("missing input");
    const ir::Tensor& x = c.in(i);
    RETURN_IF_ERROR(c.SameType(x, y));
    if (static_cast<int>(x.shape.size()) != rank)
      return c.Error("inputs must have the output's rank");
    for (int d = 0; d < rank; ++d) {
      if (d != axis && x.shape[d] != y.shape[d])
        return c.Error(absl::StrCat("input ", i, " ", ir::ShapeString(x.shape),
                                    " does not match output ", ir::ShapeString(y.shape)));
    }
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
  if (sum != y.shape[axis])
    return c.Error("input sizes along the axis do not add up to the output's");
  const int act = static_cast<int>(o.activation);
  return CudaKernel([=](cudaStream_t s) {
    for (const CudaKernel& part : parts) {
      if (cudaError_t e = part(s); e != cudaSuccess) return e;
    }
    return k::LaunchActivationF32(reinterpret_cast<float*>(out), y_elems, act, s);
  });
}

absl::StatusOr<CudaKernel> BuildMean(const Op& c) {
  RETURN_IF_ERROR(c.Arity(2, 2));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, c.ConstInts(1, "axes"));
  const int rank = static_cast<int>(x.shape.size());
  RETURN_IF_ERROR(c.MaxRank(x));
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    const int64_t ax = a < 0 ? a + rank : a;
    if (ax < 0 || ax >= rank) return c.Error(absl::StrCat("axis ", a, " out of range"));
    reduced[ax] = true;
  }
  const bool keep = c.op().opts<ir::ReducerOptions>().keep_dims;
  ir::Shape want;
  const std::vector<long long> in_strides = Strides(std::vector<int>(x.shape.begin(), x.shape.end()));
  k::MeanParams p{};
  p.count = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) {
      p.count *= x.shape[d];
      p.red_dims[p.red_rank] = x.shape[d];
      p.red_strides[p.red_rank++] = in_strides[d];
      if (keep) want.push_back(1);
    } else {
      want.push_back(x.shape[d]);
      p.kept_dims[p.kept_rank] = x.shape[d];
      p.kept_strides[p.kept_rank++] = in_strides[d];
    }
  }
  if (want != y.shape)
    return c.Error(
        absl::StrCat("output ", ir::ShapeString(y.shape), " should be ", ir::ShapeString(want)));
  const long long n_in = x.num_elements(), n_out = y.num_elements();
  void *pi = c.dev_in(0), *po = c.dev_out();
  return CudaKernel([=](cudaStream_t s) {
    return k::LaunchMeanF32(static_cast<const float*>(pi), n_in, static_cast<float*>(po), n_out, p,
                            s);
  });
}

absl::StatusOr<CudaKernel> BuildResizeBilinear(const Op& c) {
  RETURN_IF_ERROR(c.Arity(2, 2));
  const auto& o = c.op().opts<ir::ResizeBilinearOptions>();
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  RETURN_IF_ERROR(c.Rank(x, 4, "input"));
  RETURN_IF_ERROR(c.Rank(y, 4, "output"));
  ASSIGN_OR_RETURN(std::vector<int64_t> size, c.ConstInts(1, "size"));
  if (size.size() != 2 || size[0] != y.shape[1] || size[1] != y.shape[2])
    return c.Error("size input does not match the output shape");
  if (o.align_corners && o.half_pixel_centers)
    return c.Error("align_corners and half_pixel_centers are exclusive");
  if (y.shape[0] != x.shape[0] || y.shape[3] != x.shape[3]) return c.Error("batch/channels differ");
  if (y.num_elements() > 0 && (x.shape[1] == 0 || x.shape[2] == 0))
    return c.Error("cannot resize an empty image to a non-empty one");
  const k::ResizeParams p{x.shape[0], x.shape[1], x.shape[2], x.shape[3], y.shape[1], y.shape[2]};
  if (c.ctx == nullptr || y.num_elements() == 0) {
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
  RETURN_IF_ERROR(c.Arity(4, 4));
  const auto& o = c.op().opts<ir::StridedSliceOptions>();
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.SameType(x, y));
  if (o.ellipsis_mask || o.new_axis_mask)
    return c.Unsupported("ellipsis_mask/new_axis_mask are not supported");
  ASSIGN_OR_RETURN(std::vector<int64_t> begin, c.ConstInts(1, "begin"));
  ASSIGN_OR_RETURN(std::vector<int64_t> end, c.ConstInts(2, "end"));
  ASSIGN_OR_RETURN(std::vector<int64_t> stride, c.ConstInts(3, "strides"));
  const int rank = static_cast<int>(x.shape.size());
  RETURN_IF_ERROR(c.MaxRank(x));
  if (static_cast<int>(begin.size()) != rank || end.size() != begin.size() ||
      stride.size() != begin.size()) {
    return c.Error("begin/end/strides must have one entry per input dimension");
  }
  std::vector<int> count(rank);
  k::GatherParams p{};
  p.rank = rank;
  ir::Shape want;
  const std::vector<long long> in_strides = Strides(std::vector<int>(x.shape.begin(), x.shape.end()));
  for (int d = 0; d < rank; ++d) {
    const int dim = x.shape[d];
    const int64_t s = stride[d];
    if (s == 0) return c.Error("stride 0");
    auto norm = [&](int64_t v) {
      if (v < 0) v += dim;
      return s > 0 ? std::clamp<int64_t>(v, 0, dim) : std::clamp<int64_t>(v, -1, dim - 1);
    };
    int64_t b = (o.begin_mask >> d & 1) ? (s > 0 ? 0 : dim - 1) : norm(begin[d]);
    int64_t e;
    const bool shrink = o.shrink_axis_mask >> d & 1;
    if (shrink) {
      b = begin[d] < 0 ? begin[d] + dim : begin[d];
      if (b < 0 || b >= dim)
        return c.Error(absl::StrCat("shrink index out of range in dimension ", d));
      e = b + 1;
    } else if (o.end_mask >> d & 1) {
      e = s > 0 ? dim : -1;
    } else {
      e = o.offset ? b + end[d] : norm(end[d]);
    }
    const int64_t n = s > 0 ? std::max<int64_t>(0, (e - b + s - 1) / s)
                            : std::max<int64_t>(0, (b - e - s - 1) / -s);
    count[d] = static_cast<int>(shrink ? 1 : n);
    if (!shrink) want.push_back(count[d]);
    p.dims[d] = count[d];
    p.in_start[d] = static_cast<int>(b);
    p.in_step[d] = static_cast<int>(s);
    p.in_dims[d] = dim;
    p.in_strides[d] = in_strides[d];
  }
  if (want != y.shape)
    return c.Error(
        absl::StrCat("output ", ir::ShapeString(y.shape), " should be ", ir::ShapeString(want)));
  const std::vector<long long> out_strides = Strides(count);
  for (int d = 0; d < rank; ++d) p.out_strides[d] = out_strides[d];
  return GatherKernel(c.dev_in(0), x.num_elements(), c.dev_out(), y.num_elements(), p,
                      static_cast<int>(ir::DTypeSize(x.dtype)));
}

// TF DCR order: output (h*b + by, w*b + bx, c) = input (h, w, (by*b + bx)*C + c),
// i.e. a permutation of the input seen as [N, H, W, b, b, C].
absl::StatusOr<CudaKernel> BuildDepthToSpace(const Op& c) {
  RETURN_IF_ERROR(c.Arity(1, 1));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.SameType(x, y));
  RETURN_IF_ERROR(c.Rank(x, 4, "input"));
  RETURN_IF_ERROR(c.Rank(y, 4, "output"));
  const int bs = c.op().opts<ir::DepthToSpaceOptions>().block_size;
  if (bs < 1 || x.shape[3] % (bs * bs) != 0)
    return c.Error(absl::StrCat("block_size ", bs, " does not divide the depth"));
  const ir::Shape want{x.shape[0], x.shape[1] * bs, x.shape[2] * bs, x.shape[3] / (bs * bs)};
  if (want != y.shape) return c.Error(absl::StrCat("output should be ", ir::ShapeString(want)));
  const int n = x.shape[0], h = x.shape[1], w = x.shape[2], oc = want[3];
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

absl::StatusOr<CudaKernel> Build(const ir::Graph& graph, int op_index, CudaOpContext* ctx) {
  const Op c{graph, op_index, ctx};
  switch (c.op().type) {
    case ir::OpType::kAdd:
    case ir::OpType::kSub:
    case ir::OpType::kMul:
    case ir::OpType::kDiv:
      return BuildBinary(c);
    case ir::OpType::kLogistic:
    case ir::OpType::kRelu:
    case ir::OpType::kRelu6:
    case ir::OpType::kTanh:
    case ir::OpType::kHardSwish:
    case ir::OpType::kSquare:
      return BuildUnary(c);
    case ir::OpType::kPrelu:
      return BuildPrelu(c);
    case ir::OpType::kSoftmax:
      return BuildSoftmax(c);
    case ir::OpType::kReshape:
      return BuildReshape(c);
    case ir::OpType::kPad:
      return BuildPad(c);
    case ir::OpType::kConcatenation:
      return BuildConcatenation(c);
    case ir::OpType::kMean:
      return BuildMean(c);
    case ir::OpType::kResizeBilinear:
      return BuildResizeBilinear(c);
    case ir::OpType::kStridedSlice:
      return BuildStridedSlice(c);
    case ir::OpType::kDepthToSpace:
      return BuildDepthToSpace(c);
    case ir::OpType::kDequantize:
    case ir::OpType::kDensify:
      return c.Unsupported(
          "weight conversions are folded at load time (FoldConstants); the cuda backend has no "
          "kernel for them");
    default:
      return c.Unsupported("not an elementwise-family op");
  }
}

}  // namespace

absl::Status CheckElementwiseFamilyOp(const ir::Graph& graph, int op_index) {
  return Build(graph, op_index, nullptr).status();
}

absl::StatusOr<CudaKernel> PrepareElementwiseFamilyOp(const ir::Graph& graph, int op_index,
                                                      CudaOpContext& context) {
  return Build(graph, op_index, &context);
}

}  // namespace sluice::inference::cuda
