#include "registry/oci/platform.h"

#include <algorithm>
#include <utility>

#include "fmt/format.h"

namespace trainpkg::oci {
namespace {

std::vector<std::string_view> SplitSlash(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return parts;
}

bool ContainsAll(const std::vector<std::string>& have, const std::vector<std::string>& want) {
  return std::all_of(want.begin(), want.end(), [&have](const std::string& item) {
    return std::find(have.begin(), have.end(), item) != have.end();
  });
}

}  // namespace

absl::StatusOr<Platform> ParsePlatform(std::string_view text) {
  std::vector<std::string_view> parts = SplitSlash(text);
  if (parts.size() < 2 || parts.size() > 3) {
    return absl::InvalidArgumentError(fmt::format(
        "invalid platform \"{}\": expected os/arch or os/arch/variant (e.g. linux/arm64/v8)",
        text));
  }
  for (std::string_view part : parts) {
    if (part.empty()) {
      return absl::InvalidArgumentError(
          fmt::format("invalid platform \"{}\": empty component", text));
    }
  }
  Platform platform;
  platform.os = std::string(parts[0]);
  platform.architecture = std::string(parts[1]);
  if (parts.size() == 3) platform.variant = std::string(parts[2]);
  // uname's names for the architectures, as a user may type them; images
  // use Go's (GOARCH).
  if (platform.architecture == "x86_64") platform.architecture = "amd64";
  if (platform.architecture == "aarch64") platform.architecture = "arm64";
  return platform;
}

std::string FormatPlatform(const Platform& platform) {
  if (platform.variant.empty()) return fmt::format("{}/{}", platform.os, platform.architecture);
  return fmt::format("{}/{}/{}", platform.os, platform.architecture, platform.variant);
}

Platform NormalizePlatform(Platform platform) {
  if (platform.architecture == "x86_64" || platform.architecture == "x86-64") {
    platform.architecture = "amd64";
  } else if (platform.architecture == "aarch64") {
    platform.architecture = "arm64";
  }
  // The defaults containerd's platform matcher assumes: an arm64 image with
  // no variant is v8, an arm one v7, and amd64's "v1" is the baseline.
  if (platform.architecture == "arm64" && platform.variant.empty()) platform.variant = "v8";
  if (platform.architecture == "arm" && platform.variant.empty()) platform.variant = "v7";
  if (platform.architecture == "amd64" && platform.variant == "v1") platform.variant.clear();
  return platform;
}

bool PlatformMatches(const Platform& candidate, const Platform& wanted) {
  Platform have = NormalizePlatform(candidate);
  Platform want = NormalizePlatform(wanted);
  if (have.os != want.os || have.architecture != want.architecture) return false;
  // An unset wanted variant accepts any; the normalised default above must
  // not narrow it.
  if (!wanted.variant.empty() && have.variant != want.variant) return false;
  if (!want.os_version.empty() && have.os_version != want.os_version) return false;
  return ContainsAll(have.os_features, want.os_features) &&
         ContainsAll(have.features, want.features);
}

}  // namespace trainpkg::oci
