#include "packager/dockerfile/context_path.h"

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace trainpkg::packager::dockerfile {
namespace {

// Clean segments of `path`, nullopt when '..' climbs above the start.
std::optional<std::vector<std::string_view>> CleanSegments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view seg = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (out.empty()) return std::nullopt;
      out.pop_back();
      continue;
    }
    out.push_back(seg);
  }
  return out;
}

std::string Join(const std::vector<std::string_view>& segs) {
  std::string out;
  for (std::string_view s : segs) {
    if (!out.empty()) out += '/';
    out.append(s);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> NormalizeSourcePath(std::string_view source) {
  if (source.empty()) return absl::InvalidArgumentError("empty source path");
  auto segs = CleanSegments(source);
  if (!segs) {
    return absl::InvalidArgumentError(fmt::format(
        "source '{}' is outside the build context; sources are paths inside the context "
        "directory",
        source));
  }
  return segs->empty() ? std::string(".") : Join(*segs);
}

absl::StatusOr<std::string> ResolveDestination(std::string_view workdir, std::string_view dest) {
  if (dest.empty()) return absl::InvalidArgumentError("empty destination path");
  std::string full = dest.front() == '/' ? std::string(dest) : fmt::format("{}/{}", workdir, dest);
  auto segs = CleanSegments(full);
  if (!segs) {
    return absl::InvalidArgumentError(
        fmt::format("destination '{}' climbs above '/' (workdir '{}')", dest, workdir));
  }
  std::string out = "/" + Join(*segs);
  // Cleaning drops the trailing slash that makes the destination a directory
  // (Docker's rule for COPY a b/), so it is put back.
  bool dir = dest.back() == '/' || dest == "." || dest.ends_with("/.");
  if (dir && out != "/") out += '/';
  return out;
}

}  // namespace trainpkg::packager::dockerfile
