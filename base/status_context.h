// Context for an error on its way up: "pushing blob sha256:ab12…: " in front
// of the message of the Status a lower layer returned.
//
//   if (!written.ok()) return base::WithContext(written, fmt::format("--iidfile {}", path));
//   TP_RETURN_IF_ERROR_WITH_CONTEXT(layout.Tag(desc, tag), fmt::format("tagging {}", tag));
//   TP_ASSIGN_OR_RETURN_WITH_CONTEXT(Image image, Load(path), path.string());
//
// Writing absl::Status(s.code(), prefix + s.message()) by hand loses the
// Status' payloads, which callers read to decide what to do next (the
// transport failure kind behind http::IsTransientTransportFailure, the
// registry's Retry-After and OCI error code); this keeps them.
#ifndef TRAINPKG_BASE_STATUS_CONTEXT_H_
#define TRAINPKG_BASE_STATUS_CONTEXT_H_

#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "base/status_macros.h"

namespace trainpkg::base {

// `status` with its message replaced by "<context>: <message>"; the code and
// every payload are kept. An OK status is returned as it is.
absl::Status WithContext(const absl::Status& status, std::string_view context);

}  // namespace trainpkg::base

// TP_RETURN_IF_ERROR and TP_ASSIGN_OR_RETURN (base/status_macros.h) that
// return the error through base::WithContext. `context` (anything that
// converts to std::string_view) is evaluated only when there is an error.
#define TP_RETURN_IF_ERROR_WITH_CONTEXT(expr, context)                                 \
  do {                                                                                 \
    ::absl::Status tp_status_ = (expr);                                                \
    if (!tp_status_.ok()) return ::trainpkg::base::WithContext(tp_status_, (context)); \
  } while (0)

#define TP_ASSIGN_OR_RETURN_WITH_CONTEXT(lhs, expr, context)                                   \
  TP_ASSIGN_OR_RETURN_WITH_CONTEXT_IMPL_(TP_STATUS_CONCAT_(tp_statusor_, __LINE__), lhs, expr, \
                                         context)

#define TP_ASSIGN_OR_RETURN_WITH_CONTEXT_IMPL_(statusor, lhs, expr, context)              \
  auto statusor = (expr);                                                                 \
  if (!statusor.ok()) return ::trainpkg::base::WithContext(statusor.status(), (context)); \
  lhs = std::move(statusor).value()

#endif  // TRAINPKG_BASE_STATUS_CONTEXT_H_
