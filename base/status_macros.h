// Early-return helpers for absl::Status / absl::StatusOr.
//
//   TP_RETURN_IF_ERROR(DoThing());
//   TP_ASSIGN_OR_RETURN(auto value, ComputeValue());
#ifndef TRAINPKG_BASE_STATUS_MACROS_H_
#define TRAINPKG_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TP_RETURN_IF_ERROR(expr)                        \
  do {                                                  \
    ::absl::Status tp_status_ = (expr);                 \
    if (!tp_status_.ok()) return tp_status_;            \
  } while (0)

#define TP_STATUS_CONCAT_INNER_(a, b) a##b
#define TP_STATUS_CONCAT_(a, b) TP_STATUS_CONCAT_INNER_(a, b)

#define TP_ASSIGN_OR_RETURN(lhs, expr) \
  TP_ASSIGN_OR_RETURN_IMPL_(TP_STATUS_CONCAT_(tp_statusor_, __LINE__), lhs, expr)

#define TP_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                              \
  if (!statusor.ok()) return statusor.status();        \
  lhs = std::move(statusor).value()

#endif  // TRAINPKG_BASE_STATUS_MACROS_H_
