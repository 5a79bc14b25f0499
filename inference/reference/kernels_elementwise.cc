// Elementwise ops: numpy-style broadcasting binary ops (float32, int32),
// activations, PRELU and SOFTMAX.
#include <cstring>
#include <memory>

#include "inference/reference/kernels_internal.h"
#include "util/status_macros.h"

namespace sluice::inference::reference::internal {
namespace {

// Element offsets of an input broadcast to the output shape: stride 0 on
// broadcast dimensions. Precomputed once (outputs here are small enough).
struct Broadcast {
  std::vector<int> out_dims;
  std::vector<int64_t> a_strides, b_strides;
};

absl::StatusOr<Broadcast> MakeBroadcast(const Ctx& c, const ir::Shape& a, const ir::Shape& b,
                                        const ir::Shape& out) {
  const int rank = static_cast<int>(std::max({a.size(), b.size(), out.size()}));
  if (rank > kMaxRank) return c.Unsupported(absl::StrCat("rank above ", kMaxRank));
  Broadcast bc;
  bc.out_dims = PadShape(out, rank);
  const std::vector<int> ad = PadShape(a, rank), bd = PadShape(b, rank);
  bc.a_strides.assign(rank, 0);
  bc.b_strides.assign(rank, 0);
  int64_t sa = 1, sb = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int want = std::max(ad[d], bd[d]);
    if ((ad[d] != want && ad[d] != 1) || (bd[d] != want && bd[d] != 1) || bc.out_dims[d] != want) {
      return c.Error(absl::StrCat("shapes ", ir::ShapeString(a), " and ", ir::ShapeString(b),
                                  " do not broadcast to the output ", ir::ShapeString(out)));
    }
    bc.a_strides[d] = ad[d] == 1 ? 0 : sa;
    bc.b_strides[d] = bd[d] == 1 ? 0 : sb;
    sa *= ad[d];
    sb *= bd[d];
  }
  return bc;
}

template <typename T, typename F>
void RunBroadcast(const Broadcast& bc, const T* a, const T* b, T* out, F f) {
  const int rank = static_cast<int>(bc.out_dims.size());
  int64_t total = 1;
  for (int d : bc.out_dims) total *= d;
  std::array<int, kMaxRank> idx{};  // no allocation at run time
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < total; ++i) {
    out[i] = f(a[oa], b[ob]);
    for (int d = rank - 1; d >= 0; --d) {
      oa += bc.a_strides[d];
      ob += bc.b_strides[d];
      if (++idx[d] < bc.out_dims[d]) break;
      oa -= bc.a_strides[d] * bc.out_dims[d];
      ob -= bc.b_strides[d] * bc.out_dims[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
T ApplyBinary(ir::OpType type, T x, T y) {
  switch (type) {
    case ir::OpType::kAdd:
      return x + y;
    case ir::OpType::kSub:
      return x - y;
    case ir::OpType::kMul:
      return x * y;
    default:
      return y == T(0) && std::is_integral_v<T> ? T(0) : x / y;
  }
}

}  // namespace

absl::StatusOr<Kernel> PrepareBinary(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(2, 2, 1));
  const ir::Tensor &a = c.in(0), &b = c.in(1), &y = c.out();
  if (a.dtype != b.dtype || a.dtype != y.dtype ||
      (a.dtype != ir::DType::kFloat32 && a.dtype != ir::DType::kInt32)) {
    return c.Unsupported("inputs and output must all be float32 or all int32");
  }
  ASSIGN_OR_RETURN(Broadcast bc, MakeBroadcast(c, a.shape, b.shape, y.shape));
  const ir::OpType type = c.op().type;
  const ir::Activation act = c.op().opts<ir::BinaryOptions>().activation;
  const void* pa = c.vin(0);
  const void* pb = c.vin(1);
  void* po = c.vout();
  if (a.dtype == ir::DType::kInt32) {
    if (act != ir::Activation::kNone) return c.Unsupported("fused activation on int32");
    return Kernel([=]() {
      RunBroadcast<int32_t>(bc, static_cast<const int32_t*>(pa), static_cast<const int32_t*>(pb),
                            static_cast<int32_t*>(po),
                            [type](int32_t x, int32_t z) { return ApplyBinary(type, x, z); });
    });
  }
  const bool same = a.shape == y.shape && b.shape == y.shape;
  const int64_t n = y.num_elements();
  return Kernel([=]() {
    const float* fa = static_cast<const float*>(pa);
    const float* fb = static_cast<const float*>(pb);
    float* fo = static_cast<float*>(po);
    if (same) {
      for (int64_t i = 0; i < n; ++i) fo[i] = Activate(ApplyBinary(type, fa[i], fb[i]), act);
      return;
    }
    RunBroadcast<float>(bc, fa, fb, fo, [type, act](float x, float z) {
      return Activate(ApplyBinary(type, x, z), act);
    });
  });
}

absl::StatusOr<Kernel> PrepareUnary(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(1, 1, 1));
  const ir::Tensor &x = c.in(0), &y = c.out();
  if (x.shape != y.shape && x.num_elements() != y.num_elements())
    return c.Error("output shape differs from input");
  if (x.num_elements() != y.num_elements()) return c.Error("output size differs from input");
  const ir::OpType type = c.op().type;
  const int64_t n = x.num_elements();
  if (type == ir::OpType::kSquare && x.dtype == ir::DType::kInt32 && y.dtype == ir::DType::kInt32) {
    const auto* in = static_cast<const int32_t*>(c.vin(0));
    auto* out = static_cast<int32_t*>(c.vout());
    return Kernel([=]() {
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] * in[i];
    });
  }
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  const float* in = c.fin(0);
  float* out = c.fout();
  return Kernel([=]() {
    for (int64_t i = 0; i < n; ++i) {
      const float v = in[i];
      switch (type) {
        case ir::OpType::kLogistic:
          out[i] = 1.0f / (1.0f + std::exp(-v));
          break;
        case ir::OpType::kRelu:
          out[i] = std::max(v, 0.0f);
          break;
        case ir::OpType::kRelu6:
          out[i] = std::min(std::max(v, 0.0f), 6.0f);
          break;
        case ir::OpType::kTanh:
          out[i] = std::tanh(v);
          break;
        case ir::OpType::kHardSwish:
          out[i] = v * std::min(std::max(v + 3.0f, 0.0f), 6.0f) / 6.0f;
          break;
        default:
          out[i] = v * v;
          break;  // kSquare
      }
    }
  });
}

