#include "packager/dockerfile/change_instruction.h"

#include <set>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/dockerfile/internal/instruction_parser.h"
#include "packager/dockerfile/internal/logical_lines.h"

namespace trainpkg::packager::dockerfile {
namespace {

constexpr std::string_view kAllowed =
    "CMD, ENTRYPOINT, ENV, EXPOSE, LABEL, ONBUILD, STOPSIGNAL, USER, VOLUME, WORKDIR";

absl::StatusOr<Instruction> Parse(std::string_view text) {
  TP_ASSIGN_OR_RETURN(internal::LexedDockerfile lexed,
                      internal::SplitLogicalLines(text, "--change"));
  if (lexed.lines.empty()) return absl::InvalidArgumentError("no instruction");
  if (lexed.lines.size() > 1) {
    return absl::InvalidArgumentError("more than one instruction; give each its own --change");
  }
  std::vector<std::string> warnings;
  TP_ASSIGN_OR_RETURN(
      Instruction instr,
      internal::ParseInstruction(lexed.lines.front(), lexed.escape, "--change", warnings));
  // Instructions that only edit the config: a change adds no layer and runs
  // no build step.
  static const std::set<std::string, std::less<>> kChangeKeywords = {
      "CMD",     "ENTRYPOINT", "ENV",  "EXPOSE", "LABEL",
      "ONBUILD", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR"};
  if (kChangeKeywords.count(instr.keyword) == 0) {
    return absl::InvalidArgumentError(
        fmt::format("{} cannot be a change; the changes are {}", instr.keyword, kAllowed));
  }
  return instr;
}

}  // namespace

absl::StatusOr<Instruction> ParseChangeInstruction(std::string_view text) {
  absl::StatusOr<Instruction> instr = Parse(text);
  if (!instr.ok()) {
    // The parser's "--change:LINE: " prefix says nothing here.
    std::string message(instr.status().message());
    if (message.starts_with("--change:")) {
      const size_t colon = message.find(": ");
      if (colon != std::string::npos) message.erase(0, colon + 2);
    }
    return absl::InvalidArgumentError(fmt::format("--change \"{}\": {}", text, message));
  }
  return instr;
}

}  // namespace trainpkg::packager::dockerfile
