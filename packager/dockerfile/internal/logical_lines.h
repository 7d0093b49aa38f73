// Splits Dockerfile text into logical lines: parser directives read, comments
// dropped, continuations joined (BuildKit's rules, see logical_lines.cc), and
// the here-documents of RUN, COPY and ADD (ONBUILD's trigger included) read
// from the lines that follow.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_LOGICAL_LINES_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_LOGICAL_LINES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/dockerfile/instruction.h"

namespace trainpkg::packager::dockerfile::internal {

struct LogicalLine {
  std::string text;   // continuation characters removed, lines concatenated
  SourceRange lines;  // through the last heredoc's delimiter line
  std::vector<Heredoc> heredocs;
  std::vector<std::string> heredoc_words;  // each heredoc's operator and word as on the line
};

struct LexedDockerfile {
  char escape = '\\';
  std::string syntax;
  std::vector<LogicalLine> lines;
  std::vector<std::string> warnings;  // "path:line: text"
};

// InvalidArgument "path:line: ..." for a bad or repeated directive, and
// "path:line: KEYWORD: heredoc <<EOF is never terminated; ..." (or a bad
// heredoc word) naming the instruction's first line.
absl::StatusOr<LexedDockerfile> SplitLogicalLines(std::string_view text, std::string_view path);

}  // namespace trainpkg::packager::dockerfile::internal

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_LOGICAL_LINES_H_
