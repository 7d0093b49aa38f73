// `trainpkg login REGISTRY -u USER [--password-stdin]` and
// `trainpkg logout REGISTRY`, writing docker's config.json like docker does.
#ifndef TRAINPKG_SDK_CLI_LOGIN_COMMAND_H_
#define TRAINPKG_SDK_CLI_LOGIN_COMMAND_H_

#include <istream>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "sdk/cli/push_command.h"

namespace trainpkg::cli {

struct LoginFlags {
  std::string registry;  // host[:port]; an http(s):// prefix and trailing '/' are dropped;
                         // "": `registry:` of trainpkg's config file (user_config.h)
  std::string username;
  bool password_stdin = false;
  RegistryFlags flags;
};

struct LoginCommands {
  CLI::App* login = nullptr;
  CLI::App* logout = nullptr;
};

LoginCommands AddLoginCommands(CLI::App& app, LoginFlags& flags);

// login: reads the password from `in` (--password-stdin) or, when stdin
// is a terminal, prompts for it without echo; checks it against the
// registry (GET /v2/ answering its challenge, like docker login) and only
// then saves it (credential helper or base64 "auth" in config.json, with a
// warning on `err` that the password is stored in plain text).
// logout: forgets the registry. Returns 0, 1 when the registry refused or
// the config could not be written, 2 for missing input.
int RunLoginCommand(const LoginCommands& commands, const LoginFlags& flags, std::istream& in,
                    std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_LOGIN_COMMAND_H_
