#include "packager/dockerfile/dockerfile.h"

#include <set>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/dockerfile/internal/instruction_parser.h"
#include "packager/dockerfile/internal/logical_lines.h"
#include "packager/dockerfile/internal/parse_error.h"

namespace trainpkg::packager::dockerfile {

absl::StatusOr<Dockerfile> ParseDockerfile(std::string_view text, std::string_view path) {
  TP_ASSIGN_OR_RETURN(internal::LexedDockerfile lexed, internal::SplitLogicalLines(text, path));
  Dockerfile df;
  df.path = std::string(path);
  df.escape = lexed.escape;
  df.syntax = lexed.syntax;
  df.warnings = std::move(lexed.warnings);
  std::set<std::string> stage_names;
  for (const internal::LogicalLine& line : lexed.lines) {
    TP_ASSIGN_OR_RETURN(Instruction instr,
                        internal::ParseInstruction(line, df.escape, path, df.warnings));
    if (const auto* from = std::get_if<FromInstruction>(&instr.body)) {
      if (!from->stage_name.empty() && !stage_names.insert(from->stage_name).second) {
        return internal::LineError(
            path, instr.lines, instr.keyword,
            fmt::format("duplicate stage name '{}'; each AS name must be unique",
                        from->stage_name));
      }
      Stage stage;
      stage.index = static_cast<int>(df.stages.size());
      stage.name = from->stage_name;
      stage.from = std::move(instr);
      df.stages.push_back(std::move(stage));
    } else if (!df.stages.empty()) {
      df.stages.back().instructions.push_back(std::move(instr));
    } else if (std::holds_alternative<ArgInstruction>(instr.body)) {
      df.global_args.push_back(std::move(instr));
    } else {
      return internal::LineError(
          path, instr.lines, instr.keyword,
          "comes before the first FROM; only ARG may come before FROM (start a stage with FROM "
          "IMAGE)");
    }
  }
  if (df.stages.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}; a Dockerfile needs at least one FROM instruction", path,
                    lexed.lines.empty() ? "file with no instructions" : "no FROM instruction"));
  }
  return df;
}

}  // namespace trainpkg::packager::dockerfile
