#include "packager/dockerfile/internal/heredoc_scan.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "fmt/format.h"

namespace trainpkg::packager::dockerfile::internal {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }
bool EndsWord(char c) {
  return IsBlank(c) || std::string_view(";&|<>()").find(c) != std::string_view::npos;
}

// The end of the quote opened at line[pos] (the index after its closing
// quote), or npos when it is never closed.
size_t SkipQuote(std::string_view line, size_t pos) {
  const char quote = line[pos];
  for (size_t i = pos + 1; i < line.size(); ++i) {
    if (quote == '"' && line[i] == '\\') {
      ++i;
    } else if (line[i] == quote) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// The end of the parenthesised text opening at line[open] (after its
// matching ')'), or the end of the line: an arithmetic `$((...))`/`((...))`,
// where `<<` is a shift.
size_t SkipParens(std::string_view line, size_t open) {
  int depth = 0;
  for (size_t i = open; i < line.size(); ++i) {
    if (line[i] == '(') ++depth;
    if (line[i] == ')' && --depth == 0) return i + 1;
  }
  return line.size();
}

// Reads the word at line[pos]; pos ends after it.
absl::StatusOr<HeredocMark> ReadWord(std::string_view line, size_t start, size_t& pos,
                                     HeredocMark mark) {
  while (pos < line.size() && !EndsWord(line[pos])) {
    const char c = line[pos];
    if (c == '\'' || c == '"') {
      size_t end = SkipQuote(line, pos);
      if (end == std::string_view::npos) {
        return absl::InvalidArgumentError(
            fmt::format("the quote in heredoc {} is never closed", line.substr(start)));
      }
      for (size_t i = pos + 1; i + 1 < end; ++i) {
        if (c == '"' && line[i] == '\\' && i + 2 < end) ++i;
        mark.delimiter += line[i];
      }
      // sh's rule: any quoting in the delimiter word leaves the body unexpanded.
      mark.expand = false;
      pos = end;
    } else if (c == '\\') {
      mark.expand = false;
      if (pos + 1 < line.size()) mark.delimiter += line[pos + 1];
      pos += 2;
    } else {
      mark.delimiter += c;
      ++pos;
    }
  }
  if (pos > line.size()) pos = line.size();
  return mark;
}

}  // namespace

absl::StatusOr<std::vector<HeredocMark>> FindHeredocs(std::string_view line) {
  std::vector<HeredocMark> marks;
  bool word_start = true;
  size_t pos = 0;
  while (pos < line.size()) {
    const char c = line[pos];
    // As in sh, '#' starts a comment only at the start of a word ("a#b" is one word).
    if (c == '#' && word_start) break;  // a comment to the end of the line
    if (c == '\'' || c == '"') {
      size_t end = SkipQuote(line, pos);
      if (end == std::string_view::npos) break;  // the shell reports it
      pos = end;
      word_start = false;
      continue;
    }
    if (c == '\\') {
      pos += 2;
      word_start = false;
      continue;
    }
    // Inside arithmetic `<<` is a shift: `$((1 << 2))` opens no heredoc.
    if (line.substr(pos, 3) == "$((" || (word_start && line.substr(pos, 2) == "((")) {
      pos = SkipParens(line, c == '$' ? pos + 1 : pos);
      word_start = false;
      continue;
    }
    if (c != '<' || line.substr(pos, 2) != "<<") {
      word_start = EndsWord(c);
      ++pos;
      continue;
    }
    if (line.substr(pos, 3) == "<<<") {  // a here-string, not a heredoc
      pos += 3;
      word_start = true;
      continue;
    }
    const size_t start = pos;
    HeredocMark mark;
    pos += 2;
    if (pos < line.size() && line[pos] == '-') {
      mark.strip_tabs = true;
      ++pos;
    }
    while (pos < line.size() && IsBlank(line[pos])) ++pos;
    if (pos == line.size() || EndsWord(line[pos])) {  // `<<` with no word: not a heredoc
      word_start = true;
      continue;
    }
    absl::StatusOr<HeredocMark> read = ReadWord(line, start, pos, std::move(mark));
    if (!read.ok()) return read.status();
    if (read->delimiter.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "heredoc {} has an empty delimiter; write e.g. <<EOF", line.substr(start, pos - start)));
    }
    read->written = std::string(line.substr(start, pos - start));
    marks.push_back(*std::move(read));
    word_start = true;
  }
  return marks;
}

bool TakesHeredocs(std::string_view keyword) {
  std::string k = absl::AsciiStrToUpper(std::string(keyword));
  // The instructions BuildKit's parser reads heredocs for.
  return k == "RUN" || k == "COPY" || k == "ADD";
}

}  // namespace trainpkg::packager::dockerfile::internal
