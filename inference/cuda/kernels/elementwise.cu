// CUDA kernels of the cuda backend's elementwise and data-movement ops: one
// thread per output element (grid-stride), the maths from elementwise.h.
#include "inference/cuda/kernels/elementwise_launch.h"

namespace sluice {
namespace inference_kernels {
namespace {

constexpr int kThreads = 256;
constexpr long long kMaxBlocks = 1 << 20;  // grid-stride beyond this

unsigned BlocksFor(long long n) {
  const long long b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < kMaxBlocks ? b : kMaxBlocks);
}

#define SLUICE_FOR_EACH(i, n)                                                        \
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; \
       i < (n); i += static_cast<long long>(gridDim.x) * blockDim.x)

__global__ void UnaryF32Kernel(const float* __restrict__ in, float* __restrict__ out, long long n,
                               int kind) {
  SLUICE_FOR_EACH(i, n) out[i] = UnaryF32(kind, in[i]);
}

__global__ void SquareI32Kernel(const int32_t* __restrict__ in, int32_t* __restrict__ out,
                                long long n) {
  SLUICE_FOR_EACH(i, n) out[i] = in[i] * in[i];
}

__global__ void ActivationF32Kernel(float* data, long long n, int act) {
  SLUICE_FOR_EACH(i, n) data[i] = Activate(data[i], act);
}

__global__ void BinaryF32Kernel(const float* __restrict__ a, const float* __restrict__ b,
                                float* __restrict__ out, long long n, BroadcastParams p, int op,
                                int act) {
  SLUICE_FOR_EACH(i, n) {
    long long oa, ob;
    BroadcastOffsets(p, i, &oa, &ob);
    out[i] = Activate(BinaryF32(op, a[oa], b[ob]), act);
  }
}

__global__ void BinaryI32Kernel(const int32_t* __restrict__ a, const int32_t* __restrict__ b,
                                int32_t* __restrict__ out, long long n, BroadcastParams p,
                                int op) {
  SLUICE_FOR_EACH(i, n) {
    long long oa, ob;
    BroadcastOffsets(p, i, &oa, &ob);
    out[i] = BinaryI32(op, a[oa], b[ob]);
  }
}

__global__ void PreluF32Kernel(const float* __restrict__ x, const float* __restrict__ alpha,
                               float* __restrict__ out, long long n, BroadcastParams p) {
  SLUICE_FOR_EACH(i, n) {
    long long ox, oa;
    BroadcastOffsets(p, i, &ox, &oa);
    const float v = x[ox];
    out[i] = v >= 0.0f ? v : alpha[oa] * v;
  }
}

__global__ void SoftmaxF32Kernel(const float* __restrict__ in, float* __restrict__ out,
                                 long long rows, int depth, float beta) {
  SLUICE_FOR_EACH(r, rows) SoftmaxRow(in + r * depth, out + r * depth, depth, beta);
}

template <typename T>
__global__ void GatherKernel(const T* __restrict__ in, T* __restrict__ out, long long n,
                             GatherParams p) {
  SLUICE_FOR_EACH(i, n) {
    long long o, s;
    const bool inside = GatherOffsets(p, i, &o, &s);
    out[o] = inside ? in[s] : T(0);
  }
}

__global__ void MeanF32Kernel(const float* __restrict__ in, float* __restrict__ out, long long n,
                              MeanParams p) {
  SLUICE_FOR_EACH(o, n) out[o] = MeanElement(in, p, o);
}

// One block of kMeanThreads per output element (MeanUsesBlocks).
__global__ void __launch_bounds__(kMeanThreads) MeanBlockF32Kernel(const float* __restrict__ in,
                                                                   float* __restrict__ out,
                                                                   MeanParams p) {
  __shared__ float part[kMeanThreads];
  const long long o = blockIdx.x;
  const int t = threadIdx.x;
  part[t] = MeanSum(in, p, MeanBase(p, o), t, kMeanThreads);
  __syncthreads();
  for (int s = kMeanThreads / 2; s > 0; s /= 2) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) out[o] = part[0] / static_cast<float>(p.count);
}

__global__ void ResizeBilinearF32Kernel(const float* __restrict__ in, float* __restrict__ out,
                                        long long n, ResizeParams p,
                                        const ResizeTap* __restrict__ ty,
                                        const ResizeTap* __restrict__ tx) {
  SLUICE_FOR_EACH(i, n) out[i] = ResizeBilinearElement(in, p, ty, tx, i);
}

