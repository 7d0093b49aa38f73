#include "packager/unpack/internal/tree_clone.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/unpack/internal/root_dir.h"
#include "base/unique_fd.h"

namespace trainpkg::packager::unpack::internal {
namespace {

constexpr int kNoFollowDir = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

std::string ChildPath(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

// Mode, owner and times of `from` onto the directory `to`. Last, after its
// children are in place: creating them would move the mtime again.
absl::Status CopyDirAttributes(const struct stat& from, int to, const std::string& where) {
  if ((from.st_uid != ::geteuid() || from.st_gid != ::getegid()) &&
      ::fchown(to, from.st_uid, from.st_gid) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("chown {}", where));
  }
  if (::fchmod(to, from.st_mode & 07777) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("chmod {}", where));
  }
  const struct timespec times[2] = {from.st_atim, from.st_mtim};
  if (::futimens(to, times) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("setting the mtime of {}", where));
  }
  return absl::OkStatus();
}

absl::Status CloneDir(int from, const struct stat& from_stat, int to, const std::string& where) {
  TP_ASSIGN_OR_RETURN(std::vector<std::string> children, RootDir::ListChildren(from));
  for (const std::string& name : children) {
    const std::string path = ChildPath(where, name);
    struct stat st;
    if (::fstatat(from, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return base::ErrnoToStatus(errno, fmt::format("lstat {}", path));
    }
    if (!S_ISDIR(st.st_mode)) {
      // No AT_SYMLINK_FOLLOW: a symlink gets a second link to itself, never
      // to what it points at.
      if (::linkat(from, name.c_str(), to, name.c_str(), 0) != 0) {
        return base::ErrnoToStatus(errno, fmt::format("linking {}", path));
      }
      continue;
    }
    // Private until CopyDirAttributes gives the source's mode.
    if (::mkdirat(to, name.c_str(), 0700) != 0) {
      return base::ErrnoToStatus(errno, fmt::format("creating {}", path));
    }
    base::UniqueFd child_from(::openat(from, name.c_str(), kNoFollowDir));
    if (!child_from.valid()) return base::ErrnoToStatus(errno, fmt::format("opening {}", path));
    base::UniqueFd child_to(::openat(to, name.c_str(), kNoFollowDir));
    if (!child_to.valid()) return base::ErrnoToStatus(errno, fmt::format("opening {}", path));
    TP_RETURN_IF_ERROR(CloneDir(child_from.get(), st, child_to.get(), path));
  }
  return CopyDirAttributes(from_stat, to, where.empty() ? "." : where);
}

}  // namespace

absl::Status HardlinkTree(const std::filesystem::path& from, const std::filesystem::path& to) {
  base::UniqueFd from_fd(::open(from.c_str(), kNoFollowDir));
  if (!from_fd.valid()) return base::ErrnoToStatus(errno, fmt::format("opening {}", from.string()));
  base::UniqueFd to_fd(::open(to.c_str(), kNoFollowDir));
  if (!to_fd.valid()) return base::ErrnoToStatus(errno, fmt::format("opening {}", to.string()));
  struct stat st;
  if (::fstat(from_fd.get(), &st) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("stat {}", from.string()));
  }
  return CloneDir(from_fd.get(), st, to_fd.get(), "");
}

}  // namespace trainpkg::packager::unpack::internal
