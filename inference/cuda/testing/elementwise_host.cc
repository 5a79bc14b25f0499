// Host stand-ins for the launchers of kernels/elementwise.cu, for the fake CUDA
// runtime: the same per-element maths, queued on the stream like a kernel (so
// it runs only after the stream's earlier work), with every device range
// checked at launch.
#include <cstddef>

#include "gpu/testing/fake_cuda_runtime.h"
#include "inference/cuda/kernels/elementwise_launch.h"

namespace sluice {
namespace inference_kernels {
namespace {

bool Ok(const void* p, long long elems, size_t elem_size) {
  return fake_cuda::CheckDeviceRange(p, static_cast<size_t>(elems) * elem_size);
}

}  // namespace

cudaError_t LaunchUnaryF32(const float* in, float* out, long long n, int kind,
                           cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (!Ok(in, n, 4) || !Ok(out, n, 4)) return cudaErrorInvalidValue;
  return fake_cuda::Enqueue(stream, [=] {
    for (long long i = 0; i < n; ++i) out[i] = UnaryF32(kind, in[i]);
  });
}

cudaError_t LaunchSquareI32(const int32_t* in, int32_t* out, long long n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (!Ok(in, n, 4) || !Ok(out, n, 4)) return cudaErrorInvalidValue;
  return fake_cuda::Enqueue(stream, [=] {
    for (long long i = 0; i < n; ++i) out[i] = in[i] * in[i];
  });
}

cudaError_t LaunchActivationF32(float* data, long long n, int act, cudaStream_t stream) {
  if (n <= 0 || act == kActNone) return cudaSuccess;
  if (!Ok(data, n, 4)) return cudaErrorInvalidValue;
  return fake_cuda::Enqueue(stream, [=] {
    for (long long i = 0; i < n; ++i) data[i] = Activate(data[i], act);
  });
}

cudaError_t LaunchBinaryF32(const float* a, long long a_elems, const float* b, long long b_elems,
                            float* out, long long n, const BroadcastParams& p, int op, int act,
                            cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (!Ok(a, a_elems, 4) || !Ok(b, b_elems, 4) || !Ok(out, n, 4)) return cudaErrorInvalidValue;
  return fake_cuda::Enqueue(stream, [=] {
    for (long long i = 0; i < n; ++i) {
      long long oa, ob;
      BroadcastOffsets(p, i, &oa, &ob);
      out[i] = Activate(BinaryF32(op, a[oa], b[ob]), act);
    }
  });
}

cudaError_t LaunchBinaryI32(const int32_t* a, long long a_elems, const int32_t* b,
                            long long b_elems, int32_t* out, long long n,
                            const BroadcastParams& p, int op, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (!Ok(a, a_elems, 4) || !Ok(b, b_elems, 4) || !Ok(out, n, 4)) return cudaErrorInvalidValue;
  return fake_cuda::Enqueue(stream, [=] {
    for (long long i = 0; i < n; ++i) {
      long long oa, ob;
      BroadcastOffsets(p, i, &oa, &ob);
      out[i] = BinaryI32(op, a[oa], b[ob]);
    }
  });
}

cudaError_t LaunchPreluF32(const float* x, const float* alpha, long long alpha_elems, float* out,
                           long long n, const BroadcastParams& p, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (!Ok(x, n, 4) || !Ok(alpha, alpha_elems, 4) || !Ok(out, n, 4)) return cudaErrorInvalidValue;
  return fake_cuda::Enqueue(stream, [=] {
    for (long long i = 0; i < n; ++i) {
      long long ox, oa;
      BroadcastOffsets(p, i, &ox, &oa);
      const float v = x[ox];
      out[i] = v >= 0.0f ? v : alpha[oa] * v;
    }
  });
}

cudaError_t LaunchSoftmaxF32(const float* in, float* out, long long rows, int depth, float beta,
                             cudaStream_t stream) {
  if (rows <= 0 || depth <= 0) return cudaSuccess;
  if (!Ok(in, rows * depth, 4) || !Ok(out, rows * depth, 4)) return cudaErrorInvalidValue;
  return fake_cuda::Enqueue(stream, [=] {
    for (long long r = 0; r < rows; ++r) SoftmaxRow(in + r * depth, out + r * depth, depth, beta);
  });
}

namespace {

template <typename T>
void GatherLoop(const void* in_v, void* out_v, long long n, const GatherParams& p) {
  const T* in = static_cast<const T*>(in_v);
  T* out = static_cast<T*>(out_v);
  for (long long i = 0; i < n; ++i) {
    long long o, s;
    const bool inside = GatherOffsets(p, i, &o, &s);
    out[o] = inside ? in[s] : T(0);
  }
}

}  // namespace

cudaError_t LaunchGather(const void* in, long long in_elems, void* out, long long out_elems,
                         const GatherParams& p, int elem_size, cudaStream_t stream) {
  const long long n = NumElementsOf(p.rank, p.dims);
  if (n <= 0) return cudaSuccess;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) {
    return cudaErrorInvalidValue;
  }
  if (!Ok(out, out_elems, elem_size) || (in_elems > 0 && !Ok(in, in_elems, elem_size))) {
    return cudaErrorInvalidValue;
  }
  // Every offset the map produces must lie inside the stated buffers.
  long long max_out = 0, max_in = 0;
  for (int d = 0; d < p.rank; ++d) {
    max_out += (p.dims[d] - 1) * p.out_strides[d];
    max_in += (p.in_dims[d] - 1) * p.in_strides[d];
  }
  if (max_out >= out_elems || (in_elems > 0 && max_in >= in_elems)) {
    fake_cuda::CheckDeviceRange(nullptr, 1);  // counts the violation
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [=] {
    switch (elem_size) {
      case 1:
        GatherLoop<uint8_t>(in, out, n, p);
        break;
      case 2:
        GatherLoop<uint16_t>(in, out, n, p);
        break;
      case 4:
        GatherLoop<uint32_t>(in, out, n, p);
        break;
      default:
        GatherLoop<uint64_t>(in, out, n, p);
        break;
    }
  });
}

cudaError_t LaunchMeanF32(const float* in, long long in_elems, float* out, long long out_elems,
                          const MeanParams& p, cudaStream_t stream) {
  if (out_elems <= 0) return cudaSuccess;
  if ((in_elems > 0 && !Ok(in, in_elems, 4)) || !Ok(out, out_elems, 4)) {
    return cudaErrorInvalidValue;
  }
  if (MeanUsesBlocks(p) && out_elems <= 0x7fffffffLL) {
    return fake_cuda::Enqueue(stream, [=] {  // the block kernel's order (elementwise.h)
      float part[kMeanThreads];
      for (long long o = 0; o < out_elems; ++o) {
        for (int t = 0; t < kMeanThreads; ++t) part[t] = MeanSum(in, p, MeanBase(p, o), t, kMeanThreads);
        out[o] = MeanTreeSum(part) / static_cast<float>(p.count);
      }
    });
  }
  return fake_cuda::Enqueue(stream, [=] {
    for (long long o = 0; o < out_elems; ++o) out[o] = MeanElement(in, p, o);
  });
}

cudaError_t LaunchResizeBilinearF32(const float* in, float* out, const ResizeParams& p,
                                    const ResizeTap* ty, const ResizeTap* tx,
                                    cudaStream_t stream) {
  const long long n = static_cast<long long>(p.n) * p.oh * p.ow * p.ch;
  if (n <= 0) return cudaSuccess;
  const long long in_elems = static_cast<long long>(p.n) * p.ih * p.iw * p.ch;
  if (!Ok(in, in_elems, 4) || !Ok(out, n, 4) || !Ok(ty, p.oh, sizeof(ResizeTap)) ||
      !Ok(tx, p.ow, sizeof(ResizeTap))) {
    return cudaErrorInvalidValue;
  }
  return fake_cuda::Enqueue(stream, [=] {
    for (long long i = 0; i < n; ++i) out[i] = ResizeBilinearElement(in, p, ty, tx, i);
  });
}

}  // namespace inference_kernels
}  // namespace sluice
