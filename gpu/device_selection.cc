#include "gpu/device_selection.h"

#include "absl/strings/str_cat.h"

#if SLUICE_HAVE_GPU
#include "gpu/gpu_service.h"
#endif

namespace sluice {

absl::StatusOr<DeviceChoice> ResolveComputeDevice(absl::string_view requested,
                                                  const absl::StatusOr<int>& cuda_probe) {
  DeviceChoice choice;
  if (requested == "cpu") return choice;
  if (requested != "cuda" && requested != "auto") {
    return absl::InvalidArgumentError(
        absl::StrCat("device must be cpu, cuda or auto, got \"", requested, "\""));
  }
  if (cuda_probe.ok() && *cuda_probe > 0) {
    choice.device = ComputeDevice::kCuda;
    return choice;
  }
  const std::string why = cuda_probe.ok() ? std::string("no CUDA device: none found")
                                          : std::string(cuda_probe.status().message());
  if (requested == "cuda") {
    return absl::FailedPreconditionError(
        absl::StrCat("device cuda: ", why, "; use --device cpu or auto"));
  }
  choice.notice = absl::StrCat("device auto: ", why, "; running on the CPU");
  return choice;
}

absl::StatusOr<int> ProbeCuda() {
#if SLUICE_HAVE_GPU
  return CudaDeviceCount();
#else
  return absl::FailedPreconditionError(
      "no CUDA device: this build has no CUDA (configure with the CUDA toolkit, "
      "-DSLUICE_CUDA=ON)");
#endif
}

absl::StatusOr<DeviceChoice> SelectComputeDevice(absl::string_view requested) {
  return ResolveComputeDevice(requested, ProbeCuda());
}

}  // namespace sluice
