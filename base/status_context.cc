#include "base/status_context.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"

namespace trainpkg::base {

absl::Status WithContext(const absl::Status& status, std::string_view context) {
  if (status.ok()) return status;
  // absl::string_view is its own type in Debian's abseil, so no StrCat here.
  std::string message(context);
  message += ": ";
  message.append(status.message().data(), status.message().size());
  absl::Status out(status.code(), message);
  status.ForEachPayload([&out](absl::string_view type_url, const absl::Cord& payload) {
    out.SetPayload(type_url, payload);
  });
  return out;
}

}  // namespace trainpkg::base
