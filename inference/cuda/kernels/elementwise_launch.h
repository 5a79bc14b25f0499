// Host launchers of the elementwise / data-movement kernels (elementwise.cu;
// testing/elementwise_host.cc is their fake-runtime twin). Plain C++: the
// backend compiles with the host compiler. Each launch is asynchronous on
// `stream`, allocates nothing and returns the launch error only. Pointers are
// device addresses; `*_elems` give each buffer's size in elements (the fake
// runtime checks them; n == 0 launches nothing).
#ifndef SLUICE_INFERENCE_CUDA_KERNELS_ELEMENTWISE_LAUNCH_H_
#define SLUICE_INFERENCE_CUDA_KERNELS_ELEMENTWISE_LAUNCH_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "inference/cuda/kernels/elementwise.h"

namespace sluice {
namespace inference_kernels {

// out[i] = UnaryF32(kind, in[i]).
cudaError_t LaunchUnaryF32(const float* in, float* out, long long n, int kind,
                           cudaStream_t stream);
// out[i] = in[i] * in[i] on int32.
cudaError_t LaunchSquareI32(const int32_t* in, int32_t* out, long long n, cudaStream_t stream);
// data[i] = Activate(data[i], act), in place.
cudaError_t LaunchActivationF32(float* data, long long n, int act, cudaStream_t stream);

// out[i] = Activate(BinaryF32(op, a[oa], b[ob]), act) over `n` outputs.
cudaError_t LaunchBinaryF32(const float* a, long long a_elems, const float* b, long long b_elems,
                            float* out, long long n, const BroadcastParams& p, int op, int act,
                            cudaStream_t stream);
cudaError_t LaunchBinaryI32(const int32_t* a, long long a_elems, const int32_t* b,
                            long long b_elems, int32_t* out, long long n,
                            const BroadcastParams& p, int op, cudaStream_t stream);
// PRELU: out = x >= 0 ? x : alpha * x, alpha broadcast (b side of `p`).
cudaError_t LaunchPreluF32(const float* x, const float* alpha, long long alpha_elems, float* out,
                           long long n, const BroadcastParams& p, cudaStream_t stream);

// One row of `depth` per thread.
cudaError_t LaunchSoftmaxF32(const float* in, float* out, long long rows, int depth, float beta,
                             cudaStream_t stream);

// GatherParams over elements of `elem_size` bytes (1, 2, 4 or 8).
cudaError_t LaunchGather(const void* in, long long in_elems, void* out, long long out_elems,
                         const GatherParams& p, int elem_size, cudaStream_t stream);

cudaError_t LaunchMeanF32(const float* in, long long in_elems, float* out, long long out_elems,
                          const MeanParams& p, cudaStream_t stream);

// `ty` has p.oh taps, `tx` p.ow (device memory).
cudaError_t LaunchResizeBilinearF32(const float* in, float* out, const ResizeParams& p,
                                    const ResizeTap* ty, const ResizeTap* tx,
                                    cudaStream_t stream);

}  // namespace inference_kernels
}  // namespace sluice

#endif  // SLUICE_INFERENCE_CUDA_KERNELS_ELEMENTWISE_LAUNCH_H_
