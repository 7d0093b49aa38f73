#include "sdk/cli/usage_errors.h"

#include <string_view>

#include "base/closest_match.h"
#include "fmt/format.h"

namespace trainpkg::cli {
namespace {

// Commands shown in --help (a hidden one has no group).
std::vector<const CLI::App*> VisibleCommands(const CLI::App& app) {
  return app.get_subcommands(
      [](const CLI::App* sub) { return !sub->get_name().empty() && !sub->get_group().empty(); });
}

// The option `name` ("--config" or "-t") of `app`, or of the parents whose
// options fall through to it.
const CLI::Option* FindOption(const CLI::App& app, const std::string& name) {
  for (const CLI::App* at = &app; at != nullptr; at = at->get_parent()) {
    for (const CLI::Option* option : at->get_options()) {
      if (option->check_name(name)) return option;
    }
    if (!at->get_fallthrough()) break;
  }
  return nullptr;
}

// A flag (--detach) expects no items; an option one or more.
bool TakesValue(const CLI::Option& option) { return option.get_items_expected_max() > 0; }

std::string FirstLine(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

std::string UnknownFlagMessage(const CLI::App& app, const std::string& path,
                               const std::string& flag) {
  std::vector<std::string> names;
  for (const CLI::App* at = &app; at != nullptr; at = at->get_parent()) {
    for (const CLI::Option* option : at->get_options()) {
      if (option->get_group().empty()) continue;  // hidden
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
      for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    }
    if (!at->get_fallthrough()) break;
  }
  const std::vector<std::string_view> candidates(names.begin(), names.end());
  return fmt::format(
      "trainpkg: error: unknown flag '{}' for '{}'{}\nRun '{} --help' for its flags.\n", flag, path,
      base::DidYouMean(flag, candidates), path);
}

std::string CommandList(const CLI::App& app) {
  std::string list;
  for (const CLI::App* sub : VisibleCommands(app)) {
    list += (list.empty() ? "" : ", ") + sub->get_name();
  }
  return list;
}

}  // namespace

const CLI::App* FindCommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : VisibleCommands(app)) {
    if (sub->check_name(name)) return sub;
  }
  return nullptr;
}

std::string UnknownCommandMessage(const CLI::App& app, const std::string& path,
                                  const std::string& word) {
  std::vector<std::string_view> names;
  for (const CLI::App* sub : VisibleCommands(app)) names.push_back(sub->get_name());
  const bool top = app.get_parent() == nullptr;
  return fmt::format("trainpkg: error: unknown command '{}'{}{}\nRun '{} --help' for {}.\n", word,
                     top ? "" : fmt::format(" for '{}'", path), base::DidYouMean(word, names), path,
                     top ? "the commands" : "its commands");
}

std::string DescribeUsageError(const CLI::App& app, const std::vector<std::string>& args,
                               const CLI::Error& error) {
  const CLI::App* at = &app;
  std::string path = app.get_name();
  bool flags_ended = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!flags_ended && arg == "--") {
      flags_ended = true;
      continue;
    }
    if (!flags_ended && arg.size() > 1 && arg[0] == '-' &&
        !(arg[1] >= '0' && arg[1] <= '9')) {  // "-1" is a value
      const bool long_form = arg.starts_with("--");
      // "--name=value", "--name value", "-tvalue", "-t value", "-q".
      const std::string name = long_form ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
      const CLI::Option* option = FindOption(*at, name);
      if (option == nullptr) return UnknownFlagMessage(*at, path, name);
      const bool value_attached = long_form ? arg.find('=') != std::string::npos : arg.size() > 2;
      if (TakesValue(*option) && !value_attached) ++i;
      continue;
    }
    if (const CLI::App* sub = FindCommand(*at, arg)) {
      at = sub;
      path += " " + sub->get_name();
      continue;
    }
    // A word where only commands may stand (`images rn`: images takes no
    // positional argument, only its optional commands).
    const bool takes_positionals =
        !at->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
    if (!VisibleCommands(*at).empty() &&
        (at->get_require_subcommand_min() > 0 || !takes_positionals)) {
      return UnknownCommandMessage(*at, path, arg);
    }
  }
  if (!VisibleCommands(*at).empty() && at->get_require_subcommand_min() > 0 &&
      at->get_subcommands().empty()) {
    return fmt::format("trainpkg: error: '{}' needs a command: {}\nRun '{} --help' for {}.\n", path,
                       CommandList(*at), path,
                       at->get_parent() == nullptr ? "the commands" : "its commands");
  }
  return fmt::format("trainpkg: error: {}\nRun '{} --help' for more information.\n",
                     FirstLine(error.what()), path);
}

}  // namespace trainpkg::cli
