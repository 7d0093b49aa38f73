#include "packager/layer/internal/image_path.h"

#include <vector>

#include "fmt/format.h"

namespace trainpkg::packager::layer_internal {
namespace {

int SiblingRank(std::string_view name) {
  if (name == kOpaqueWhiteout) return 0;
  if (name.substr(0, kWhiteoutPrefix.size()) == kWhiteoutPrefix) return 1;
  return 2;
}

// Splits off the first component of `*rest`.
std::string_view NextComponent(std::string_view* rest) {
  const size_t slash = rest->find('/');
  std::string_view component = rest->substr(0, slash);
  rest->remove_prefix(slash == std::string_view::npos ? rest->size() : slash + 1);
  return component;
}

}  // namespace

absl::StatusOr<std::string> NormalizeRelativePath(std::string_view path, std::string_view what,
                                                  std::string_view root_name) {
  std::vector<std::string_view> parts;
  std::string_view rest = path;
  while (!rest.empty()) {
    std::string_view component = NextComponent(&rest);
    if (component.empty() || component == ".") continue;
    if (component == "..") {
      if (parts.empty()) {
        return absl::InvalidArgumentError(
            fmt::format("{} \"{}\" escapes {}", what, path, root_name));
      }
      parts.pop_back();
      continue;
    }
    parts.push_back(component);
  }
  std::string out;
  for (std::string_view part : parts) {
    if (!out.empty()) out += '/';
    out.append(part);
  }
  return out;
}

bool ImagePathLess(std::string_view a, std::string_view b) {
  // Component by component, not bytewise: bytewise "a.b" sorts between "a"
  // and "a/b" ('.' < '/'), which would split a directory from its contents.
  while (!a.empty() && !b.empty()) {
    std::string_view ca = NextComponent(&a);
    std::string_view cb = NextComponent(&b);
    if (ca == cb) continue;
    const int ra = SiblingRank(ca);
    const int rb = SiblingRank(cb);
    if (ra != rb) return ra < rb;
    return ca < cb;
  }
  return a.empty() && !b.empty();
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view ParentPath(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

}  // namespace trainpkg::packager::layer_internal
