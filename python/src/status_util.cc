#include "status_util.h"

#include <string>

#include <pybind11/pybind11.h>

namespace sluice::python {

void RaiseIfError(const absl::Status& status) {
  if (status.ok()) return;
  std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kNotFound:
      throw pybind11::value_error(message);
    case absl::StatusCode::kUnimplemented:
      PyErr_SetString(PyExc_NotImplementedError, message.c_str());
      throw pybind11::error_already_set();
    default:
      throw std::runtime_error(message);
  }
}

}  // namespace sluice::python
