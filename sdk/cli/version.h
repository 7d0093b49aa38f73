// `trainpkg version` and `trainpkg --version`: which trainpkg this is.
#ifndef TRAINPKG_SDK_CLI_VERSION_H_
#define TRAINPKG_SDK_CLI_VERSION_H_

#include <string>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

// "trainpkg 0.1.0 (commit abc123def456)": the project version and the git
// commit the binary was built from ("+modified" when the tree had changes,
// "unknown" when it was not a git checkout).
std::string VersionLine();

// Adds `trainpkg version`.
CLI::App* AddVersionCommand(CLI::App& app);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_VERSION_H_
