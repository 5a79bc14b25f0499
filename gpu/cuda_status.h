// CUDA runtime errors as absl::Status, so every launcher and service call
// reports "what: cudaErrorName: description" instead of aborting.
#ifndef SLUICE_GPU_CUDA_STATUS_H_
#define SLUICE_GPU_CUDA_STATUS_H_

#include <cuda_runtime_api.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace sluice {

inline absl::Status CudaStatus(cudaError_t err, absl::string_view what) {
  if (err == cudaSuccess) return absl::OkStatus();
  // Out of memory is a resource problem a caller may handle; the rest are internal.
  const std::string msg =
      absl::StrCat(what, ": ", cudaGetErrorName(err), ": ", cudaGetErrorString(err));
  return err == cudaErrorMemoryAllocation ? absl::ResourceExhaustedError(msg)
                                          : absl::InternalError(msg);
}

}  // namespace sluice

#define SLUICE_CUDA_RETURN_IF_ERROR(expr, what)                  \
  do {                                                           \
    ::absl::Status sluice_cuda_status_ = ::sluice::CudaStatus((expr), (what)); \
    if (!sluice_cuda_status_.ok()) return sluice_cuda_status_;   \
  } while (0)

#endif  // SLUICE_GPU_CUDA_STATUS_H_
