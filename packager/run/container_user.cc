#include "packager/run/container_user.h"

#include <fstream>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace trainpkg::packager::run {
namespace {

// The colon-separated records of /etc/passwd or /etc/group (absent: none).
std::vector<std::vector<std::string>> ReadRecords(const std::filesystem::path& file) {
  std::vector<std::vector<std::string>> records;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    records.push_back(absl::StrSplit(line, ':'));
  }
  return records;
}

std::optional<uint32_t> Numeric(std::string_view text) {
  uint32_t value = 0;
  if (text.empty() || !absl::SimpleAtoi(std::string(text), &value)) return std::nullopt;
  return value;
}

}  // namespace

absl::StatusOr<ContainerUser> ResolveContainerUser(const std::filesystem::path& rootfs,
                                                   std::string_view user) {
  ContainerUser out;
  if (user.empty()) return out;
  const std::string spec(user);
  const size_t colon = spec.find(':');
  const std::string user_part = spec.substr(0, colon);
  const std::optional<std::string> group_part =
      colon == std::string::npos ? std::nullopt : std::optional(spec.substr(colon + 1));
  if (user_part.empty() || (group_part.has_value() && group_part->empty())) {
    return absl::InvalidArgumentError(
        fmt::format("User \"{}\": expected user, uid, user:group or uid:gid", spec));
  }
  const auto passwd = ReadRecords(rootfs / "etc/passwd");
  const auto groups = ReadRecords(rootfs / "etc/group");
  std::string user_name;
  if (std::optional<uint32_t> uid = Numeric(user_part)) {
    out.uid = *uid;
    for (const auto& record : passwd) {
      if (record.size() >= 4 && Numeric(record[2]) == *uid) {
        user_name = record[0];
        out.gid = Numeric(record[3]).value_or(0);
        break;
      }
    }
  } else {
    bool found = false;
    for (const auto& record : passwd) {
      if (record.size() >= 4 && record[0] == user_part) {
        std::optional<uint32_t> named_uid = Numeric(record[2]);
        if (!named_uid.has_value()) break;
        out.uid = *named_uid;
        out.gid = Numeric(record[3]).value_or(0);
        user_name = user_part;
        found = true;
        break;
      }
    }
    if (!found) {
      return absl::NotFoundError(
          fmt::format("User \"{}\": no user {} in the image's /etc/passwd", spec, user_part));
    }
  }
  if (group_part.has_value()) {
    if (std::optional<uint32_t> gid = Numeric(*group_part)) {
      out.gid = *gid;
    } else {
      bool found = false;
      for (const auto& record : groups) {
        if (record.size() >= 3 && record[0] == *group_part && Numeric(record[2]).has_value()) {
          out.gid = *Numeric(record[2]);
          found = true;
          break;
        }
      }
      if (!found) {
        return absl::NotFoundError(
            fmt::format("User \"{}\": no group {} in the image's /etc/group", spec, *group_part));
      }
    }
    return out;
  }
  if (user_name.empty()) return out;
  for (const auto& record : groups) {
    if (record.size() < 4) continue;
    std::optional<uint32_t> gid = Numeric(record[2]);
    if (!gid.has_value() || *gid == out.gid) continue;
    for (absl::string_view member : absl::StrSplit(record[3], ',')) {
      if (member == user_name) out.additional_gids.push_back(*gid);
    }
  }
  return out;
}

}  // namespace trainpkg::packager::run
