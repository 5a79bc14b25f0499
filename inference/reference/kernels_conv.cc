// Convolutions, fully connected and pooling. NHWC activations; TFLite weight
// layouts: CONV_2D [OC,KH,KW,IC], DEPTHWISE [1,KH,KW,IC*M], transposed conv
// [OC,KH,KW,IC], FULLY_CONNECTED [OUT,IN]. Each output sums its taps in
// (ky, kx, ic) order from zero and adds the bias last, like TFLite's
// reference kernels (same rounding).
#include <limits>
#include <memory>

#include "inference/reference/kernels_internal.h"
#include "util/status_macros.h"

namespace sluice::inference::reference::internal {
namespace {

using Weights = std::shared_ptr<const std::vector<float>>;

// Constant float input `i` (weights, bias) read from the graph.
absl::StatusOr<const float*> ConstFloat(const Ctx& c, int i, absl::string_view role) {
  const ir::Tensor& t = c.in(i);
  RETURN_IF_ERROR(c.Float(t, role));
  if (!t.is_constant)
    return c.Unsupported(absl::StrCat(role, " '", t.name, "' must be a constant"));
  return t.f32();
}

// Bias of `n` channels (zeros when the optional input is absent).
absl::StatusOr<Weights> Bias(const Ctx& c, int i, int n) {
  auto bias = std::make_shared<std::vector<float>>(n, 0.0f);
  if (c.has_input(i)) {
    ASSIGN_OR_RETURN(const float* b, ConstFloat(c, i, "bias"));
    if (c.in(i).num_elements() != n) {
      return c.Error(absl::StrCat("bias has ", c.in(i).num_elements(), " elements, expected ", n));
    }
    std::copy(b, b + n, bias->begin());
  }
  return Weights(bias);
}

absl::Status CheckSpatial(const Ctx& c, ir::Padding padding, int in, int k, int stride, int dil,
                          int out, absl::string_view dim, int* pad) {
  if (stride < 1 || dil < 1 || k < 1) {
    return c.Error(absl::StrCat("stride, dilation and filter size must be >= 1 (", dim, ")"));
  }
  const ir::PadOut p = ir::ComputePadding(padding, in, k, stride, dil);
  if (p.out != out) {
    return c.Error(absl::StrCat("output ", dim, " is ", out, ", the options give ", p.out));
  }
  *pad = p.pad_before;
  return absl::OkStatus();
}

struct Geometry {
  int n, ih, iw, ic, oh, ow, oc, kh, kw, sh, sw, dh, dw, pt, pl;
};

// The checks every convolution shares: float NHWC input and output, and a
// constant rank-4 float filter (input 1), whose data it returns.
absl::StatusOr<const float*> CheckConvTensors(const Ctx& c) {
  RETURN_IF_ERROR(c.Float(c.in(0), "input"));
  RETURN_IF_ERROR(c.Float(c.out(), "output"));
  RETURN_IF_ERROR(c.Rank(c.in(0), 4, "input"));
  RETURN_IF_ERROR(c.Rank(c.in(1), 4, "filter"));
  RETURN_IF_ERROR(c.Rank(c.out(), 4, "output"));
  return ConstFloat(c, 1, "filter");
}

}  // namespace

absl::StatusOr<Kernel> PrepareConv2D(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(2, 3, 1));
  const auto& o = c.op().opts<ir::Conv2DOptions>();
  const ir::Tensor &x = c.in(0), &w = c.in(1), &y = c.out();
  ASSIGN_OR_RETURN(const float* wd, CheckConvTensors(c));
  Geometry g{x.shape[0], x.shape[1],   x.shape[2],   x.shape[3], y.shape[1],
             y.shape[2], y.shape[3],   w.shape[1],   w.shape[2], o.stride_h,
             o.stride_w, o.dilation_h, o.dilation_w, 0,          0};
  if (w.shape[3] != g.ic)
    return c.Unsupported(absl::StrCat("filter depth ", w.shape[3], " differs from input depth ",
                                      g.ic, " (grouped convolution)"));
  if (w.shape[0] != g.oc || y.shape[0] != g.n)
    return c.Error("filter/output channels or batch do not match");
  RETURN_IF_ERROR(CheckSpatial(c, o.padding, g.ih, g.kh, g.sh, g.dh, g.oh, "height", &g.pt));
  RETURN_IF_ERROR(CheckSpatial(c, o.padding, g.iw, g.kw, g.sw, g.dw, g.ow, "width", &g.pl));
  ASSIGN_OR_RETURN(Weights bias, Bias(c, 2, g.oc));
  // Repack to [KH,KW,IC,OC] so the innermost loop runs over output channels.
  auto packed =
      std::make_shared<std::vector<float>>(static_cast<size_t>(g.kh) * g.kw * g.ic * g.oc);
  for (int oc = 0; oc < g.oc; ++oc)
    for (int k = 0; k < g.kh * g.kw; ++k)
      for (int ic = 0; ic < g.ic; ++ic)
        (*packed)[(static_cast<size_t>(k) * g.ic + ic) * g.oc + oc] =
            wd[(static_cast<size_t>(oc) * g.kh * g.kw + k) * g.ic + ic];
  const float* in = c.fin(0);
  float* out = c.fout();
  const ir::Activation act = o.activation;
  return Kernel([=]() {
    const float* wp = packed->data();
    for (int n = 0; n < g.n; ++n)
      for (int oy = 0; oy < g.oh; ++oy)
        for (int ox = 0; ox < g.ow; ++ox) {
          float* acc = out + ((static_cast<size_t>(n) * g.oh + oy) * g.ow + ox) * g.oc;
          std::fill(acc, acc + g.oc, 0.0f);
          for (int ky = 0; ky < g.kh; ++ky) {
            const int iy = oy * g.sh - g.pt + ky * g.dh;
            if (iy < 0 || iy >= g.ih) continue;
            for (int kx = 0; kx < g.kw; ++kx) {
              const int ix = ox * g.sw - g.pl + kx * g.dw;
              if (ix < 0 || ix >= g.iw) continue;
              const float* ip = in + ((static_cast<size_t>(n) * g.ih + iy) * g.iw + ix) * g.ic;
              const float* wk = wp + (static_cast<size_t>(ky) * g.kw + kx) * g.ic * g.oc;
              for (int ic = 0; ic < g.ic; ++ic) {
                const float v = ip[ic];
                const float* wr = wk + static_cast<size_t>(ic) * g.oc;
                for (int oc = 0; oc < g.oc; ++oc) acc[oc] += v * wr[oc];
              }
            }
          }
          for (int oc = 0; oc < g.oc; ++oc) acc[oc] = Activate(acc[oc] + (*bias)[oc], act);
        }
  });
}

