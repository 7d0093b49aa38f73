#include "packager/run/container_user.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::packager::run {
namespace {

// Closes a descriptor on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string_view FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// The content of `rel` ("etc/passwd") in `rootfs`, resolved the way the
// container would: symlinks, absolute ones included, stay inside the root
// (openat2 RESOLVE_IN_ROOT). Only a regular file of at most
// kMaxContainerUserFileBytes is read; nullopt when it does not exist.
absl::StatusOr<std::optional<std::string>> ReadInRoot(const std::filesystem::path& rootfs,
                                                      const char* rel) {
  const std::string shown = fmt::format("the image's /{}", rel);
  Fd root{::open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
  if (root.fd < 0) return base::ErrnoToStatus(errno, fmt::format("opening {}", rootfs.string()));
  struct open_how how {};
  // O_NONBLOCK: opening a FIFO planted there must not wait for a writer.
  how.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  Fd file{static_cast<int>(::syscall(SYS_openat2, root.fd, rel, &how, sizeof(how)))};
  if (file.fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    return base::ErrnoToStatus(errno, fmt::format("opening {}", shown));
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) return base::ErrnoToStatus(errno, fmt::format("stat {}", shown));
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        fmt::format("{} is {}; it must be a regular file", shown, FileKind(st.st_mode)));
  }
  if (st.st_size > kMaxContainerUserFileBytes) {
    return absl::InvalidArgumentError(fmt::format("{} is {} bytes; at most {} are read", shown,
                                                  st.st_size, kMaxContainerUserFileBytes));
  }
  std::string content(static_cast<size_t>(st.st_size) + 1, '\0');
  size_t used = 0;
  while (used < content.size()) {
    ssize_t n = ::read(file.fd, content.data() + used, content.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::ErrnoToStatus(errno, fmt::format("reading {}", shown));
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  if (used > static_cast<size_t>(kMaxContainerUserFileBytes)) {
    return absl::InvalidArgumentError(
        fmt::format("{} grew past {} bytes while read", shown, kMaxContainerUserFileBytes));
  }
  content.resize(used);
  return content;
}

// The colon-separated records of /etc/passwd or /etc/group (absent: none).
absl::StatusOr<std::vector<std::vector<std::string>>> ReadRecords(
    const std::filesystem::path& rootfs, const char* rel) {
  TP_ASSIGN_OR_RETURN(std::optional<std::string> content, ReadInRoot(rootfs, rel));
  std::vector<std::vector<std::string>> records;
  if (!content.has_value()) return records;
  for (absl::string_view line : absl::StrSplit(*content, '\n')) {
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

absl::Status InUser(const std::string& spec, const absl::Status& status) {
  return base::WithContext(status, fmt::format("User \"{}\"", spec));
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
  absl::StatusOr<std::vector<std::vector<std::string>>> passwd = ReadRecords(rootfs, "etc/passwd");
  if (!passwd.ok()) return InUser(spec, passwd.status());
  absl::StatusOr<std::vector<std::vector<std::string>>> groups = ReadRecords(rootfs, "etc/group");
  if (!groups.ok()) return InUser(spec, groups.status());
  std::string user_name;
  if (std::optional<uint32_t> uid = Numeric(user_part)) {
    out.uid = *uid;
    for (const auto& record : *passwd) {
      if (record.size() >= 4 && Numeric(record[2]) == *uid) {
        user_name = record[0];
        out.gid = Numeric(record[3]).value_or(0);
        break;
      }
    }
  } else {
    bool found = false;
    for (const auto& record : *passwd) {
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
      for (const auto& record : *groups) {
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
  for (const auto& record : *groups) {
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
