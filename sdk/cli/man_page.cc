#include "sdk/cli/man_page.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace trainpkg::cli {
namespace {

// Text for a roff line: backslashes escaped, a leading '.' or '\'' kept
// from reading as a request.
std::string Roff(const std::string& text) {
  std::string out = absl::StrReplaceAll(text, {{"\\", "\\e"}});
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

// A flag or command name in bold, its hyphens as real minus signs.
std::string Bold(const std::string& name) {
  return "\\fB" + absl::StrReplaceAll(Roff(name), {{"-", "\\-"}}) + "\\fR";
}

// Paragraphs of `text` (its blank lines split them; other line breaks are
// kept as breaks) and its example blocks (lines that start with two spaces)
// as roff; "Examples:" starts the EXAMPLES section.
std::string Body(const std::string& text, std::string& examples) {
  std::string out;
  bool in_examples = false;
  bool in_block = false;
  auto end_block = [&](std::string& to) {
    if (in_block) to += ".EE\n";
    in_block = false;
  };
  for (const std::string& line : std::vector<std::string>(absl::StrSplit(text, '\n'))) {
    std::string& to = in_examples ? examples : out;
    if (absl::StripTrailingAsciiWhitespace(absl::string_view(line)) == "Examples:") {
      end_block(to);
      in_examples = true;
      continue;
    }
    if (line.starts_with("  ")) {
      if (!in_block) to += ".EX\n";
      in_block = true;
      to += Roff(line.substr(2)) + "\n";
      continue;
    }
    end_block(to);
    if (absl::StripAsciiWhitespace(absl::string_view(line)).empty()) {
      to += ".PP\n";
    } else {
      to += Roff(line) + "\n.br\n";
    }
  }
  end_block(in_examples ? examples : out);
  return out;
}

std::string OneLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "a trainpkg command" : line;
}

}  // namespace

std::string ManPageName(const CommandDoc& command) { return JoinPath(command.path, "-"); }

std::string ManPage(const CommandDoc& command, const std::vector<CommandDoc>& all,
                    const std::string& version) {
  const std::string name = ManPageName(command);
  std::string page = fmt::format(".TH {} 1 \"\" \"{}\" \"trainpkg manual\"\n",
                                 absl::AsciiStrToUpper(name), Roff(version));
  page += fmt::format(".SH NAME\n{} \\- {}\n", absl::StrReplaceAll(name, {{"-", "\\-"}}),
                      Roff(OneLine(command.description)));

  page += ".SH SYNOPSIS\n" + Bold(JoinPath(command.path));
  if (!command.flags.empty()) page += " [\\fIOPTIONS\\fR]";
  if (!command.subcommands.empty()) page += " \\fICOMMAND\\fR";
  for (const PositionalDoc& positional : command.positionals) {
    page += fmt::format(" [\\fI{}\\fR{}]", Roff(positional.name), positional.repeated ? "..." : "");
  }
  page += "\n";

  std::string examples;
  page += ".SH DESCRIPTION\n" + Body(command.description, examples);
  if (!command.footer.empty()) page += ".PP\n" + Body(command.footer, examples);

  if (!command.subcommands.empty()) {
    page += ".SH COMMANDS\n";
    for (const CommandDoc& other : all) {
      if (other.path.size() == command.path.size() + 1 &&
          std::equal(command.path.begin(), command.path.end(), other.path.begin())) {
        page += fmt::format(".TP\n{}\n{}\nSee \\fB{}\\fR(1).\n", Bold(other.path.back()),
                            Roff(OneLine(other.description)), ManPageName(other));
      }
    }
  }
  if (!command.positionals.empty()) {
    page += ".SH ARGUMENTS\n";
    for (const PositionalDoc& positional : command.positionals) {
      page +=
          fmt::format(".TP\n\\fI{}\\fR\n{}\n", Roff(positional.name), Roff(positional.description));
    }
  }
  if (!command.flags.empty()) {
    page += ".SH OPTIONS\n";
    for (const FlagDoc& flag : command.flags) {
      std::string names;
      for (const std::string& n : flag.names) names += (names.empty() ? "" : ", ") + Bold(n);
      if (!flag.value.empty()) names += " \\fI" + Roff(flag.value) + "\\fR";
      std::string description = Roff(flag.description);
      if (!flag.choices.empty()) {
        description += "\n.br\nOne of: " + Roff(absl::StrJoin(flag.choices, ", ")) + ".";
      }
      page += fmt::format(".TP\n{}\n{}\n", names, description);
    }
  }
  if (!examples.empty()) page += ".SH EXAMPLES\n" + examples;

  std::vector<std::string> related;
  for (const CommandDoc& other : all) {
    const bool parent = other.path.size() + 1 == command.path.size() &&
                        std::equal(other.path.begin(), other.path.end(), command.path.begin());
    const bool child = other.path.size() == command.path.size() + 1 &&
                       std::equal(command.path.begin(), command.path.end(), other.path.begin());
    if (parent || child) related.push_back(fmt::format("\\fB{}\\fR(1)", ManPageName(other)));
  }
  if (!related.empty()) page += ".SH SEE ALSO\n" + absl::StrJoin(related, ", ") + "\n";
  return page;
}

}  // namespace trainpkg::cli
