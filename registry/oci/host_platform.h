// The platform of the machine trainpkg runs on, the default of
// `trainpkg build --platform` and `trainpkg pull --platform` (like docker's:
// the daemon's own platform), so an arm64 host builds and pulls arm64 images.
#ifndef TRAINPKG_REGISTRY_OCI_HOST_PLATFORM_H_
#define TRAINPKG_REGISTRY_OCI_HOST_PLATFORM_H_

#include <string>
#include <string_view>

#include "registry/oci/platform.h"

namespace trainpkg::oci {

// The platform of uname(2)'s machine `machine` on linux, in OCI's (GOARCH)
// names: x86_64 -> amd64, aarch64/arm64 -> arm64, armv7l -> arm/v7,
// armv6l -> arm/v6, i686/i386 -> 386, ppc64le, s390x, riscv64 as they are;
// any other machine name as uname gives it.
Platform PlatformOfMachine(std::string_view machine);

// PlatformOfMachine(uname().machine) as "os/arch[/variant]", e.g.
// "linux/amd64" or "linux/arm64"; "linux/amd64" only if uname fails.
std::string HostPlatform();

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_HOST_PLATFORM_H_
