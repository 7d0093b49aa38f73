#include "sdk/cli/command_tree.h"

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace trainpkg::cli {
namespace {

// The choices in a type name such as "TEXT:{local,vertex,k8s,slurm}".
std::vector<std::string> Choices(const std::string& type_name) {
  const size_t open = type_name.find(":{");
  const size_t close = type_name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  return absl::StrSplit(type_name.substr(open + 2, close - open - 2), ',', absl::SkipEmpty());
}

FlagDoc DescribeFlag(const CLI::Option& option) {
  FlagDoc flag;
  for (const std::string& name : option.get_lnames()) flag.names.push_back("--" + name);
  for (const std::string& name : option.get_snames()) flag.names.push_back("-" + name);
  if (option.get_items_expected_max() > 0) {  // a flag (--detach) expects none
    const std::string type = option.get_type_name();
    flag.value = type.substr(0, type.find(':'));
    if (flag.value.empty()) flag.value = "VALUE";
    flag.choices = Choices(type);
  }
  flag.description = option.get_description();
  return flag;
}

void Describe(const CLI::App& app, std::vector<std::string> path, std::vector<CommandDoc>& out) {
  CommandDoc doc;
  doc.path = path;
  doc.description = app.get_description();
  doc.footer = app.get_footer();
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    if (option->get_positional() && !option->nonpositional()) {
      doc.positionals.push_back(PositionalDoc{.name = option->get_name(true, false),
                                              .description = option->get_description(),
                                              .choices = Choices(option->get_type_name()),
                                              .repeated = option->get_items_expected_max() > 1});
    } else {
      doc.flags.push_back(DescribeFlag(*option));
    }
  }
  for (const CLI::App* at = &app; at->get_fallthrough() && at->get_parent() != nullptr;) {
    at = at->get_parent();
    for (const CLI::Option* option : at->get_options()) {
      if (!option->get_group().empty() && option->nonpositional() &&
          option->get_lnames() != std::vector<std::string>{"help"}) {
        doc.flags.push_back(DescribeFlag(*option));
      }
    }
  }
  std::vector<const CLI::App*> subs = app.get_subcommands(
      [](const CLI::App* sub) { return !sub->get_name().empty() && !sub->get_group().empty(); });
  for (const CLI::App* sub : subs) doc.subcommands.push_back(sub->get_name());
  out.push_back(std::move(doc));
  for (const CLI::App* sub : subs) {
    std::vector<std::string> child = path;
    child.push_back(sub->get_name());
    Describe(*sub, std::move(child), out);
  }
}

}  // namespace

std::vector<CommandDoc> DescribeCommands(const CLI::App& app) {
  std::vector<CommandDoc> out;
  Describe(app, {app.get_name()}, out);
  return out;
}

std::string JoinPath(const std::vector<std::string>& path, const char* separator) {
  return absl::StrJoin(path, separator);
}

}  // namespace trainpkg::cli