absl::StatusOr<Kernel> PrepareDepthwiseConv2D(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(2, 3, 1));
  const auto& o = c.op().opts<ir::DepthwiseConv2DOptions>();
  const ir::Tensor &x = c.in(0), &w = c.in(1), &y = c.out();
  ASSIGN_OR_RETURN(const float* wd, CheckConvTensors(c));
  Geometry g{x.shape[0], x.shape[1],   x.shape[2],   x.shape[3], y.shape[1],
             y.shape[2], y.shape[3],   w.shape[1],   w.shape[2], o.stride_h,
             o.stride_w, o.dilation_h, o.dilation_w, 0,          0};
  if (w.shape[0] != 1 || w.shape[3] != g.oc) return c.Error("filter must be [1,KH,KW,OC]");
  if (g.ic <= 0 || g.oc % g.ic != 0)
    return c.Error(absl::StrCat("output depth ", g.oc, " is not a multiple of input depth ", g.ic));
  if (y.shape[0] != g.n) return c.Error("batch of output differs from input");
  RETURN_IF_ERROR(CheckSpatial(c, o.padding, g.ih, g.kh, g.sh, g.dh, g.oh, "height", &g.pt));
  RETURN_IF_ERROR(CheckSpatial(c, o.padding, g.iw, g.kw, g.sw, g.dw, g.ow, "width", &g.pl));
  ASSIGN_OR_RETURN(Weights bias, Bias(c, 2, g.oc));
  const int mult = g.oc / g.ic;
  const float* in = c.fin(0);
  float* out = c.fout();
  const ir::Activation act = o.activation;
  return Kernel([=]() {
    for (int n = 0; n < g.n; ++n)
      for (int oy = 0; oy < g.oh; ++oy)
        for (int ox = 0; ox < g.ow; ++ox) {
          float* acc = out + ((static_cast<size_t>(n) * g.oh + oy) * g.ow + ox) * g.oc;
          std::fill(acc, acc + g.oc, 0.0f);
          for (int ky = 0; ky < g.kh; ++ky) {
            const int iy = oy * g.sh - g.pt + ky * g.dh;
            if (iy < 0 || iy >= g.ih) continue;
            for (int kx = 0; kx < g.kw; ++kx) {
              const int ix = ox * g.sw - g.pl + kx * g.dw;
              if (ix < 0 || ix >= g.iw) continue;
              const float* ip = in + ((static_cast<size_t>(n) * g.ih + iy) * g.iw + ix) * g.ic;
              const float* wk = wd + (static_cast<size_t>(ky) * g.kw + kx) * g.oc;
              if (mult == 1) {
                for (int oc = 0; oc < g.oc; ++oc) acc[oc] += ip[oc] * wk[oc];
              } else {
                for (int oc = 0; oc < g.oc; ++oc) acc[oc] += ip[oc / mult] * wk[oc];
              }
            }
          }
          for (int oc = 0; oc < g.oc; ++oc) acc[oc] = Activate(acc[oc] + (*bias)[oc], act);
        }
  });
}

