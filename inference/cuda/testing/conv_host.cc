// Host stand-ins for the launchers of kernels/conv.cu, for the fake CUDA
// runtime: the same per-output maths (kernels/conv.h), queued on the stream
// like a kernel, with every device range checked first.
#include <cstddef>
#include <cstdint>

#include "gpu/testing/fake_cuda_runtime.h"

#include "inference/cuda/kernels/conv.h"
#include "inference/cuda/kernels/conv_launch.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {
namespace {

bool FloatsOk(const float* p, int64_t count) {
  return fake_cuda::CheckDeviceRange(p, static_cast<size_t>(count) * sizeof(float));
}

// The fused consumers' operands (epilogue.h) over an output of `count`
// elements and `channels` channels.
bool EpilogueOk(const Epilogue& e, int64_t count, int channels) {
  if (e.count < 0 || e.count > kMaxEpilogueSteps) return false;
  for (int s = 0; s < e.count; ++s) {
    const EpilogueStep& st = e.steps[s];
    if (st.kind == kEpiUnary) continue;
    int64_t n = st.operand_kind == kEpiFull ? count : st.operand_kind == kEpiChannel ? channels : 1;
    if (st.operand_kind == kEpiPaddedChannels) {
      if (st.channels <= 0 || st.offset < 0 || st.offset + st.channels > channels) return false;
      n = count / channels * st.channels;
    }
    if (!FloatsOk(st.operand, n)) return false;
  }
  return true;
}

// Input, weights (kh*kw*w_per_tap floats), bias and output of a convolution.
bool ConvRangesOk(const float* in, const float* w, int64_t w_count, const float* bias,
                  const float* out, const ConvParams& p) {
  const int64_t out_count = static_cast<int64_t>(p.n) * p.oh * p.ow * p.oc;
  return FloatsOk(in, static_cast<int64_t>(p.n) * p.ih * p.iw * p.ic) && FloatsOk(w, w_count) &&
         FloatsOk(bias, p.oc) && FloatsOk(out, out_count) && EpilogueOk(p.epi, out_count, p.oc);
}

// Runs fn(n, oy, ox, oc) over every output element, in output order.
template <typename Fn>
cudaError_t EnqueueOutputs(const ConvParams& p, float* out, cudaStream_t stream, Fn fn) {
  return fake_cuda::Enqueue(stream, [=] {
    int64_t i = 0;
    for (int n = 0; n < p.n; ++n)
      for (int oy = 0; oy < p.oh; ++oy)
        for (int ox = 0; ox < p.ow; ++ox)
          for (int oc = 0; oc < p.oc; ++oc) out[i++] = fn(n, oy, ox, oc);
  });
}

}  // namespace

cudaError_t LaunchConv2D(const float* in, const float* w, const float* bias, float* out,
                         const ConvParams& p, cudaStream_t stream) {
  if (!ConvParamsValid(p)) return cudaErrorInvalidValue;
  if (!ConvRangesOk(in, w, static_cast<int64_t>(p.kh) * p.kw * p.ic * p.oc, bias, out, p)) {
    return cudaErrorInvalidValue;
  }
  return EnqueueOutputs(p, out, stream, [=](int n, int oy, int ox, int oc) {
    return ConvOutput(in, w, bias, p, n, oy, ox, oc);
  });
}

