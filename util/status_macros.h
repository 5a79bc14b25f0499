// Status plumbing used at every boundary: absl::Status / absl::StatusOr plus two
// macros. Nothing a user, a config or a model file can cause may abort the process.
#ifndef SLUICE_UTIL_STATUS_MACROS_H_
#define SLUICE_UTIL_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define SLUICE_STATUS_CONCAT_INNER_(a, b) a##b
#define SLUICE_STATUS_CONCAT_(a, b) SLUICE_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define RETURN_IF_ERROR(expr)                       \
  do {                                              \
    ::absl::Status sluice_status_ = (expr);         \
    if (!sluice_status_.ok()) return sluice_status_; \
  } while (0)

// ASSIGN_OR_RETURN(lhs, expr): evaluates a StatusOr; on error returns the status,
// else moves the value into `lhs` (which may be a declaration).
#define ASSIGN_OR_RETURN(lhs, expr) \
  SLUICE_ASSIGN_OR_RETURN_IMPL_(SLUICE_STATUS_CONCAT_(sluice_statusor_, __LINE__), lhs, expr)

#define SLUICE_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return statusor.status();            \
  lhs = std::move(statusor).value()

// Returns an InvalidArgument/Internal status when `cond` is false.
#define RET_CHECK(cond)                                                        \
  do {                                                                         \
    if (!(cond))                                                               \
      return ::absl::InternalError(std::string(__FILE__ ":") +                 \
                                   std::to_string(__LINE__) + " check failed: " #cond); \
  } while (0)

#endif  // SLUICE_UTIL_STATUS_MACROS_H_