// MediaPipe's Convolution2DTransposeBias: each input pixel scatters
// input * filter into the output window at (in * stride - pad); output starts
// at the bias. SAME: pad_total = max(0, K - (I - 1) % S - 1), pad = total / 2.
absl::StatusOr<Kernel> PrepareTransposeConvBias(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(3, 3, 1));
  const auto& o = c.op().opts<ir::TransposeConvOptions>();
  const ir::Tensor &x = c.in(0), &w = c.in(1), &y = c.out();
  ASSIGN_OR_RETURN(const float* wd, CheckConvTensors(c));
  Geometry g{x.shape[0], x.shape[1], x.shape[2], x.shape[3], y.shape[1],
             y.shape[2], y.shape[3], w.shape[1], w.shape[2], o.stride_h,
             o.stride_w, 1,          1,          0,          0};
  if (g.sh < 1 || g.sw < 1) return c.Error("strides must be >= 1");
  if (w.shape[3] != g.ic || w.shape[0] != g.oc || y.shape[0] != g.n)
    return c.Error("filter must be [OC,KH,KW,IC] matching input and output");
  int pad_h = 0, pad_w = 0;
  if (o.padding == ir::Padding::kSame) {
    pad_h = std::max(0, g.kh - (g.ih - 1) % g.sh - 1);
    pad_w = std::max(0, g.kw - (g.iw - 1) % g.sw - 1);
  }
  const int want_h = g.sh * (g.ih - 1) + g.kh - pad_h, want_w = g.sw * (g.iw - 1) + g.kw - pad_w;
  if (want_h != g.oh || want_w != g.ow) {
    return c.Error(
        absl::StrCat("output is ", g.oh, "x", g.ow, ", the options give ", want_h, "x", want_w));
  }
  g.pt = pad_h / 2;
  g.pl = pad_w / 2;
  ASSIGN_OR_RETURN(Weights bias, Bias(c, 2, g.oc));
  const float* in = c.fin(0);
  float* out = c.fout();
  return Kernel([=]() {
    for (int n = 0; n < g.n; ++n) {
      float* ob = out + static_cast<size_t>(n) * g.oh * g.ow * g.oc;
      for (int p = 0; p < g.oh * g.ow; ++p)
        std::copy(bias->begin(), bias->end(), ob + static_cast<size_t>(p) * g.oc);
      for (int iy = 0; iy < g.ih; ++iy)
        for (int ix = 0; ix < g.iw; ++ix) {
          const float* ip = in + ((static_cast<size_t>(n) * g.ih + iy) * g.iw + ix) * g.ic;
          for (int ky = 0; ky < g.kh; ++ky) {
            const int oy = iy * g.sh - g.pt + ky;
            if (oy < 0 || oy >= g.oh) continue;
            for (int kx = 0; kx < g.kw; ++kx) {
              const int ox = ix * g.sw - g.pl + kx;
              if (ox < 0 || ox >= g.ow) continue;
              float* op = ob + (static_cast<size_t>(oy) * g.ow + ox) * g.oc;
              for (int oc = 0; oc < g.oc; ++oc) {
                const float* wr = wd + ((static_cast<size_t>(oc) * g.kh + ky) * g.kw + kx) * g.ic;
                float s = 0.0f;
                for (int ic = 0; ic < g.ic; ++ic) s += ip[ic] * wr[ic];
                op[oc] += s;
              }
            }
          }
        }
    }
  });
}