cudaError_t LaunchGemm(const float* a, const float* b, const float* bias, float* c,
                       const GemmParams& p, cudaStream_t stream) {
  if (!GemmParamsValid(p)) return cudaErrorInvalidValue;
  if (!FloatsOk(a, static_cast<int64_t>(p.m) * p.k) || !FloatsOk(b, static_cast<int64_t>(p.k) * p.n) ||
      !FloatsOk(bias, p.n) || !FloatsOk(c, static_cast<int64_t>(p.m) * p.n) ||
      !EpilogueOk(p.epi, static_cast<int64_t>(p.m) * p.n, p.n)) {
    return cudaErrorInvalidValue;
  }
  if (GemmUsesRowKernel(p)) {
    return fake_cuda::Enqueue(stream, [=] {
      for (int m0 = 0; m0 < p.m; m0 += kRowGemmRows)
        for (int n0 = 0; n0 < p.n; n0 += kRowGemmCols)
          for (int t = 0; t < kRowGemmThreads; ++t) GemmRowOutput(a, b, bias, c, p, m0, n0, t);
    });
  }
  if ((p.n + kGemmTile - 1) / kGemmTile > 65535) return cudaErrorInvalidValue;
  // The kernel's blocks one after the other, each phase for all its threads
  // before the next (what the kernel's barriers guarantee).
  return fake_cuda::Enqueue(stream, [=] {
    GemmTiles tiles;
    float acc[kGemmThreads][2][2];
    for (int m0 = 0; m0 < p.m; m0 += kGemmTile)
      for (int n0 = 0; n0 < p.n; n0 += kGemmTile) {
        for (auto& a4 : acc) a4[0][0] = a4[0][1] = a4[1][0] = a4[1][1] = 0.0f;
        for (int k0 = 0; k0 < p.k; k0 += kGemmTileK) {
          for (int t = 0; t < kGemmThreads; ++t) GemmLoadTiles(a, b, p, m0, n0, k0, t, tiles);
          for (int t = 0; t < kGemmThreads; ++t) GemmAccumulate(tiles, t % 16, t / 16, acc[t]);
        }
        for (int t = 0; t < kGemmThreads; ++t) GemmStore(acc[t], bias, c, p, m0, n0, t % 16, t / 16);
      }
  });
}

cudaError_t LaunchGemv(const float* a, const float* w_nk, const float* bias, float* c,
                       const GemmParams& p, cudaStream_t stream) {
  if (!GemmParamsValid(p) || p.m > kGemvMaxRows) return cudaErrorInvalidValue;
  if (!FloatsOk(a, static_cast<int64_t>(p.m) * p.k) ||
      !FloatsOk(w_nk, static_cast<int64_t>(p.k) * p.n) || !FloatsOk(bias, p.n) ||
      !FloatsOk(c, static_cast<int64_t>(p.m) * p.n) ||
      !EpilogueOk(p.epi, static_cast<int64_t>(p.m) * p.n, p.n)) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [=] {
    float part[kGemvLanes];
    for (int j = 0; j < p.n; ++j)
      for (int m = 0; m < p.m; ++m) {
        for (int l = 0; l < kGemvLanes; ++l) part[l] = GemvLanePartial(a, w_nk, p, m, j, l);
        c[static_cast<int64_t>(m) * p.n + j] = GemmFinish(GemvTreeSum(part), bias, p, m, j);
      }
  });
}

cudaError_t LaunchDepthwiseConv2D(const float* in, const float* w, const float* bias, float* out,
                                  const ConvParams& p, cudaStream_t stream) {
  if (!ConvParamsValid(p) || p.oc % p.ic != 0) return cudaErrorInvalidValue;
  if (!ConvRangesOk(in, w, static_cast<int64_t>(p.kh) * p.kw * p.oc, bias, out, p)) {
    return cudaErrorInvalidValue;
  }
  switch (DepthwiseVariant(p)) {
    case 3:
      return EnqueueOutputs(p, out, stream, [=](int n, int oy, int ox, int oc) {
        return DepthwiseOutput<3>(in, w, bias, p, n, oy, ox, oc);
      });
    case 5:
      return EnqueueOutputs(p, out, stream, [=](int n, int oy, int ox, int oc) {
        return DepthwiseOutput<5>(in, w, bias, p, n, oy, ox, oc);
      });
    default:
      return EnqueueOutputs(p, out, stream, [=](int n, int oy, int ox, int oc) {
        return DepthwiseOutput<0>(in, w, bias, p, n, oy, ox, oc);
      });
  }
}

cudaError_t LaunchTransposeConv(const float* in, const float* w, const float* bias, float* out,
                                const ConvParams& p, cudaStream_t stream) {
  if (!ConvParamsValid(p)) return cudaErrorInvalidValue;
  if (!ConvRangesOk(in, w, static_cast<int64_t>(p.kh) * p.kw * p.ic * p.oc, bias, out, p)) {
    return cudaErrorInvalidValue;
  }
  return EnqueueOutputs(p, out, stream, [=](int n, int oy, int ox, int oc) {
    return TransposeConvOutput(in, w, bias, p, n, oy, ox, oc);
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice
