// Parsing a Dockerfile into stages of typed instructions.
//
//   auto df = ParseDockerfile(text, "Dockerfile");
//   // df->global_args: ARGs before the first FROM; df->stages[i].from, .instructions
//
// Supported: parser directives (`# syntax=`, `# escape=` with `\` or `` ` ``,
// only before anything else, case-insensitive), comments, line continuations
// (comment and blank lines inside a continuation are skipped as BuildKit
// does; blank ones produce a warning), exec (JSON) and shell forms, every
// instruction of instruction.h, and heredocs (`<<EOF`, `<<-EOT`, quoted
// delimiters, several per line) in RUN, COPY and ADD (see Heredoc). `RUN`
// flags (--mount/--network/--security), `ADD` of remote URLs and `COPY
// --parents / --exclude` are rejected with an error naming the line.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_DOCKERFILE_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_DOCKERFILE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/dockerfile/instruction.h"

namespace trainpkg::packager::dockerfile {

struct Stage {
  int index = 0;
  std::string name;                       // lowercased `AS` name, "" if none
  Instruction from;                       // body is FromInstruction
  std::vector<Instruction> instructions;  // after FROM, in order
};

struct Dockerfile {
  std::string path;                      // as given to ParseDockerfile, used in errors
  char escape = '\\';                    // from `# escape=`
  std::string syntax;                    // from `# syntax=`, "" if absent (recorded only)
  std::vector<Instruction> global_args;  // ARGs before the first FROM
  std::vector<Stage> stages;             // at least one
  std::vector<std::string> warnings;     // "path:line: text", never printed
};

// Parses `text`. Errors are InvalidArgument "PATH:LINE: INSTRUCTION: what was
// wrong; what is valid" (e.g. unknown instruction with a did-you-mean, an
// unknown flag with the flags the instruction accepts, missing arguments,
// bad JSON form, unterminated quotes, duplicate stage names).
absl::StatusOr<Dockerfile> ParseDockerfile(std::string_view text, std::string_view path);

}  // namespace trainpkg::packager::dockerfile

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_DOCKERFILE_H_
