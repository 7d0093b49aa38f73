// What `trainpkg` says when its command line is wrong: one line starting
// "trainpkg: error:" that names the word it did not know and, when one is
// close, the command or flag that was meant (base/closest_match.h, the rule
// job files and Dockerfiles use too), then where to read more:
//
//   trainpkg: error: unknown command 'bulid'; did you mean 'build'?
//   Run 'trainpkg --help' for the commands.
//
//   trainpkg: error: unknown flag '--confg' for 'trainpkg run'; did you mean '--config'?
//   Run 'trainpkg run --help' for its flags.
#ifndef TRAINPKG_SDK_CLI_USAGE_ERRORS_H_
#define TRAINPKG_SDK_CLI_USAGE_ERRORS_H_

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

// The message for `error`, which parsing `args` (argv[1..], in order) with
// `app` raised. The arguments are walked as CLI11 reads them (subcommands,
// flags and the values they take, "--" ending flags) to find the first
// command or flag that `app` does not have; when there is none, CLI11's own
// message is kept, prefixed alike. Ends with a newline.
std::string DescribeUsageError(const CLI::App& app, const std::vector<std::string>& args,
                               const CLI::Error& error);

// The subcommand of `app` named `name` (or one of its aliases), not
// counting hidden ones; nullptr when there is none.
const CLI::App* FindCommand(const CLI::App& app, const std::string& name);

// "unknown command 'x' for 'trainpkg jobs'; did you mean 'list'?" and where
// to look, for a `word` that is not a command of `app` (`path`: how the user
// reached `app`, e.g. "trainpkg jobs"). Ends with a newline.
std::string UnknownCommandMessage(const CLI::App& app, const std::string& path,
                                  const std::string& word);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_USAGE_ERRORS_H_
