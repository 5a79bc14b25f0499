// Which compute device a run uses, from the user's "cpu" | "cuda" | "auto"
// (the --device flag and the solutions' `device` option). CUDA-free: every
// build has it; only the probe differs (a build without CUDA reports so).
//   cuda -> CUDA, or an error saying why not ("no CUDA device: ...");
//   auto -> CUDA when usable, else the CPU with a one-line notice;
//   cpu  -> the CPU.
#ifndef SLUICE_GPU_DEVICE_SELECTION_H_
#define SLUICE_GPU_DEVICE_SELECTION_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice {

enum class ComputeDevice { kCpu, kCuda };

struct DeviceChoice {
  ComputeDevice device = ComputeDevice::kCpu;
  // Non-empty when "auto" fell back to the CPU: one line for the user.
  std::string notice;
};

// The decision alone, given the probe's answer (a device count, or why CUDA
// cannot be used); testable without a GPU.
absl::StatusOr<DeviceChoice> ResolveComputeDevice(absl::string_view requested,
                                                  const absl::StatusOr<int>& cuda_probe);

// The CUDA probe of this build: CudaDeviceCount() with CUDA, else
// FailedPrecondition "this build has no CUDA ...".
absl::StatusOr<int> ProbeCuda();

// ResolveComputeDevice(requested, ProbeCuda()).
absl::StatusOr<DeviceChoice> SelectComputeDevice(absl::string_view requested);

}  // namespace sluice

#endif  // SLUICE_GPU_DEVICE_SELECTION_H_
