#include "packager/bundle/path_walk.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::packager::bundle {
namespace {

constexpr int kMaxLinks = 40;  // the kernel's MAXSYMLINKS

std::deque<std::string> Components(const std::string& path) {
  std::deque<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string Join(const std::string& dir, const std::string& name) {
  std::string out = dir;
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

}  // namespace

std::filesystem::path HostPath(const std::filesystem::path& root, const std::string& path) {
  return root / std::filesystem::path(path).relative_path();
}

absl::StatusOr<PathWalk> WalkPath(const std::filesystem::path& root, const std::string& path) {
  if (path.empty() || path[0] != '/') {
    return absl::InvalidArgumentError(fmt::format("\"{}\" is not an absolute path", path));
  }
  PathWalk walk;
  std::deque<std::string> rest = Components(path);
  std::string current = "/";
  while (!rest.empty()) {
    std::string name = std::move(rest.front());
    rest.pop_front();
    if (name == ".") continue;
    // ".." of the resolved directory, as the kernel does: after a link it is the
    // target's parent, not the link's.
    if (name == "..") {
      current = Parent(current);
      continue;
    }
    const std::string next = Join(current, name);
    const std::filesystem::path host = HostPath(root, next);
    struct stat st;
    // lstat, one component at a time: every link on the way is recorded, for
    // the layers to recreate it in the image, and none leads outside the root.
    if (::lstat(host.c_str(), &st) != 0) {
      return base::ErrnoToStatus(errno, fmt::format("resolving {}: {}", path, next));
    }
    if (!S_ISLNK(st.st_mode)) {
      if (!rest.empty() && !S_ISDIR(st.st_mode)) {
        return absl::NotFoundError(fmt::format("resolving {}: {} is not a directory", path, next));
      }
      current = next;
      continue;
    }
    if (static_cast<int>(walk.links.size()) >= kMaxLinks) {
      return absl::InvalidArgumentError(
          fmt::format("resolving {}: more than {} symlinks (a loop?)", path, kMaxLinks));
    }
    std::string target(static_cast<size_t>(st.st_size) + 1, '\0');
    ssize_t n = ::readlink(host.c_str(), target.data(), target.size());
    if (n < 0) return base::ErrnoToStatus(errno, fmt::format("readlink {}", host.string()));
    target.resize(static_cast<size_t>(n));
    walk.links.push_back(SymlinkHop{next, target});
    std::deque<std::string> expanded = Components(target);
    rest.insert(rest.begin(), expanded.begin(), expanded.end());
    // An absolute target restarts at the root given, not at the host's /.
    if (!target.empty() && target[0] == '/') current = std::string(1, '/');
  }
  walk.target = current;
  return walk;
}

}  // namespace trainpkg::packager::bundle
