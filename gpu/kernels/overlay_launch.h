// Host launcher of the annotation overlay's CUDA kernel (overlay.cu). Plain
// C++ declarations: callers compile with the host compiler and turn the
// returned cudaError_t into a Status naming the kernel (CudaStatus).
#ifndef SLUICE_GPU_KERNELS_OVERLAY_LAUNCH_H_
#define SLUICE_GPU_KERNELS_OVERLAY_LAUNCH_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "gpu/kernels/overlay.h"

namespace sluice {
namespace gpu_kernels {

// OverlayPixelU8 on every pixel: `layer` (premultiplied RGBA) over `src` into
// `dst`. Asynchronous on `stream`; the return value reports invalid
// parameters (cudaErrorInvalidValue) and launch errors only.
cudaError_t LaunchOverlayU8(const uint8_t* src, const uint8_t* layer, uint8_t* dst,
                            const OverlayParams& params, cudaStream_t stream);

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_OVERLAY_LAUNCH_H_
