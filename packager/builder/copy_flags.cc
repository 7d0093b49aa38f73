#include "packager/builder/copy_flags.h"

#include <charconv>
#include <string>

#include "fmt/format.h"

namespace trainpkg::packager::builder {
namespace {

absl::StatusOr<uint32_t> ParseId(std::string_view text, std::string_view what) {
  // The one name that needs no /etc/passwd: root is uid and gid 0 in every image.
  if (text == "root") return 0u;
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return absl::InvalidArgumentError(fmt::format(
        "--chown: {} \"{}\" is not numeric; names need the image's /etc/passwd and "
        "/etc/group, which trainpkg does not read: use UID[:GID], e.g. --chown=1000:1000",
        what, text));
  }
  return value;
}

}  // namespace

absl::StatusOr<EntryOverrides> ParseCopyFlags(std::string_view chown, std::string_view chmod) {
  EntryOverrides overrides;
  if (!chown.empty()) {
    size_t colon = chown.find(':');
    auto uid = ParseId(chown.substr(0, colon), "user");
    if (!uid.ok()) return uid.status();
    // The Dockerfile reference: a UID without a GID uses the UID as the GID.
    Owner owner{*uid, *uid};
    if (colon != std::string_view::npos) {
      auto gid = ParseId(chown.substr(colon + 1), "group");
      if (!gid.ok()) return gid.status();
      owner.gid = *gid;
    }
    overrides.owner = owner;
  }
  if (!chmod.empty()) {
    uint32_t mode = 0;
    auto [end, ec] = std::from_chars(chmod.data(), chmod.data() + chmod.size(), mode, 8);
    if (chmod.size() > 4 || ec != std::errc() || end != chmod.data() + chmod.size()) {
      return absl::InvalidArgumentError(fmt::format(
          "--chmod=\"{}\" is not an octal mode of up to 4 digits (e.g. 0755, 644)", chmod));
    }
    overrides.mode = mode;
  }
  return overrides;
}

}  // namespace trainpkg::packager::builder
