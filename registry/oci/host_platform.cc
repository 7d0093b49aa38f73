#include "registry/oci/host_platform.h"

#include <sys/utsname.h>

namespace trainpkg::oci {

Platform PlatformOfMachine(std::string_view machine) {
  Platform platform;
  platform.os = "linux";
  if (machine == "x86_64" || machine == "amd64") {
    platform.architecture = "amd64";
  } else if (machine == "aarch64" || machine == "arm64") {
    platform.architecture = "arm64";
  } else if (machine == "armv7l" || machine == "armv7") {
    platform.architecture = "arm";
    platform.variant = "v7";
  } else if (machine == "armv6l") {
    platform.architecture = "arm";
    platform.variant = "v6";
  } else if (machine == "i386" || machine == "i486" || machine == "i586" || machine == "i686") {
    platform.architecture = "386";
  } else {
    platform.architecture = std::string(machine);  // ppc64le, s390x, riscv64, mips64, ...
  }
  return platform;
}

std::string HostPlatform() {
  struct utsname name;
  if (::uname(&name) != 0) return "linux/amd64";
  return FormatPlatform(PlatformOfMachine(name.machine));
}

}  // namespace trainpkg::oci
