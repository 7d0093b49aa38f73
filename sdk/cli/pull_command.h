// `trainpkg pull REF --output oci:DIR[:TAG] [--platform os/arch]`: pull an
// image from a registry into an oci-layout.
#ifndef TRAINPKG_SDK_CLI_PULL_COMMAND_H_
#define TRAINPKG_SDK_CLI_PULL_COMMAND_H_

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "registry/oci/host_platform.h"
#include "sdk/cli/push_command.h"

namespace trainpkg::cli {

struct PullFlags {
  std::string source;  // registry reference
  std::string output;  // oci:DIR[:TAG]; the tag defaults to the reference's, else "latest"
  std::string platform = oci::HostPlatform();  // the host's, like docker's
  std::string format = "text";                 // text | json
  int jobs = 4;
  RegistryFlags registry;
};

CLI::App* AddPullCommand(CLI::App& app, PullFlags& flags);

// Output like PushCommand's ("<tag>: digest: <digest> size: <n>", or JSON).
// Returns 0, 1 when the pull failed, 2 for an invalid reference, output or
// platform.
int PullCommand(const PullFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_PULL_COMMAND_H_
