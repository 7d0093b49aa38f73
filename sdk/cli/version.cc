#include "sdk/cli/version.h"

#include "fmt/format.h"

namespace trainpkg::cli {

extern const char kGitCommit[];  // generated: cmake/TrainpkgVersionInfo.cmake

std::string VersionLine() {
  return fmt::format("trainpkg {} (commit {})", TRAINPKG_VERSION, kGitCommit);
}

CLI::App* AddVersionCommand(CLI::App& app) {
  return app.add_subcommand("version", "Print trainpkg's version and the commit it was built from");
}

}  // namespace trainpkg::cli
