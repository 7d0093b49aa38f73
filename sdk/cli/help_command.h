// `trainpkg help [COMMAND...]`: a command's --help, as `git help` and
// `gcloud help` give it ("trainpkg help jobs list").
#ifndef TRAINPKG_SDK_CLI_HELP_COMMAND_H_
#define TRAINPKG_SDK_CLI_HELP_COMMAND_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

CLI::App* AddHelpCommand(CLI::App& app, std::vector<std::string>& words);

// Prints the help of the command `words` name under `app` (app's own for
// none). A word that is no command: the usage error with the nearest one,
// exit 2.
int RunHelpCommand(const CLI::App& app, const std::vector<std::string>& words, std::ostream& out,
                   std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_HELP_COMMAND_H_
