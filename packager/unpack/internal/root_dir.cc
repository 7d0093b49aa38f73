#include "packager/unpack/internal/root_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::packager::unpack::internal {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

}  // namespace

absl::StatusOr<Components> SplitEntryPath(std::string_view name) {
  if (!name.empty() && name.front() == '/') {
    return absl::InvalidArgumentError("absolute path; layer entries must be relative to the root");
  }
  Components out;
  for (absl::string_view part : absl::StrSplit(std::string(name), '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      return absl::InvalidArgumentError(
          "path has a \"..\" component; layer entries must stay inside the root");
    }
    out.emplace_back(part);
  }
  return out;
}

std::string JoinComponents(std::span<const std::string> components) {
  if (components.empty()) return ".";
  return absl::StrJoin(components.begin(), components.end(), "/");
}

absl::StatusOr<RootDir> RootDir::Open(const std::filesystem::path& root) {
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("opening {}", root.string()));
  return RootDir(base::UniqueFd(fd));
}

absl::StatusOr<base::UniqueFd> RootDir::OpenDir(std::span<const std::string> dir, bool create) const {
  base::UniqueFd current(::dup(fd_.get()));
  if (!current.valid()) return base::ErrnoToStatus(errno, "dup");
  for (size_t i = 0; i < dir.size(); ++i) {
    const std::string& name = dir[i];
    // One component at a time with O_NOFOLLOW: a symlink that an earlier entry
    // or layer placed on the path is refused, never followed, so no entry can
    // be written outside the root through one.
    int fd = ::openat(current.get(), name.c_str(), kDirFlags);
    if (fd < 0 && errno == ENOENT && create) {
      if (::mkdirat(current.get(), name.c_str(), 0755) != 0 && errno != EEXIST) {
        return base::ErrnoToStatus(errno,
                                   fmt::format("creating {}", JoinComponents(dir.first(i + 1))));
      }
      fd = ::openat(current.get(), name.c_str(), kDirFlags);
    }
    if (fd < 0) {
      const std::string where = JoinComponents(dir.first(i + 1));
      if (errno == ELOOP || errno == ENOTDIR) {
        return absl::FailedPreconditionError(fmt::format(
            "{} is a symlink or not a directory; entries are never written through links", where));
      }
      return base::ErrnoToStatus(errno, fmt::format("opening {}", where));
    }
    current = base::UniqueFd(fd);
  }
  return current;
}

absl::StatusOr<std::optional<struct stat>> RootDir::Lstat(int dir_fd, const std::string& name) {
  struct stat st;
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return std::nullopt;
    return base::ErrnoToStatus(errno, fmt::format("lstat {}", name));
  }
  return st;
}

absl::StatusOr<std::vector<std::string>> RootDir::ListChildren(int dir_fd) {
  int fd = ::openat(dir_fd, ".", kDirFlags);
  if (fd < 0) return base::ErrnoToStatus(errno, "opening a directory");
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    ::close(fd);
    return base::ErrnoToStatus(errno, "fdopendir");
  }
  std::vector<std::string> names;
  while (struct dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  return names;
}

absl::Status RootDir::RemoveAll(int dir_fd, const std::string& name) {
  absl::StatusOr<std::optional<struct stat>> st = Lstat(dir_fd, name);
  if (!st.ok()) return st.status();
  if (!st->has_value()) return absl::OkStatus();
  // By lstat and through directory fds: a symlink is removed as a link, and
  // the removal never descends through one.
  if (S_ISDIR((*st)->st_mode)) {
    int fd = ::openat(dir_fd, name.c_str(), kDirFlags);
    if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("opening {}", name));
    base::UniqueFd child(fd);
    absl::StatusOr<std::vector<std::string>> children = ListChildren(child.get());
    if (!children.ok()) return children.status();
    for (const std::string& grandchild : *children) {
      absl::Status removed = RemoveAll(child.get(), grandchild);
      if (!removed.ok()) return removed;
    }
    if (::unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR) != 0) {
      return base::ErrnoToStatus(errno, fmt::format("removing {}", name));
    }
    return absl::OkStatus();
  }
  if (::unlinkat(dir_fd, name.c_str(), 0) != 0 && errno != ENOENT) {
    return base::ErrnoToStatus(errno, fmt::format("removing {}", name));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::packager::unpack::internal
