// Per-element maths of the cuda backend's elementwise and data-movement ops
// (cuda_ops_elementwise.cc), compiled twice: by nvcc for elementwise.cu and
// by the host compiler for the fake runtime's launchers
// (testing/elementwise_host.cc). Every function mirrors the reference kernel
// of the same op (inference/reference/kernels_elementwise.cc, kernels_misc.cc)
// operation for operation, so the host build gives the reference's bits.
// Parameters are POD structs passed by value to the kernels.
#ifndef SLUICE_INFERENCE_CUDA_KERNELS_ELEMENTWISE_H_
#define SLUICE_INFERENCE_CUDA_KERNELS_ELEMENTWISE_H_

#include <math.h>
#include <stdint.h>

#include "gpu/kernels/host_device.h"

namespace sluice {
namespace inference_kernels {

// Highest rank the index-walking kernels take (as the reference kernels).
constexpr int kMaxRank = 8;

// Same order as ir::Activation.
enum ActCode : int { kActNone = 0, kActRelu = 1, kActReluN1To1 = 2, kActRelu6 = 3, kActTanh = 4 };
enum UnaryCode : int {
  kUnaryLogistic = 0,
  kUnaryRelu = 1,
  kUnaryRelu6 = 2,
  kUnaryTanh = 3,
  kUnaryHardSwish = 4,
  kUnarySquare = 5
};
enum BinaryCode : int { kBinaryAdd = 0, kBinarySub = 1, kBinaryMul = 2, kBinaryDiv = 3 };

// std::max / std::min as the reference calls them (NaN propagates the same way).
SLUICE_HOST_DEVICE float MaxF(float a, float b) { return a < b ? b : a; }
SLUICE_HOST_DEVICE float MinF(float a, float b) { return b < a ? b : a; }

SLUICE_HOST_DEVICE float Activate(float v, int act) {
  switch (act) {
    case kActRelu:
      return MaxF(v, 0.0f);
    case kActRelu6:
      return MinF(MaxF(v, 0.0f), 6.0f);
    case kActReluN1To1:
      return MinF(MaxF(v, -1.0f), 1.0f);
    case kActTanh:
      return tanhf(v);
    default:
      return v;
  }
}

SLUICE_HOST_DEVICE float UnaryF32(int kind, float v) {
  switch (kind) {
    case kUnaryLogistic:
      return 1.0f / (1.0f + expf(-v));
    case kUnaryRelu:
      return MaxF(v, 0.0f);
    case kUnaryRelu6:
      return MinF(MaxF(v, 0.0f), 6.0f);
    case kUnaryTanh:
      return tanhf(v);
    case kUnaryHardSwish:
      return v * MinF(MaxF(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    default:
      return v * v;  // kUnarySquare
  }
}

SLUICE_HOST_DEVICE float BinaryF32(int op, float x, float y) {
  switch (op) {
    case kBinaryAdd:
      return x + y;
    case kBinarySub:
      return x - y;
    case kBinaryMul:
      return x * y;
    default:
      return x / y;
  }
}

SLUICE_HOST_DEVICE int32_t BinaryI32(int op, int32_t x, int32_t y) {
  switch (op) {
    case kBinaryAdd:
      return x + y;
    case kBinarySub:
      return x - y;
    case kBinaryMul:
      return x * y;
    default:
      return y == 0 ? 0 : x / y;  // the reference's integer DIV by zero
  }
}

// numpy broadcasting: element i of the output reads a[oa], b[ob], with stride 0
// on broadcast dimensions. rank 0 = all three have the same shape (oa = ob = i).
struct BroadcastParams {
  int rank;
  int out_dims[kMaxRank];
  long long a_strides[kMaxRank];
  long long b_strides[kMaxRank];
};

SLUICE_HOST_DEVICE void BroadcastOffsets(const BroadcastParams& p, long long i, long long* oa,
                                         long long* ob) {
  if (p.rank == 0) {
    *oa = *ob = i;
    return;
  }
  long long a = 0, b = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const long long idx = i % p.out_dims[d];
    i /= p.out_dims[d];
    a += idx * p.a_strides[d];
    b += idx * p.b_strides[d];
  }
  *oa = a;
  *ob = b;
}

// Data movement as one index map: output element idx (over `dims`) is written
// at sum(idx[d] * out_strides[d]) and read from input coordinate
// in_start[d] + idx[d] * in_step[d] (offset sum(coord * in_strides[d])); a
// coordinate outside [0, in_dims[d]) reads zero (PAD). Covers PAD,
// STRIDED_SLICE, DEPTH_TO_SPACE (a rank-6 permutation), one CONCATENATION input
// (out_strides of the whole output) and copies.
struct GatherParams {
  int rank;
  int dims[kMaxRank];
  long long out_strides[kMaxRank];
  long long in_strides[kMaxRank];
  int in_start[kMaxRank];
  int in_step[kMaxRank];
  int in_dims[kMaxRank];
};

// False when the element reads outside the input (write zero).
SLUICE_HOST_DEVICE bool GatherOffsets(const GatherParams& p, long long i, long long* out_off,
                                      long long* in_off) {
  long long o = 0, s = 0;
  bool inside = true;
  for (int d = p.rank - 1; d >= 0; --d) {
    const long long idx = i % p.dims[d];
    i /= p.dims[d];
    o += idx * p.out_strides[d];
    const long long c = p.in_start[d] + idx * p.in_step[d];
    inside = inside && c >= 0 && c < p.in_dims[d];
    s += c * p.in_strides[d];
  }
  *out_off = o;
  *in_off = s;
  return inside;
}

SLUICE_HOST_DEVICE long long NumElementsOf(int rank, const int* dims) {
  long long n = 1;
  for (int d = 0; d < rank; ++d) n *= dims[d];
  return n;
}

// MEAN: output element o sums the reduced sub-block starting at its input
// offset, in input order (as the reference accumulates), then divides.
struct MeanParams {
  int kept_rank;
  int kept_dims[kMaxRank];
  long long kept_strides[kMaxRank];  // input strides of the kept dimensions
  int red_rank;
  int red_dims[kMaxRank];
  long long red_strides[kMaxRank];  // input strides of the reduced dimensions
  long long count;                  // elements per mean
};

// Input offset of output element o's first reduced element.
SLUICE_HOST_DEVICE long long MeanBase(const MeanParams& p, long long o) {
  long long base = 0;
  for (int d = p.kept_rank - 1; d >= 0; --d) {
    const long long idx = o % p.kept_dims[d];
    o /= p.kept_dims[d];
    base += idx * p.kept_strides[d];
  }
  return base;
}

// Reduced elements r = first, first + step, ... of the mean at `base`, in order.
SLUICE_HOST_DEVICE float MeanSum(const float* in, const MeanParams& p, long long base,
                                 long long first, long long step) {
  float sum = 0.0f;
  for (long long r = first; r < p.count; r += step) {
    long long k = r, off = base;
    for (int d = p.red_rank - 1; d >= 0; --d) {
      off += (k % p.red_dims[d]) * p.red_strides[d];
      k /= p.red_dims[d];
    }
    sum += in[off];
  }
  return sum;
}

SLUICE_HOST_DEVICE float MeanElement(const float* in, const MeanParams& p, long long o) {
  const float sum = MeanSum(in, p, MeanBase(p, o), 0, 1);
  return p.count > 0 ? sum / static_cast<float>(p.count) : sum;
}

// Long means (the spatial means of selfie landscape's squeeze-excite blocks,
// 144x256 pixels: one thread per output took 4 ms) take a block per output:
// thread t sums every kMeanThreads-th element from t (MeanSum), then a tree
// adds the partials (t + 128, + 64, ... + 1; MeanTreeSum is that tree on an
// array, the kernel does it in shared memory in the same order). Float
// rounding differs from MeanElement's single chain.
constexpr int kMeanThreads = 256;

SLUICE_HOST_DEVICE bool MeanUsesBlocks(const MeanParams& p) { return p.count >= 4 * kMeanThreads; }

SLUICE_HOST_DEVICE float MeanTreeSum(float* part) {
  for (int s = kMeanThreads / 2; s > 0; s /= 2)
    for (int t = 0; t < s; ++t) part[t] += part[t + s];
  return part[0];
}

// RESIZE_BILINEAR: source taps per output row / column, computed once on the
// host by the reference's formula (cuda_ops_elementwise.cc) and uploaded.
struct ResizeTap {
  int lo, hi;
  float frac;
};
struct ResizeParams {
  int n, ih, iw, ch, oh, ow;
};

SLUICE_HOST_DEVICE float ResizeBilinearElement(const float* in, const ResizeParams& p,
                                               const ResizeTap* ty, const ResizeTap* tx,
                                               long long i) {
  const int k = static_cast<int>(i % p.ch);
  i /= p.ch;
  const int xx = static_cast<int>(i % p.ow);
  i /= p.ow;
  const int yy = static_cast<int>(i % p.oh);
  const long long b = i / p.oh;
  const ResizeTap a = ty[yy], e = tx[xx];
  const float* base = in + b * p.ih * p.iw * p.ch;
  const float v00 = base[(static_cast<long long>(a.lo) * p.iw + e.lo) * p.ch + k];
  const float v10 = base[(static_cast<long long>(a.hi) * p.iw + e.lo) * p.ch + k];
  const float v01 = base[(static_cast<long long>(a.lo) * p.iw + e.hi) * p.ch + k];
  const float v11 = base[(static_cast<long long>(a.hi) * p.iw + e.hi) * p.ch + k];
  return v00 * (1 - a.frac) * (1 - e.frac) + v10 * a.frac * (1 - e.frac) +
         v01 * (1 - a.frac) * e.frac + v11 * a.frac * e.frac;
}

// SOFTMAX of one row of `depth` values, the reference's three passes.
SLUICE_HOST_DEVICE void SoftmaxRow(const float* ip, float* op, int depth, float beta) {
  float mx = ip[0];
  for (int i = 1; i < depth; ++i) mx = MaxF(mx, ip[i]);
  float sum = 0.0f;
  for (int i = 0; i < depth; ++i) sum += (op[i] = expf((ip[i] - mx) * beta));
  for (int i = 0; i < depth; ++i) op[i] /= sum;
}

}  // namespace inference_kernels
}  // namespace sluice

#endif  // SLUICE_INFERENCE_CUDA_KERNELS_ELEMENTWISE_H_