#undef SLUICE_FOR_EACH

}  // namespace

cudaError_t LaunchUnaryF32(const float* in, float* out, long long n, int kind,
                           cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  UnaryF32Kernel<<<BlocksFor(n), kThreads, 0, stream>>>(in, out, n, kind);
  return cudaGetLastError();
}

cudaError_t LaunchSquareI32(const int32_t* in, int32_t* out, long long n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  SquareI32Kernel<<<BlocksFor(n), kThreads, 0, stream>>>(in, out, n);
  return cudaGetLastError();
}

cudaError_t LaunchActivationF32(float* data, long long n, int act, cudaStream_t stream) {
  if (n <= 0 || act == kActNone) return cudaSuccess;
  ActivationF32Kernel<<<BlocksFor(n), kThreads, 0, stream>>>(data, n, act);
  return cudaGetLastError();
}

cudaError_t LaunchBinaryF32(const float* a, long long, const float* b, long long, float* out,
                            long long n, const BroadcastParams& p, int op, int act,
                            cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  BinaryF32Kernel<<<BlocksFor(n), kThreads, 0, stream>>>(a, b, out, n, p, op, act);
  return cudaGetLastError();
}

cudaError_t LaunchBinaryI32(const int32_t* a, long long, const int32_t* b, long long,
                            int32_t* out, long long n, const BroadcastParams& p, int op,
                            cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  BinaryI32Kernel<<<BlocksFor(n), kThreads, 0, stream>>>(a, b, out, n, p, op);
  return cudaGetLastError();
}

cudaError_t LaunchPreluF32(const float* x, const float* alpha, long long, float* out, long long n,
                           const BroadcastParams& p, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  PreluF32Kernel<<<BlocksFor(n), kThreads, 0, stream>>>(x, alpha, out, n, p);
  return cudaGetLastError();
}

cudaError_t LaunchSoftmaxF32(const float* in, float* out, long long rows, int depth, float beta,
                             cudaStream_t stream) {
  if (rows <= 0 || depth <= 0) return cudaSuccess;
  SoftmaxF32Kernel<<<BlocksFor(rows), kThreads, 0, stream>>>(in, out, rows, depth, beta);
  return cudaGetLastError();
}

cudaError_t LaunchGather(const void* in, long long, void* out, long long, const GatherParams& p,
                         int elem_size, cudaStream_t stream) {
  const long long n = NumElementsOf(p.rank, p.dims);
  if (n <= 0) return cudaSuccess;
  switch (elem_size) {
    case 1:
      GatherKernel<uint8_t><<<BlocksFor(n), kThreads, 0, stream>>>(
          static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), n, p);
      break;
    case 2:
      GatherKernel<uint16_t><<<BlocksFor(n), kThreads, 0, stream>>>(
          static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out), n, p);
      break;
    case 4:
      GatherKernel<uint32_t><<<BlocksFor(n), kThreads, 0, stream>>>(
          static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out), n, p);
      break;
    case 8:
      GatherKernel<uint64_t><<<BlocksFor(n), kThreads, 0, stream>>>(
          static_cast<const uint64_t*>(in), static_cast<uint64_t*>(out), n, p);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchMeanF32(const float* in, long long, float* out, long long out_elems,
                          const MeanParams& p, cudaStream_t stream) {
  if (out_elems <= 0) return cudaSuccess;
  if (MeanUsesBlocks(p) && out_elems <= 0x7fffffffLL) {
    MeanBlockF32Kernel<<<static_cast<unsigned>(out_elems), kMeanThreads, 0, stream>>>(in, out, p);
    return cudaGetLastError();
  }
  MeanF32Kernel<<<BlocksFor(out_elems), kThreads, 0, stream>>>(in, out, out_elems, p);
  return cudaGetLastError();
}

cudaError_t LaunchResizeBilinearF32(const float* in, float* out, const ResizeParams& p,
                                    const ResizeTap* ty, const ResizeTap* tx,
                                    cudaStream_t stream) {
  const long long n = static_cast<long long>(p.n) * p.oh * p.ow * p.ch;
  if (n <= 0) return cudaSuccess;
  ResizeBilinearF32Kernel<<<BlocksFor(n), kThreads, 0, stream>>>(in, out, n, p, ty, tx);
  return cudaGetLastError();
}

}  // namespace inference_kernels
}  // namespace sluice