absl::StatusOr<Kernel> PrepareFullyConnected(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(2, 3, 1));
  const auto& o = c.op().opts<ir::FullyConnectedOptions>();
  const ir::Tensor &x = c.in(0), &w = c.in(1), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  RETURN_IF_ERROR(c.Rank(w, 2, "weights"));
  ASSIGN_OR_RETURN(const float* wd, ConstFloat(c, 1, "weights"));
  const int out_n = w.shape[0], in_n = w.shape[1];
  if (in_n <= 0 || x.num_elements() % in_n != 0) {
    return c.Error(absl::StrCat("input ", ir::ShapeString(x.shape), " is not a multiple of ", in_n,
                                " features"));
  }
  const int64_t rows = x.num_elements() / in_n;
  if (y.num_elements() != rows * out_n || y.shape.empty() || y.shape.back() != out_n) {
    return c.Error(
        absl::StrCat("output ", ir::ShapeString(y.shape), " must hold ", rows, " rows of ", out_n));
  }
  ASSIGN_OR_RETURN(Weights bias, Bias(c, 2, out_n));
  const float* in = c.fin(0);
  float* out = c.fout();
  const ir::Activation act = o.activation;
  return Kernel([=]() {
    for (int64_t r = 0; r < rows; ++r)
      for (int j = 0; j < out_n; ++j) {
        const float* ip = in + r * in_n;
        const float* wr = wd + static_cast<size_t>(j) * in_n;
        float s = 0.0f;
        for (int i = 0; i < in_n; ++i) s += ip[i] * wr[i];
        out[r * out_n + j] = Activate(s + (*bias)[j], act);
      }
  });
}

// Average pooling divides by the number of taps inside the input (padding
// taps do not count), as TFLite does.
absl::StatusOr<Kernel> PreparePool2D(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(1, 1, 1));
  const auto& o = c.op().opts<ir::Pool2DOptions>();
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  RETURN_IF_ERROR(c.Rank(x, 4, "input"));
  RETURN_IF_ERROR(c.Rank(y, 4, "output"));
  Geometry g{x.shape[0], x.shape[1], x.shape[2], x.shape[3], y.shape[1],
             y.shape[2], y.shape[3], o.filter_h, o.filter_w, o.stride_h,
             o.stride_w, 1,          1,          0,          0};
  if (g.oc != g.ic || y.shape[0] != g.n) return c.Error("pooling keeps batch and channels");
  RETURN_IF_ERROR(CheckSpatial(c, o.padding, g.ih, g.kh, g.sh, 1, g.oh, "height", &g.pt));
  RETURN_IF_ERROR(CheckSpatial(c, o.padding, g.iw, g.kw, g.sw, 1, g.ow, "width", &g.pl));
  const bool is_max = c.op().type == ir::OpType::kMaxPool2D;
  const float* in = c.fin(0);
  float* out = c.fout();
  const ir::Activation act = o.activation;
  return Kernel([=]() {
    for (int n = 0; n < g.n; ++n)
      for (int oy = 0; oy < g.oh; ++oy)
        for (int ox = 0; ox < g.ow; ++ox)
          for (int ch = 0; ch < g.ic; ++ch) {
            float acc = is_max ? -std::numeric_limits<float>::infinity() : 0.0f;
            int count = 0;
            for (int ky = 0; ky < g.kh; ++ky) {
              const int iy = oy * g.sh - g.pt + ky;
              if (iy < 0 || iy >= g.ih) continue;
              for (int kx = 0; kx < g.kw; ++kx) {
                const int ix = ox * g.sw - g.pl + kx;
                if (ix < 0 || ix >= g.iw) continue;
                const float v = in[((static_cast<size_t>(n) * g.ih + iy) * g.iw + ix) * g.ic + ch];
                acc = is_max ? std::max(acc, v) : acc + v;
                ++count;
              }
            }
            if (!is_max) acc = count > 0 ? acc / count : 0.0f;
            out[((static_cast<size_t>(n) * g.oh + oy) * g.ow + ox) * g.ic + ch] =
                Activate(acc, act);
          }
  });
}

}  // namespace sluice::inference::reference::internal
