// SLUICE_HOST_DEVICE marks per-pixel maths that is compiled twice: by the host
// compiler for the CPU path (and CI, which has no GPU) and by nvcc for the
// CUDA kernels. Keep such functions inline, branch-light and free of library
// calls that have no device version.
#ifndef SLUICE_GPU_KERNELS_HOST_DEVICE_H_
#define SLUICE_GPU_KERNELS_HOST_DEVICE_H_

#if defined(__CUDACC__)
#define SLUICE_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define SLUICE_HOST_DEVICE inline
#endif

#include <stdint.h>

namespace sluice {
namespace gpu_kernels {

SLUICE_HOST_DEVICE int ClampInt(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// A value in [0, 1] stored as a byte the way a GPU writes a normalized 8-bit
// render target: clamp, then round to nearest.
SLUICE_HOST_DEVICE uint8_t UnitToByte(float v) {
  v = v < 0.f ? 0.f : (v > 1.f ? 1.f : v);
  return static_cast<uint8_t>(v * 255.f + 0.5f);
}

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_HOST_DEVICE_H_
