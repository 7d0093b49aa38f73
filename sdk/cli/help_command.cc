#include "sdk/cli/help_command.h"

#include <ostream>

#include "sdk/cli/exit_codes.h"
#include "sdk/cli/usage_errors.h"

namespace trainpkg::cli {

CLI::App* AddHelpCommand(CLI::App& app, std::vector<std::string>& words) {
  CLI::App* help =
      app.add_subcommand("help", "Show the help of a command: trainpkg help jobs list");
  help->add_option("command", words, "The command, and its subcommand if any");
  return help;
}

int RunHelpCommand(const CLI::App& app, const std::vector<std::string>& words, std::ostream& out,
                   std::ostream& err) {
  const CLI::App* at = &app;
  std::string path = app.get_name();  // how the user reaches `at`: "trainpkg jobs"
  for (const std::string& word : words) {
    const CLI::App* sub = FindCommand(*at, word);
    if (sub == nullptr) {
      err << UnknownCommandMessage(*at, path, word);
      return kExitUsage;
    }
    path += " " + sub->get_name();
    at = sub;
  }
  // The formatter, not at->help(), which would show the parsed `help` itself.
  out << at->get_formatter()->make_help(at, path, CLI::AppFormatMode::Normal);
  return kExitOk;
}

}  // namespace trainpkg::cli
