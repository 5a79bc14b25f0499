// Host launchers of the cuda backend's convolution kernels (conv.cu). Plain
// C++ declarations: device pointers, POD params (conv.h) and a stream in,
// cudaError_t out (cudaErrorInvalidValue for bad params, else launch errors
// only). They allocate nothing and never synchronise, so a CUDA graph can
// capture them. testing/conv_host.cc has host versions for the fake runtime.
#ifndef SLUICE_INFERENCE_CUDA_KERNELS_CONV_LAUNCH_H_
#define SLUICE_INFERENCE_CUDA_KERNELS_CONV_LAUNCH_H_

#include <cuda_runtime_api.h>

#include "inference/cuda/kernels/conv.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {

// CONV_2D, any filter/stride/dilation/padding: `w` is [KH,KW,IC,OC].
cudaError_t LaunchConv2D(const float* in, const float* w, const float* bias, float* out,
                         const ConvParams& p, cudaStream_t stream);

// C = act(A * B + bias): A [M,K] row-major, B [K,N]; shared-memory tiles.
// 1x1 stride-1 convolutions (M = N*H*W pixels) and FULLY_CONNECTED.
cudaError_t LaunchGemm(const float* a, const float* b, const float* bias, float* c,
                       const GemmParams& p, cudaStream_t stream);

// C = act(A * W^T + bias) for p.m <= kGemvMaxRows: A [M,K], W [N,K]
// (FULLY_CONNECTED's own layout); one warp per output column.
cudaError_t LaunchGemv(const float* a, const float* w_nk, const float* bias, float* c,
                       const GemmParams& p, cudaStream_t stream);

// DEPTHWISE_CONV_2D: `w` is [KH,KW,OC]; 3x3 and 5x5 filters without
// dilation take unrolled variants.
cudaError_t LaunchDepthwiseConv2D(const float* in, const float* w, const float* bias, float* out,
                                  const ConvParams& p, cudaStream_t stream);

// Convolution2DTransposeBias: `w` is [KH,KW,IC,OC]; p.pt/p.pl are the
// leading pads of its SAME rule; dilation ignored.
cudaError_t LaunchTransposeConv(const float* in, const float* w, const float* bias, float* out,
                                const ConvParams& p, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice

#endif  // SLUICE_INFERENCE_CUDA_KERNELS_CONV_LAUNCH_H_
