// Data movement and reductions: RESHAPE, PAD, CONCATENATION, MEAN,
// RESIZE_BILINEAR, STRIDED_SLICE, DEPTH_TO_SPACE, DEQUANTIZE.
// Pure data movement works on bytes, so any dtype passes through.
#include <cstring>
#include <memory>

#include "inference/reference/kernels_internal.h"
#include "util/status_macros.h"

namespace sluice::inference::reference::internal {
namespace {

std::vector<int64_t> Strides(const std::vector<int>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * dims[d + 1];
  return s;
}

absl::Status SameType(const Ctx& c, const ir::Tensor& a, const ir::Tensor& b) {
  if (a.dtype != b.dtype) return c.Error("input and output types differ");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Kernel> PrepareReshape(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(1, 2, 1));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(SameType(c, x, y));
  if (x.num_elements() != y.num_elements()) {
    return c.Error(absl::StrCat("cannot reshape ", ir::ShapeString(x.shape), " to ",
                                ir::ShapeString(y.shape)));
  }
  const void* in = c.vin(0);
  void* out = c.vout();
  const size_t bytes = y.byte_size();
  return Kernel([=]() {
    if (in != out) std::memmove(out, in, bytes);
  });
}

absl::StatusOr<Kernel> PreparePad(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(2, 2, 1));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(SameType(c, x, y));
  const int rank = static_cast<int>(x.shape.size());
  if (rank > kMaxRank || y.shape.size() != x.shape.size())
    return c.Error("input and output ranks differ (or rank > 8)");
  ASSIGN_OR_RETURN(std::vector<int64_t> pads, c.ConstInts(1, "paddings"));
  if (static_cast<int>(pads.size()) != 2 * rank) return c.Error("paddings must be [rank, 2]");
  std::vector<int> before(rank);
  for (int d = 0; d < rank; ++d) {
    if (pads[2 * d] < 0 || pads[2 * d + 1] < 0) return c.Error("negative padding");
    if (x.shape[d] + pads[2 * d] + pads[2 * d + 1] != y.shape[d]) {
      return c.Error(absl::StrCat("output dimension ", d, " is ", y.shape[d], ", paddings give ",
                                  x.shape[d] + pads[2 * d] + pads[2 * d + 1]));
    }
    before[d] = static_cast<int>(pads[2 * d]);
  }
  const std::vector<int> in_dims(x.shape.begin(), x.shape.end());
  const std::vector<int64_t> out_strides =
      Strides(std::vector<int>(y.shape.begin(), y.shape.end()));
  const size_t elem = ir::DTypeSize(x.dtype), out_bytes = y.byte_size();
  const int64_t rows = rank > 0 ? x.num_elements() / std::max(1, in_dims.back()) : 1;
  const auto* in = static_cast<const uint8_t*>(c.vin(0));
  auto* out = static_cast<uint8_t*>(c.vout());
  return Kernel([=]() {
    std::memset(out, 0, out_bytes);
    if (rank == 0) {
      std::memcpy(out, in, elem);
      return;
    }
    // Copy each innermost row of the input to its place in the output.
    const int row_len = in_dims.back();
    std::array<int, kMaxRank> idx{};  // no allocation at run time
    for (int64_t r = 0; r < rows; ++r) {
      int64_t o = 0;
      for (int d = 0; d < rank; ++d) o += (idx[d] + before[d]) * out_strides[d];
      std::memcpy(out + o * elem, in + r * row_len * elem, row_len * elem);
      for (int d = rank - 2; d >= 0; --d) {
        if (++idx[d] < in_dims[d]) break;
        idx[d] = 0;
      }
    }
  });
}

absl::StatusOr<Kernel> PrepareConcatenation(const Ctx& c) {
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
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= y.shape[d];
  for (int d = axis + 1; d < rank; ++d) inner *= y.shape[d];
  const size_t elem = ir::DTypeSize(y.dtype);
  std::vector<std::pair<const uint8_t*, int64_t>> parts;  // (data, bytes per outer step)
  int sum = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.has_input(i)) return c.Error("missing input");
    const ir::Tensor& x = c.in(i);
    RETURN_IF_ERROR(SameType(c, x, y));
    if (static_cast<int>(x.shape.size()) != rank)
      return c.Error("inputs must have the output's rank");
    for (int d = 0; d < rank; ++d) {
      if (d != axis && x.shape[d] != y.shape[d])
        return c.Error(absl::StrCat("input ", i, " ", ir::ShapeString(x.shape),
                                    " does not match output ", ir::ShapeString(y.shape)));
    }
    sum += x.shape[axis];
    const void* p = c.vin(i);
    if (x.is_constant) p = x.data.data();
    parts.push_back(
        {static_cast<const uint8_t*>(p), x.shape[axis] * inner * static_cast<int64_t>(elem)});
  }
  if (sum != y.shape[axis])
    return c.Error("input sizes along the axis do not add up to the output's");
  auto* out = static_cast<uint8_t*>(c.vout());
  const int64_t n = y.num_elements();
  const ir::Activation act = o.activation;
  return Kernel([=]() {
    uint8_t* dst = out;
    for (int64_t k = 0; k < outer; ++k)
      for (const auto& [src, bytes] : parts) {
        std::memcpy(dst, src + k * bytes, bytes);
        dst += bytes;
      }
    if (act != ir::Activation::kNone) {
      float* f = reinterpret_cast<float*>(out);
      for (int64_t i = 0; i < n; ++i) f[i] = Activate(f[i], act);
    }
  });
}

