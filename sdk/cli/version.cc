#include "sdk/cli/version.h"

#include "sdk/version.h"

namespace trainpkg::cli {

std::string VersionLine() { return sdk::TrainpkgVersionLine(); }

CLI::App* AddVersionCommand(CLI::App& app) {
  return app.add_subcommand("version", "Print trainpkg's version and the commit it was built from");
}

}  // namespace trainpkg::cli
