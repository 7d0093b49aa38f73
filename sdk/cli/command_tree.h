// The visible commands and flags of a CLI11 command tree as plain data, for
// the generated docs (man pages, shell completion): what a user can type is
// read from the one definition main() parses with.
#ifndef TRAINPKG_SDK_CLI_COMMAND_TREE_H_
#define TRAINPKG_SDK_CLI_COMMAND_TREE_H_

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

struct FlagDoc {
  std::vector<std::string> names;    // "--config", "-c": long names first
  std::string value;                 // "TEXT", "INT"; empty for a flag that takes none
  std::vector<std::string> choices;  // the values a validator allows ({local,vertex,...})
  std::string description;
};

struct PositionalDoc {
  std::string name;  // "CONTEXT"
  std::string description;
  std::vector<std::string> choices;  // the values a validator allows
  bool repeated = false;             // takes several words
};

struct CommandDoc {
  std::vector<std::string> path;  // {"trainpkg", "jobs", "list"}
  std::string description;
  std::string footer;
  std::vector<std::string> subcommands;  // names, in declaration order
  std::vector<PositionalDoc> positionals;
  std::vector<FlagDoc> flags;  // its own, then those falling through from parents
};

// `app` and every visible command under it, parents before children. Hidden
// commands and flags (no group) are left out.
std::vector<CommandDoc> DescribeCommands(const CLI::App& app);

// "trainpkg jobs list".
std::string JoinPath(const std::vector<std::string>& path, const char* separator = " ");

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_COMMAND_TREE_H_
