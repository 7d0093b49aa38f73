// The platform an image runs on, as image indexes and configs name it, and
// the matching rule used to pick a manifest from an index.
#ifndef TRAINPKG_REGISTRY_OCI_PLATFORM_H_
#define TRAINPKG_REGISTRY_OCI_PLATFORM_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::oci {

struct Platform {
  std::string architecture{};  // GOARCH: amd64, arm64, arm, ppc64le, s390x, riscv64, ...
  std::string os{};            // GOOS: linux, windows, ...
  std::string os_version{};    // "os.version"
  std::vector<std::string> os_features{};  // "os.features"
  std::string variant{};                   // v7, v8, ...
  std::vector<std::string> features{};     // reserved by the spec; kept as read

  friend bool operator==(const Platform&, const Platform&) = default;
};

// "os/arch[/variant]", e.g. "linux/amd64", "linux/arm64/v8". Architecture
// aliases are normalised (x86_64 -> amd64, aarch64 -> arm64). InvalidArgument
// for empty parts or more than three.
absl::StatusOr<Platform> ParsePlatform(std::string_view text);

// "os/arch" or "os/arch/variant" (os.version and features are not shown).
std::string FormatPlatform(const Platform& platform);

// Aliases resolved and default variants made explicit where they are
// implied: arm64 -> v8, arm -> v7; amd64's "v1" (the baseline) -> "".
Platform NormalizePlatform(Platform platform);

// Whether an index entry's `candidate` satisfies `wanted`: after
// normalisation os and architecture are equal; wanted's variant and
// os.version, when set, are equal; wanted's os.features and features are all
// in the candidate's. An empty wanted variant accepts any variant.
bool PlatformMatches(const Platform& candidate, const Platform& wanted);

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_PLATFORM_H_
