#include "sdk/cli/login_command.h"

#include <termios.h>
#include <unistd.h>

#include <iostream>

#include "absl/strings/str_cat.h"
#include "base/environment.h"
#include "base/terminal_text.h"
#include "registry/auth/credential.h"
#include "registry/auth/docker_config.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/user_config.h"

namespace trainpkg::cli {
namespace {

std::string RegistryHost(std::string registry) {
  for (const char* scheme : {"https://", "http://"}) {
    if (registry.rfind(scheme, 0) == 0) registry.erase(0, std::string(scheme).size());
  }
  while (!registry.empty() && registry.back() == '/') registry.pop_back();
  return registry;
}

// A line from the terminal with echo off.
std::string PromptPassword(std::ostream& err) {
  err << "Password: " << std::flush;
  termios saved{};
  bool restore = ::tcgetattr(STDIN_FILENO, &saved) == 0;
  if (restore) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
  }
  std::string password;
  std::getline(std::cin, password);
  // Echo back on, or the user's terminal would stay silent after we exit.
  if (restore) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved);
  err << "\n";
  return password;
}

int Login(const LoginFlags& flags, const std::string& host, std::istream& in, std::ostream& out,
          std::ostream& err) {
  if (flags.username.empty()) {
    return ReportError(err, absl::InvalidArgumentError("login needs a user name: -u USER"),
                       kExitUsage);
  }
  std::string password;
  if (flags.password_stdin) {
    std::getline(in, password);
    while (!password.empty() && (password.back() == '\r' || password.back() == '\n')) {
      password.pop_back();
    }
  } else if (&in == &std::cin && ::isatty(STDIN_FILENO)) {
    password = PromptPassword(err);
  } else {
    return ReportError(err,
                       absl::InvalidArgumentError(
                           "stdin is not a terminal: give the password with --password-stdin"),
                       kExitUsage);
  }
  if (password.empty()) {
    return ReportError(err, absl::InvalidArgumentError("the password is empty"), kExitUsage);
  }
  registry::Credential credential{.username = flags.username, .password = password};
  std::unique_ptr<registry::RegistryClient> client =
      MakeRegistryClient(flags.flags, std::make_shared<registry::StaticKeychain>(credential));
  // Checked before anything is saved, as docker login does: wrong
  // credentials fail now, not at the next push.
  absl::Status ping = client->Ping(host);
  if (!ping.ok()) return ReportError(err, ping, kExitFailed);
  absl::StatusOr<registry::SavedLogin> saved =
      registry::SaveLogin(base::ProcessEnvironment(), host, credential);
  if (!saved.ok()) return ReportError(err, saved.status(), kExitFailed);
  if (saved->helper.empty()) {
    err << "trainpkg: warning: the password is stored unencrypted (base64) in "
        << base::TerminalSafe(saved->file.string())
        << "; set \"credsStore\" or \"credHelpers\" there to keep it in a credential helper "
           "(docker-credential-pass, docker-credential-secretservice, ...)\n";
  }
  out << "Login Succeeded\n";
  return kExitOk;
}

}  // namespace

LoginCommands AddLoginCommands(CLI::App& app, LoginFlags& flags) {
  LoginCommands commands;
  commands.login = app.add_subcommand(
      "login", "Check credentials against a registry and save them in docker's config.json");
  commands.login->add_option(
      "registry", flags.registry,
      "host[:port] (default: `registry:` in $XDG_CONFIG_HOME/trainpkg/config.yaml)");
  commands.login->add_option("-u,--username", flags.username, "User name");
  commands.login->add_flag("--password-stdin", flags.password_stdin,
                           "Read the password from stdin");
  AddRegistryFlags(commands.login, flags.flags);
  commands.logout =
      app.add_subcommand("logout", "Remove a registry's credentials from docker's config.json");
  commands.logout->add_option(
      "registry", flags.registry,
      "host[:port] (default: `registry:` in $XDG_CONFIG_HOME/trainpkg/config.yaml)");
  return commands;
}

int RunLoginCommand(const LoginCommands& commands, const LoginFlags& flags, std::istream& in,
                    std::ostream& out, std::ostream& err) {
  std::string registry = flags.registry;
  if (registry.empty()) {
    absl::StatusOr<UserConfig> config = ReadUserConfig(base::ProcessEnvironment());
    if (!config.ok()) return ReportError(err, config.status(), kExitUsage);
    registry = config->registry;
  }
  if (registry.empty()) {
    return ReportError(err,
                       absl::InvalidArgumentError(
                           absl::StrCat("name a registry (host[:port]), or set `registry:` in ",
                                        UserConfigPath(base::ProcessEnvironment()).string())),
                       kExitUsage);
  }
  std::string host = RegistryHost(registry);
  if (commands.login->parsed()) return Login(flags, host, in, out, err);
  absl::Status removed = registry::RemoveLogin(base::ProcessEnvironment(), host);
  if (!removed.ok()) return ReportError(err, removed, kExitFailed);
  out << "Removing login credentials for " << host << "\n";
  return kExitOk;
}

}  // namespace trainpkg::cli
