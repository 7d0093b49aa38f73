#include "packager/run/mount_point_trace.h"

#include <errno.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <deque>
#include <vector>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::packager::run {
namespace {

namespace fs = std::filesystem;

// As many symlinks as Linux follows in one path.
constexpr int kMaxLinks = 40;

std::deque<std::string> Components(const std::string& path) {
  std::deque<std::string> parts;
  for (size_t start = 0; start <= path.size();) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) parts.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// `path` resolved inside `root`: the rootfs-relative paths of its
// directories and itself, each symlink replaced by what it names (an
// absolute target starting again at the root, '..' stopping at it).
std::vector<std::string> ResolveInRoot(const fs::path& root, const std::string& path) {
  std::deque<std::string> pending = Components(path);
  std::vector<std::string> chain;  // the resolved components so far
  int links = 0;
  while (!pending.empty()) {
    const std::string part = std::move(pending.front());
    pending.pop_front();
    if (part == ".") continue;
    if (part == "..") {
      if (!chain.empty()) chain.pop_back();
      continue;
    }
    const std::string next = chain.empty() ? part : chain.back() + "/" + part;
    struct stat st;
    if (::lstat((root / next).c_str(), &st) == 0 && S_ISLNK(st.st_mode) && links < kMaxLinks) {
      ++links;
      std::error_code ec;
      const std::string target = fs::read_symlink(root / next, ec).string();
      if (ec) break;
      if (!target.empty() && target[0] == '/') chain.clear();
      std::deque<std::string> parts = Components(target);
      pending.insert(pending.begin(), parts.begin(), parts.end());
      continue;
    }
    chain.push_back(next);
  }
  return chain;
}

bool IsOpaque(const fs::path& dir) {
  char value[2] = {0, 0};
  return ::lgetxattr(dir.c_str(), "trusted.overlay.opaque", value, sizeof(value)) == 1 &&
         value[0] == 'y';
}

}  // namespace

MountPointTrace MountPointTrace::Record(const fs::path& rootfs,
                                        std::span<const std::string> destinations) {
  MountPointTrace trace;
  for (const std::string& destination : destinations) {
    for (const std::string& path : ResolveInRoot(rootfs, destination)) {
      struct stat st;
      std::optional<struct stat> before;
      if (::lstat((rootfs / path).c_str(), &st) == 0) before = st;
      trace.paths_.emplace(path, before);
    }
  }
  return trace;
}

absl::Status MountPointTrace::RemoveFrom(const fs::path& upper) const {
  // Reverse order: "etc/hosts" before "etc".
  for (auto it = paths_.rbegin(); it != paths_.rend(); ++it) {
    const fs::path path = upper / it->first;
    const std::optional<struct stat>& before = it->second;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;
    std::error_code ec;
    // Only what runc can have made for a mount point goes: an empty directory
    // whose attributes did not change, or an empty file that was not there
    // before. Anything else was made or changed by the command and stays in
    // the layer.
    if (S_ISDIR(st.st_mode)) {
      if (!fs::is_empty(path, ec) || IsOpaque(path)) continue;
      if (before.has_value() && (!S_ISDIR(before->st_mode) || st.st_mode != before->st_mode ||
                                 st.st_uid != before->st_uid || st.st_gid != before->st_gid)) {
        continue;
      }
      if (::rmdir(path.c_str()) != 0) {
        return base::ErrnoToStatus(errno, fmt::format("removing {}", path.string()));
      }
    } else if (S_ISREG(st.st_mode) && st.st_size == 0 && !before.has_value()) {
      if (::unlink(path.c_str()) != 0) {
        return base::ErrnoToStatus(errno, fmt::format("removing {}", path.string()));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::packager::run
