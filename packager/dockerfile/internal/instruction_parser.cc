#include "packager/dockerfile/internal/instruction_parser.h"

#include <map>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "base/closest_match.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "packager/dockerfile/internal/flags.h"
#include "packager/dockerfile/internal/go_duration.h"
#include "packager/dockerfile/internal/heredoc_scan.h"
#include "packager/dockerfile/internal/parse_error.h"
#include "packager/dockerfile/internal/words.h"
#include "packager/dockerfile/port_spec.h"
#include "packager/dockerfile/shell_word.h"

namespace trainpkg::packager::dockerfile::internal {
namespace {

using Flags = std::map<std::string, std::string>;

const std::vector<std::string_view> kKeywords = {
    "ADD",    "ARG",   "CMD",         "COPY",  "ENTRYPOINT", "ENV",
    "EXPOSE", "FROM",  "HEALTHCHECK", "LABEL", "MAINTAINER", "ONBUILD",
    "RUN",    "SHELL", "STOPSIGNAL",  "USER",  "VOLUME",     "WORKDIR"};

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(message); }

// Context every sub-parser needs.
struct Line {
  std::string keyword;  // uppercase
  std::string rest;     // after the keyword and flags
  Flags flags;
  char escape;
  std::vector<Heredoc> heredocs;           // RUN, COPY, ADD (and ONBUILD's trigger)
  std::vector<std::string> heredoc_words;  // as written, e.g. `<<-"EOT"`
};

absl::Status CheckWord(std::string_view word, char escape) {
  absl::Status s = CheckWordSyntax(word, escape);
  if (s.ok()) return s;
  return Invalid(fmt::format("{} in '{}'", std::string(s.message()), word));
}

absl::Status CheckWords(const std::vector<std::string>& words, char escape) {
  for (const std::string& w : words) TP_RETURN_IF_ERROR(CheckWord(w, escape));
  return absl::OkStatus();
}

// The first heredoc of `rest` that starts a word (`<<EOF`, `<<-'EOT'`, found
// with the shell's quoting rules), "" if none: what instructions that take no
// heredocs refuse, rather than reading its body as instructions.
std::string HeredocLikeWord(std::string_view rest) {
  absl::StatusOr<std::vector<HeredocMark>> marks = FindHeredocs(rest);
  if (!marks.ok()) return "";
  for (const HeredocMark& mark : *marks) {
    for (size_t at = rest.find(mark.written); at != std::string_view::npos;
         at = rest.find(mark.written, at + 1)) {
      if (at == 0 || IsSpace(rest[at - 1])) return mark.written;
    }
  }
  return "";
}

// A JSON array of strings when `rest` is one; nullopt when it is not JSON at
// all; an error when it is JSON but not an array of strings.
absl::StatusOr<std::optional<std::vector<std::string>>> ParseJsonArray(std::string_view rest) {
  rest = Trim(rest);
  if (rest.empty() || rest.front() != '[') return std::optional<std::vector<std::string>>();
  nlohmann::json j = base::ParseJson(rest).value_or(nlohmann::json::value_t::discarded);
  if (j.is_discarded() || !j.is_array()) return std::optional<std::vector<std::string>>();
  std::vector<std::string> out;
  for (const nlohmann::json& e : j) {
    if (!e.is_string()) {
      return Invalid(fmt::format(
          "JSON form must be an array of strings, found {}; write e.g. [\"python3\", \"-m\", "
          "\"trainer.task\"]",
          e.dump()));
    }
    out.push_back(e.get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

absl::StatusOr<CommandLine> ParseCommand(const Line& l, std::vector<std::string>& warn) {
  TP_ASSIGN_OR_RETURN(auto json, ParseJsonArray(l.rest));
  if (json) return CommandLine{true, std::move(*json)};
  std::string_view text = Trim(l.rest);
  // Docker's rule: text that is not a valid JSON array is shell form, even
  // when it starts with '['; the warning catches ['a'] written for ["a"].
  if (!text.empty() && text.front() == '[') {
    warn.push_back(fmt::format(
        "{} looks like JSON (exec) form but is not valid JSON, so it runs as a shell command; "
        "use double quotes: [\"a\", \"b\"]",
        l.keyword));
  }
  return CommandLine{false, {std::string(text)}};
}

// JSON array or whitespace-separated words (COPY, ADD, VOLUME).
absl::StatusOr<std::pair<std::vector<std::string>, bool>> ParseList(const Line& l) {
  TP_ASSIGN_OR_RETURN(auto json, ParseJsonArray(l.rest));
  if (json) return std::make_pair(std::move(*json), true);
  return std::make_pair(SplitWhitespace(l.rest), false);
}

absl::StatusOr<InstructionBody> ParseFrom(const Line& l) {
  std::vector<std::string> a = SplitWhitespace(l.rest);
  FromInstruction from;
  if (a.size() == 3 && absl::AsciiStrToLower(a[1]) == "as") {
    from.stage_name = absl::AsciiStrToLower(a[2]);
    bool ok = absl::ascii_islower(static_cast<unsigned char>(from.stage_name[0]));
    for (char c : from.stage_name) {
      ok = ok &&
           (absl::ascii_islower(static_cast<unsigned char>(c)) ||
            absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
    }
    if (!ok) {
      return Invalid(fmt::format(
          "invalid stage name '{}'; a name starts with a letter and has only letters, digits, "
          "'-', '_' and '.'",
          a[2]));
    }
  } else if (a.size() != 1) {
    return Invalid("needs one or three arguments; write FROM [--platform=P] IMAGE [AS NAME]");
  }
  from.image = a[0];
  TP_RETURN_IF_ERROR(CheckWord(from.image, l.escape));
  if (auto it = l.flags.find("platform"); it != l.flags.end()) {
    from.platform = it->second;
    TP_RETURN_IF_ERROR(CheckWord(from.platform, l.escape));
  }
  return from;
}

absl::StatusOr<std::vector<KeyValue>> ParseKeyValues(const Line& l,
                                                     std::vector<std::string>& warn) {
  std::vector<std::string> words = SplitWordsKeepingQuotes(l.rest, l.escape);
  if (words.empty()) {
    return Invalid(fmt::format("needs at least one argument; write {} KEY=VALUE ...", l.keyword));
  }
  std::vector<KeyValue> out;
  if (words[0].find('=') == std::string::npos) {
    // The legacy `ENV KEY VALUE` form: one variable, everything after the
    // first word its value, spaces included.
    std::string_view rest = Trim(l.rest);
    size_t sp = 0;
    while (sp < rest.size() && !IsSpace(rest[sp])) ++sp;
    std::string_view value = Trim(rest.substr(sp));
    if (value.empty()) {
      return Invalid(fmt::format("'{}' has no value; write {} KEY=VALUE (or {} KEY VALUE)",
                                 rest.substr(0, sp), l.keyword, l.keyword));
    }
    warn.push_back(
        fmt::format("legacy '{} KEY VALUE' form; prefer {} KEY=VALUE", l.keyword, l.keyword));
    out.push_back({std::string(rest.substr(0, sp)), std::string(value)});
  } else {
    for (const std::string& w : words) {
      size_t eq = w.find('=');
      if (eq == std::string::npos) {
        return Invalid(fmt::format("can't find '=' in '{}'; write KEY=VALUE", w));
      }
      out.push_back({w.substr(0, eq), w.substr(eq + 1)});
    }
  }
  for (const KeyValue& kv : out) {
    if (kv.key.empty()) {
      return Invalid(fmt::format("{} names can not be blank; write KEY=VALUE", l.keyword));
    }
    TP_RETURN_IF_ERROR(CheckWord(kv.key, l.escape));
    TP_RETURN_IF_ERROR(CheckWord(kv.value, l.escape));
  }
  return out;
}

absl::StatusOr<InstructionBody> ParseArg(const Line& l) {
  std::vector<std::string> words = SplitWordsKeepingQuotes(l.rest, l.escape);
  if (words.empty()) return Invalid("needs at least one argument; write ARG NAME[=DEFAULT] ...");
  ArgInstruction arg;
  for (const std::string& w : words) {
    size_t eq = w.find('=');
    ArgInstruction::Arg a{w.substr(0, eq), std::nullopt};
    if (eq != std::string::npos) a.default_value = w.substr(eq + 1);
    if (a.name.empty()) return Invalid("ARG names can not be blank; write ARG NAME[=DEFAULT]");
    TP_RETURN_IF_ERROR(CheckWord(a.name, l.escape));
    if (a.default_value) TP_RETURN_IF_ERROR(CheckWord(*a.default_value, l.escape));
    arg.args.push_back(std::move(a));
  }
  return arg;
}

bool IsRemoteSource(std::string_view s) {
  return s.substr(0, 7) == "http://" || s.substr(0, 8) == "https://" ||
         s.substr(0, 6) == "git://" || s.substr(0, 4) == "git@";
}

absl::StatusOr<InstructionBody> ParseCopy(const Line& l) {
  CopyInstruction c;
  c.is_add = l.keyword == "ADD";
  TP_ASSIGN_OR_RETURN(auto list, ParseList(l));
  if (list.first.size() < 2) {
    return Invalid(fmt::format(
        "needs at least two arguments (sources and a destination); write {} [--chown=U:G] "
        "[--chmod=MODE]{} SRC... DEST, or the JSON form for paths with spaces",
        l.keyword, c.is_add ? "" : " [--from=STAGE]"));
  }
  c.json_form = list.second;
  c.dest = list.first.back();
  list.first.pop_back();
  std::vector<bool> used(l.heredocs.size(), false);
  for (std::string& word : list.first) {
    size_t h = 0;
    while (h < l.heredocs.size() && (used[h] || l.heredoc_words[h] != word)) ++h;
    if (h == l.heredocs.size()) {
      c.sources.push_back(std::move(word));
      continue;
    }
    used[h] = true;
    c.heredocs.push_back(l.heredocs[h]);
  }
  for (size_t h = 0; h < l.heredocs.size(); ++h) {
    if (used[h]) continue;
    if (l.heredoc_words[h] == c.dest) {
      return Invalid(fmt::format("a heredoc ({}) can't be the destination; write {} {} DEST",
                                 c.dest, l.keyword, c.dest));
    }
    return Invalid(fmt::format(
        "heredoc {} must be a source of its own; write {} <<{} DEST (no blank after <<)",
        l.heredoc_words[h], l.keyword, l.heredocs[h].delimiter));
  }
  for (const auto& [name, value] : l.flags) {
    if (name == "from") c.from = value;
    if (name == "chown") c.chown = value;
    if (name == "chmod") c.chmod = value;
    if (name == "link") c.link = value == "true";
  }
  TP_RETURN_IF_ERROR(CheckWords(c.sources, l.escape));
  TP_RETURN_IF_ERROR(CheckWords({c.dest, c.from, c.chown, c.chmod}, l.escape));
  for (const std::string& s : c.sources) {
    if (IsRemoteSource(s)) {
      return Invalid(fmt::format(
          "remote source '{}' is not supported (trainpkg builds offline); download it in a RUN "
          "step or into the build context and COPY it",
          s));
    }
  }
  return c;
}

absl::StatusOr<std::string> OneString(const Line& l, std::string_view what) {
  std::string_view v = Trim(l.rest);
  if (v.empty()) return Invalid(fmt::format("needs an argument; write {} {}", l.keyword, what));
  TP_RETURN_IF_ERROR(CheckWord(v, l.escape));
  return std::string(v);
}

absl::StatusOr<InstructionBody> ParseExpose(const Line& l) {
  ExposeInstruction e{SplitWhitespace(l.rest)};
  if (e.ports.empty()) return Invalid("needs at least one port; write EXPOSE 8080[/tcp] ...");
  TP_RETURN_IF_ERROR(CheckWords(e.ports, l.escape));
  for (const std::string& p : e.ports) {
    if (p.find('$') == std::string::npos) TP_RETURN_IF_ERROR(ParsePortSpec(p).status());
  }
  return e;
}

absl::StatusOr<InstructionBody> ParseVolume(const Line& l) {
  TP_ASSIGN_OR_RETURN(auto list, ParseList(l));
  if (list.first.empty()) return Invalid("needs at least one path; write VOLUME /data ...");
  for (const std::string& p : list.first) {
    if (Trim(p).empty()) return Invalid("a volume path can not be empty; write VOLUME /data");
  }
  TP_RETURN_IF_ERROR(CheckWords(list.first, l.escape));
  return VolumeInstruction{std::move(list.first)};
}

absl::StatusOr<InstructionBody> ParseShell(const Line& l) {
  TP_ASSIGN_OR_RETURN(auto json, ParseJsonArray(l.rest));
  if (!json) {
    return Invalid("needs the JSON form; write SHELL [\"/bin/bash\", \"-c\"]");
  }
  if (json->empty())
    return Invalid("needs at least one element; write SHELL [\"/bin/sh\", \"-c\"]");
  return ShellInstruction{std::move(*json)};
}

absl::StatusOr<std::chrono::nanoseconds> HealthDuration(const Flags& f, const std::string& name) {
  auto it = f.find(name);
  if (it == f.end()) return std::chrono::nanoseconds(0);
  TP_ASSIGN_OR_RETURN(auto d, ParseGoDuration(it->second));
  // Docker refuses health-check durations under 1ms; 0 means its default.
  if (d != std::chrono::nanoseconds(0) && d < std::chrono::milliseconds(1)) {
    return Invalid(fmt::format("--{}={} is less than 1ms; use 0 for the default or at least 1ms",
                               name, it->second));
  }
  return d;
}

absl::StatusOr<InstructionBody> ParseHealthcheck(const Line& l, std::vector<std::string>& warn) {
  std::string_view rest = Trim(l.rest);
  size_t sp = 0;
  while (sp < rest.size() && !IsSpace(rest[sp])) ++sp;
  std::string type = absl::AsciiStrToUpper(std::string(rest.substr(0, sp)));
  HealthcheckInstruction h;
  if (type == "NONE") {
    if (!Trim(rest.substr(sp)).empty() || !l.flags.empty()) {
      return Invalid("HEALTHCHECK NONE takes no arguments or flags");
    }
    h.none = true;
    return h;
  }
  if (type != "CMD") {
    return Invalid(fmt::format(
        "unknown type '{}'; write HEALTHCHECK [--interval=D --timeout=D --start-period=D "
        "--start-interval=D --retries=N] CMD command, or HEALTHCHECK NONE",
        rest.substr(0, sp)));
  }
  Line cmd = l;
  cmd.rest = std::string(Trim(rest.substr(sp)));
  if (cmd.rest.empty()) return Invalid("missing command after HEALTHCHECK CMD");
  TP_ASSIGN_OR_RETURN(h.test, ParseCommand(cmd, warn));
  TP_ASSIGN_OR_RETURN(h.interval, HealthDuration(l.flags, "interval"));
  TP_ASSIGN_OR_RETURN(h.timeout, HealthDuration(l.flags, "timeout"));
  TP_ASSIGN_OR_RETURN(h.start_period, HealthDuration(l.flags, "start-period"));
  TP_ASSIGN_OR_RETURN(h.start_interval, HealthDuration(l.flags, "start-interval"));
  if (auto it = l.flags.find("retries"); it != l.flags.end()) {
    const std::string& v = it->second;
    // Nine digits at most, so std::stoi cannot overflow.
    bool digits =
        !v.empty() && v.size() < 10 && v.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) {
      return Invalid(fmt::format("--retries={} is not a non-negative integer", v));
    }
    h.retries = std::stoi(v);
  }
  return h;
}

absl::StatusOr<InstructionBody> ParseOnbuild(const Line& l, std::vector<std::string>& warn);

// RUN with heredocs, always shell form: one heredoc alone is the script;
// otherwise the shell gets the line and the here-documents after it.
RunInstruction RunWithHeredocs(const Line& l) {
  RunInstruction run;
  run.heredocs = l.heredocs;
  std::string_view rest = Trim(l.rest);
  if (l.heredocs.size() == 1 && rest == l.heredoc_words[0]) {
    run.script = true;
    run.command = CommandLine{false, {l.heredocs[0].body}};
    return run;
  }
  std::string text(rest);
  text += '\n';
  // The shell gets the here-documents back after the line, each closed by
  // its delimiter, so it reads them as it would in a script.
  for (const Heredoc& h : l.heredocs) text += h.body + h.delimiter + "\n";
  run.command = CommandLine{false, {std::move(text)}};
  return run;
}

// RUN --network: "" (absent), "default" or "none"; BuildKit's "host" needs
// an entitlement trainpkg does not grant.
absl::StatusOr<std::string> RunNetwork(const Line& l) {
  auto it = l.flags.find("network");
  if (it == l.flags.end()) return std::string();
  const std::string& value = it->second;
  if (value == "default" || value == "none") return value;
  if (value == "host") {
    return Invalid(
        "--network=host is not supported: a RUN never shares the host's network in trainpkg "
        "(BuildKit needs the network.host entitlement for it); the default network reaches what "
        "the host reaches except services on its 127.0.0.1");
  }
  return Invalid(
      fmt::format("--network={} is not valid; write --network=default or --network=none", value));
}

std::vector<FlagSpec> AcceptedFlags(const std::string& keyword) {
  if (keyword == "FROM") return {{"platform"}};
  if (keyword == "RUN") return {{"network"}};
  if (keyword == "COPY") return {{"from"}, {"chown"}, {"chmod"}, {"link", true}};
  if (keyword == "ADD") return {{"chown"}, {"chmod"}, {"link", true}};
  if (keyword == "HEALTHCHECK") {
    return {{"interval"}, {"timeout"}, {"start-period"}, {"start-interval"}, {"retries"}};
  }
  return {};
}

absl::StatusOr<InstructionBody> ParseBody(const Line& l, std::vector<std::string>& warn) {
  const std::string& k = l.keyword;
  if (k == "FROM") return ParseFrom(l);
  if (k == "ARG") return ParseArg(l);
  if (k == "ENV") {
    TP_ASSIGN_OR_RETURN(auto kv, ParseKeyValues(l, warn));
    return EnvInstruction{std::move(kv)};
  }
  if (k == "LABEL") {
    TP_ASSIGN_OR_RETURN(auto kv, ParseKeyValues(l, warn));
    return LabelInstruction{std::move(kv)};
  }
  if (k == "COPY" || k == "ADD") return ParseCopy(l);
  if (k == "WORKDIR") {
    TP_ASSIGN_OR_RETURN(auto p, OneString(l, "/path"));
    return WorkdirInstruction{std::move(p)};
  }
  if (k == "USER") {
    TP_ASSIGN_OR_RETURN(auto u, OneString(l, "USER[:GROUP]"));
    return UserInstruction{std::move(u)};
  }
  if (k == "STOPSIGNAL") {
    TP_ASSIGN_OR_RETURN(auto s, OneString(l, "SIGTERM"));
    return StopSignalInstruction{std::move(s)};
  }
  if (k == "MAINTAINER") {
    std::string_view v = Trim(l.rest);
    if (v.empty())
      return Invalid("needs an argument; write LABEL org.opencontainers.image.authors=NAME");
    warn.push_back("MAINTAINER is deprecated; use LABEL org.opencontainers.image.authors=NAME");
    return MaintainerInstruction{std::string(v)};
  }
  if (k == "EXPOSE") return ParseExpose(l);
  if (k == "VOLUME") return ParseVolume(l);
  if (k == "SHELL") return ParseShell(l);
  if (k == "HEALTHCHECK") return ParseHealthcheck(l, warn);
  if (k == "ONBUILD") return ParseOnbuild(l, warn);
  // RUN, CMD, ENTRYPOINT
  if (Trim(l.rest).empty()) {
    return Invalid(
        fmt::format("needs a command; write {} [\"executable\", \"arg\"] or {} command", k, k));
  }
  if (k == "RUN") {
    TP_ASSIGN_OR_RETURN(std::string network, RunNetwork(l));
    RunInstruction run;
    if (!l.heredocs.empty()) {
      run = RunWithHeredocs(l);
    } else {
      TP_ASSIGN_OR_RETURN(run.command, ParseCommand(l, warn));
    }
    run.network = std::move(network);
    return run;
  }
  TP_ASSIGN_OR_RETURN(CommandLine cmd, ParseCommand(l, warn));
  if (k == "CMD") return CmdInstruction{std::move(cmd)};
  return EntrypointInstruction{std::move(cmd)};
}

// Errors carry no location: the caller adds it.
absl::StatusOr<Line> SplitLine(std::string_view text, char escape) {
  CommandSplit split = SplitCommand(text);
  Line l;
  l.keyword = absl::AsciiStrToUpper(split.keyword);
  l.rest = split.rest;
  l.escape = escape;
  bool known = false;
  for (std::string_view k : kKeywords) known = known || k == l.keyword;
  if (!known) {
    std::string near(base::ClosestMatch(split.keyword, kKeywords).value_or(""));
    return Invalid(
        fmt::format("unknown instruction{}; valid instructions: ADD, ARG, CMD, "
                    "COPY, ENTRYPOINT, ENV, EXPOSE, FROM, HEALTHCHECK, LABEL, "
                    "MAINTAINER, ONBUILD, RUN, SHELL, STOPSIGNAL, USER, VOLUME, "
                    "WORKDIR",
                    near.empty() ? "" : fmt::format(" (did you mean {}?)", near)));
  }
  if (l.keyword == "RUN") {
    // Checked before ParseFlags so BuildKit's --mount and --security get a
    // message that says they are not implemented, not "unknown flag".
    for (const std::string& flag : split.flags) {
      if (flag.rfind("--network", 0) == 0) continue;
      return Invalid(
          fmt::format("flag {} is not supported; RUN accepts only --network=default|none in "
                      "trainpkg (--mount and --security are not implemented)",
                      flag));
    }
  }
  absl::StatusOr<Flags> flags = ParseFlags(split.flags, AcceptedFlags(l.keyword));
  if (!flags.ok()) return flags.status();
  l.flags = std::move(*flags);
  if (l.keyword != "RUN" && l.keyword != "COPY" && l.keyword != "ADD" && l.keyword != "ONBUILD") {
    if (std::string word = HeredocLikeWord(l.rest); !word.empty()) {
      return Invalid(fmt::format(
          "heredocs ({}) are only supported in RUN, COPY and ADD; write the text in a COPY "
          "heredoc or a file",
          word));
    }
  }
  return l;
}

absl::StatusOr<InstructionBody> ParseOnbuild(const Line& l, std::vector<std::string>& warn) {
  std::string_view trigger = Trim(l.rest);
  if (trigger.empty()) return Invalid("needs an instruction; write ONBUILD INSTRUCTION ...");
  if (!l.heredocs.empty()) {
    return Invalid(fmt::format(
        "heredocs ({}) in ONBUILD triggers are not supported; put the text in a file of the "
        "build context",
        l.heredoc_words[0]));
  }
  TP_ASSIGN_OR_RETURN(Line inner, SplitLine(trigger, l.escape));
  // The Dockerfile reference: ONBUILD may not chain, nor trigger FROM or
  // MAINTAINER.
  if (inner.keyword == "ONBUILD" || inner.keyword == "FROM" || inner.keyword == "MAINTAINER") {
    return Invalid(fmt::format("{} isn't allowed as an ONBUILD trigger", inner.keyword));
  }
  std::vector<std::string> ignored;
  // Parsed now, so a broken trigger fails this build rather than the later
  // build that would run it.
  TP_RETURN_IF_ERROR(ParseBody(inner, ignored).status());
  warn.push_back("ONBUILD is recorded in the image config and not run in this build");
  return OnbuildInstruction{std::string(trigger)};
}

}  // namespace

absl::StatusOr<Instruction> ParseInstruction(const LogicalLine& line, char escape,
                                             std::string_view path,
                                             std::vector<std::string>& warnings) {
  absl::StatusOr<Line> split = SplitLine(line.text, escape);
  if (!split.ok()) {
    std::string keyword = SplitCommand(line.text).keyword;
    std::string upper = absl::AsciiStrToUpper(keyword);
    bool known = false;
    for (std::string_view k : kKeywords) known = known || k == upper;
    return LineError(path, line.lines, known ? upper : keyword,
                     std::string(split.status().message()));
  }
  Line& l = *split;
  l.heredocs = line.heredocs;
  l.heredoc_words = line.heredoc_words;
  std::vector<std::string> warn;
  absl::StatusOr<InstructionBody> body = ParseBody(l, warn);
  if (!body.ok())
    return LineError(path, line.lines, l.keyword, std::string(body.status().message()));
  for (const std::string& w : warn) {
    warnings.push_back(fmt::format("{}:{}: {}: {}", path, line.lines.first_line, l.keyword, w));
  }
  return Instruction{l.keyword, line.lines, std::move(*body)};
}

}  // namespace trainpkg::packager::dockerfile::internal
