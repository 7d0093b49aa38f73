// `trainpkg completion bash|zsh`: shell completion scripts generated from the
// command tree (command_tree.h): commands, their flags, the values a flag
// allows, and file names where a flag or argument takes a value.
//
//   source <(trainpkg completion bash)
//   trainpkg completion zsh > "${fpath[1]}/_trainpkg"
#ifndef TRAINPKG_SDK_CLI_COMPLETION_H_
#define TRAINPKG_SDK_CLI_COMPLETION_H_

#include <iosfwd>
#include <string>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

struct CompletionFlags {
  std::string shell;  // bash or zsh
};

CLI::App* AddCompletionCommand(CLI::App& app, CompletionFlags& flags);

int RunCompletionCommand(const CLI::App& app, const CompletionFlags& flags, std::ostream& out);

// The scripts: a bash function `_trainpkg` registered with `complete`, and a
// zsh `#compdef trainpkg` function file.
std::string BashCompletion(const CLI::App& app);
std::string ZshCompletion(const CLI::App& app);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_COMPLETION_H_