// out = x >= 0 ? x : alpha * x, alpha broadcast to x (e.g. [1,1,C] on NHWC).
absl::StatusOr<Kernel> PreparePrelu(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(2, 2, 1));
  const ir::Tensor &x = c.in(0), &alpha = c.in(1), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(alpha, "alpha"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  if (x.shape != y.shape) return c.Error("output shape differs from input");
  ASSIGN_OR_RETURN(Broadcast bc, MakeBroadcast(c, x.shape, alpha.shape, y.shape));
  const float* in = c.fin(0);
  const float* al = c.fin(1);
  float* out = c.fout();
  return Kernel([=]() {
    RunBroadcast<float>(bc, in, al, out, [](float v, float a) { return v >= 0.0f ? v : a * v; });
  });
}

absl::StatusOr<Kernel> PrepareSoftmax(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(1, 1, 1));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  if (x.shape != y.shape || x.shape.empty()) return c.Error("output shape differs from input");
  const float beta = c.op().opts<ir::SoftmaxOptions>().beta;
  const int depth = x.shape.back();
  const int64_t rows = depth > 0 ? x.num_elements() / depth : 0;
  const float* in = c.fin(0);
  float* out = c.fout();
  return Kernel([=]() {
    for (int64_t r = 0; r < rows; ++r) {
      const float* ip = in + r * depth;
      float* op = out + r * depth;
      float mx = ip[0];
      for (int i = 1; i < depth; ++i) mx = std::max(mx, ip[i]);
      float sum = 0.0f;
      for (int i = 0; i < depth; ++i) sum += (op[i] = std::exp((ip[i] - mx) * beta));
      for (int i = 0; i < depth; ++i) op[i] /= sum;
    }
  });
}

}  // namespace sluice::inference::reference::internal
