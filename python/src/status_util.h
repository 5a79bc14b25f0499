// absl::Status -> Python exception, in one place.
#ifndef SLUICE_PYTHON_STATUS_UTIL_H_
#define SLUICE_PYTHON_STATUS_UTIL_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice::python {

// Throws (as a pybind11 exception) when `status` is not OK: ValueError for
// invalid arguments / out of range / not found, NotImplementedError for
// unimplemented, RuntimeError otherwise. The message is the status message
// (which names the node, stream or file involved).
void RaiseIfError(const absl::Status& status);

template <typename T>
T ValueOrRaise(absl::StatusOr<T> value) {
  RaiseIfError(value.status());
  return *std::move(value);
}

}  // namespace sluice::python

#endif  // SLUICE_PYTHON_STATUS_UTIL_H_