absl::StatusOr<Kernel> PrepareMean(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(2, 2, 1));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, c.ConstInts(1, "axes"));
  const int rank = static_cast<int>(x.shape.size());
  if (rank > kMaxRank) return c.Unsupported("rank above 8");
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    const int64_t ax = a < 0 ? a + rank : a;
    if (ax < 0 || ax >= rank) return c.Error(absl::StrCat("axis ", a, " out of range"));
    reduced[ax] = true;
  }
  const bool keep = c.op().opts<ir::ReducerOptions>().keep_dims;
  ir::Shape want;
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) {
      count *= x.shape[d];
      if (keep) want.push_back(1);
    } else {
      want.push_back(x.shape[d]);
    }
  }
  if (want != y.shape)
    return c.Error(
        absl::StrCat("output ", ir::ShapeString(y.shape), " should be ", ir::ShapeString(want)));
  // Output strides in input coordinates (0 on reduced dims).
  std::vector<int> dims(x.shape.begin(), x.shape.end());
  std::vector<int64_t> ostr(rank, 0);
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (!reduced[d]) {
      ostr[d] = s;
      s *= dims[d];
    }
  }
  const float* in = c.fin(0);
  float* out = c.fout();
  const int64_t n_in = x.num_elements(), n_out = y.num_elements();
  return Kernel([=]() {
    std::fill(out, out + n_out, 0.0f);
    std::array<int, kMaxRank> idx{};  // no allocation at run time
    int64_t o = 0;
    for (int64_t i = 0; i < n_in; ++i) {
      out[o] += in[i];
      for (int d = rank - 1; d >= 0; --d) {
        o += ostr[d];
        if (++idx[d] < dims[d]) break;
        o -= ostr[d] * dims[d];
        idx[d] = 0;
      }
    }
    if (count > 0)
      for (int64_t i = 0; i < n_out; ++i) out[i] /= static_cast<float>(count);
  });
}

// TFLite's reference RESIZE_BILINEAR: source coordinate = dst * scale (or
// (dst + 0.5) * scale - 0.5 with half_pixel_centers), scale = in/out or
// (in-1)/(out-1) with align_corners; lower index clamped at 0, upper at in-1.
absl::StatusOr<Kernel> PrepareResizeBilinear(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(2, 2, 1));
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
  if (y.num_elements() > 0 && (x.shape[1] == 0 || x.shape[2] == 0)) {
    return c.Error("cannot resize an empty image to a non-empty one");
  }
  const int n = x.shape[0], ih = x.shape[1], iw = x.shape[2], ch = x.shape[3], oh = y.shape[1],
            ow = y.shape[2];
  auto scale = [&](int in, int out) {
    return o.align_corners && out > 1 ? static_cast<float>(in - 1) / (out - 1)
                                      : static_cast<float>(in) / out;
  };
  struct Tap {
    int lo, hi;
    float frac;
  };
  auto taps = [&](int in, int out) {
    std::vector<Tap> t(out);
    const float s = scale(in, out);
    for (int i = 0; i < out; ++i) {
      const float v = o.half_pixel_centers ? (i + 0.5f) * s - 0.5f : i * s;
      const int lo = std::min(std::max(static_cast<int>(std::floor(v)), 0), in - 1);
      const int hi = std::min(static_cast<int>(std::ceil(v)), in - 1);
      t[i] = {lo, hi, v - lo};
    }
    return t;
  };
  const std::vector<Tap> ty = taps(ih, oh), tx = taps(iw, ow);
  const float* in = c.fin(0);
  float* out = c.fout();
  return Kernel([=]() {
    for (int b = 0; b < n; ++b)
      for (int yy = 0; yy < oh; ++yy)
        for (int xx = 0; xx < ow; ++xx) {
          const Tap &a = ty[yy], &e = tx[xx];
          const float* base = in + static_cast<size_t>(b) * ih * iw * ch;
          const float* p00 = base + (static_cast<size_t>(a.lo) * iw + e.lo) * ch;
          const float* p10 = base + (static_cast<size_t>(a.hi) * iw + e.lo) * ch;
          const float* p01 = base + (static_cast<size_t>(a.lo) * iw + e.hi) * ch;
          const float* p11 = base + (static_cast<size_t>(a.hi) * iw + e.hi) * ch;
          float* op = out + ((static_cast<size_t>(b) * oh + yy) * ow + xx) * ch;
          for (int k = 0; k < ch; ++k) {
            op[k] = p00[k] * (1 - a.frac) * (1 - e.frac) + p10[k] * a.frac * (1 - e.frac) +
                    p01[k] * (1 - a.frac) * e.frac + p11[k] * a.frac * e.frac;
          }
        }
  });
}

// TF semantics: masked begin/end take the full range; negative indices count
// from the end; shrink_axis takes one element and drops the dimension.
absl::StatusOr<Kernel> PrepareStridedSlice(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(4, 4, 1));
  const auto& o = c.op().opts<ir::StridedSliceOptions>();
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(SameType(c, x, y));
  if (o.ellipsis_mask || o.new_axis_mask)
    return c.Unsupported("ellipsis_mask/new_axis_mask are not supported");
  ASSIGN_OR_RETURN(std::vector<int64_t> begin, c.ConstInts(1, "begin"));
  ASSIGN_OR_RETURN(std::vector<int64_t> end, c.ConstInts(2, "end"));
  ASSIGN_OR_RETURN(std::vector<int64_t> stride, c.ConstInts(3, "strides"));
  const int rank = static_cast<int>(x.shape.size());
  if (rank > kMaxRank) return c.Unsupported("rank above 8");
  if (static_cast<int>(begin.size()) != rank || end.size() != begin.size() ||
      stride.size() != begin.size()) {
    return c.Error("begin/end/strides must have one entry per input dimension");
  }
  std::vector<int> start(rank), step(rank), count(rank);
  ir::Shape want;
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
    if (o.shrink_axis_mask >> d & 1) {
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
    start[d] = static_cast<int>(b);
    step[d] = static_cast<int>(s);
    count[d] = static_cast<int>(o.shrink_axis_mask >> d & 1 ? 1 : n);
    if (!(o.shrink_axis_mask >> d & 1)) want.push_back(count[d]);
  }
  if (want != y.shape)
    return c.Error(
        absl::StrCat("output ", ir::ShapeString(y.shape), " should be ", ir::ShapeString(want)));
  const std::vector<int64_t> in_str = Strides(std::vector<int>(x.shape.begin(), x.shape.end()));
  const size_t elem = ir::DTypeSize(x.dtype);
  const int64_t total = y.num_elements();
  const auto* in = static_cast<const uint8_t*>(c.vin(0));
  auto* out = static_cast<uint8_t*>(c.vout());
  // With stride 1 in the last dimension, each run along it is one memcpy
  // (channel slices of NHWC tensors: hand_recrop).
  const bool inner_runs = rank > 0 && step[rank - 1] == 1;
  const int run = inner_runs ? count[rank - 1] : 1;
  const int outer_rank = inner_runs ? rank - 1 : rank;
  return Kernel([=]() {
    if (total == 0) return;
    std::array<int, kMaxRank> idx{};  // no allocation at run time
    for (int64_t i = 0; i < total; i += run) {
      int64_t off = inner_runs ? start[rank - 1] * in_str[rank - 1] : 0;
      for (int d = 0; d < outer_rank; ++d)
        off += (start[d] + static_cast<int64_t>(idx[d]) * step[d]) * in_str[d];
      std::memcpy(out + i * elem, in + off * elem, run * elem);
      for (int d = outer_rank - 1; d >= 0; --d) {
        if (++idx[d] < count[d]) break;
        idx[d] = 0;
      }
    }
  });
}

// TF DCR order: output (h*b + by, w*b + bx, c) = input (h, w, (by*b + bx)*C + c).
absl::StatusOr<Kernel> PrepareDepthToSpace(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(1, 1, 1));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(SameType(c, x, y));
  RETURN_IF_ERROR(c.Rank(x, 4, "input"));
  RETURN_IF_ERROR(c.Rank(y, 4, "output"));
  const int bs = c.op().opts<ir::DepthToSpaceOptions>().block_size;
  if (bs < 1 || x.shape[3] % (bs * bs) != 0)
    return c.Error(absl::StrCat("block_size ", bs, " does not divide the depth"));
  const ir::Shape want{x.shape[0], x.shape[1] * bs, x.shape[2] * bs, x.shape[3] / (bs * bs)};
  if (want != y.shape) return c.Error(absl::StrCat("output should be ", ir::ShapeString(want)));
  const int n = x.shape[0], h = x.shape[1], w = x.shape[2], oc = want[3];
  const size_t elem = ir::DTypeSize(x.dtype);
  const auto* in = static_cast<const uint8_t*>(c.vin(0));
  auto* out = static_cast<uint8_t*>(c.vout());
  return Kernel([=]() {
    const uint8_t* src = in;
    for (int b = 0; b < n; ++b)
      for (int iy = 0; iy < h; ++iy)
        for (int ix = 0; ix < w; ++ix)
          for (int by = 0; by < bs; ++by)
            for (int bx = 0; bx < bs; ++bx) {
              const size_t o =
                  ((static_cast<size_t>(b) * h * bs + iy * bs + by) * w * bs + ix * bs + bx) * oc;
              std::memcpy(out + o * elem, src, oc * elem);
              src += oc * elem;
            }
  });
}

absl::StatusOr<Kernel> PrepareDequantize(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(1, 1, 1));
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.Float(y, "output"));
  if (x.dtype != ir::DType::kFloat16 || x.num_elements() != y.num_elements()) {
    return c.Unsupported("only float16 -> float32 DEQUANTIZE runs at inference time");
  }
  const auto* in = static_cast<const uint16_t*>(c.vin(0));
  float* out = c.fout();
  const int64_t n = x.num_elements();
  return Kernel([=]() {
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t h = in[i], sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
      float v = exp == 0 ? std::ldexp(static_cast<float>(mant), -24)
                : exp == 31
                    ? (mant ? NAN : INFINITY)
                    : std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
      out[i] = sign ? -v : v;
    }
  });
}

}  // namespace sluice::inference::reference::internal
