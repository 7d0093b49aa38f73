#include "packager/dockerfile/internal/logical_lines.h"

#include <optional>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "fmt/format.h"
#include "packager/dockerfile/internal/heredoc_scan.h"

namespace trainpkg::packager::dockerfile::internal {
namespace {

bool IsBlankChar(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && IsBlankChar(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsBlankChar(s.back())) s.remove_suffix(1);
  return s;
}

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnum(char c) { return IsAlpha(c) || (c >= '0' && c <= '9'); }

struct Directive {
  std::string key;  // lowercased
  std::string value;
};

// `#` blanks NAME blanks `=` blanks VALUE (VALUE non-empty, trailing blanks
// dropped); NAME is a letter then letters/digits.
std::optional<Directive> MatchDirective(std::string_view line) {
  if (line.empty() || line.front() != '#') return std::nullopt;
  line = TrimLeft(line.substr(1));
  size_t n = 0;
  if (line.empty() || !IsAlpha(line[0])) return std::nullopt;
  while (n < line.size() && IsAlnum(line[n])) ++n;
  std::string key = absl::AsciiStrToLower(std::string(line.substr(0, n)));
  line = TrimLeft(line.substr(n));
  if (line.empty() || line.front() != '=') return std::nullopt;
  std::string_view value = TrimRight(TrimLeft(line.substr(1)));
  if (value.empty()) return std::nullopt;
  return Directive{std::move(key), std::string(value)};
}

class DirectiveReader {
 public:
  DirectiveReader(std::string_view path, LexedDockerfile& out) : path_(path), out_(out) {}

  // Reads `line` (left-trimmed) as a directive while directives may still
  // appear; the first line that is not a known directive ends them.
  absl::Status Read(std::string_view line, int line_no) {
    if (done_) return absl::OkStatus();
    std::optional<Directive> d = MatchDirective(line);
    // BuildKit's rule: directives count only at the very top; any other line,
    // even a comment, ends them and later ones are plain comments.
    if (!d || (d->key != "escape" && d->key != "syntax" && d->key != "check")) {
      done_ = true;
      return absl::OkStatus();
    }
    if (!seen_.insert(d->key).second) {
      return absl::InvalidArgumentError(fmt::format(
          "{}:{}: only one '{}' parser directive can be used; directives go once, at the top",
          path_, line_no, d->key));
    }
    if (d->key == "escape") {
      if (d->value != "\\" && d->value != "`") {
        return absl::InvalidArgumentError(fmt::format(
            "{}:{}: invalid escape token '{}'; valid: \\ or `", path_, line_no, d->value));
      }
      out_.escape = d->value[0];
    } else if (d->key == "syntax") {
      out_.syntax = d->value;
    }
    return absl::OkStatus();
  }

 private:
  std::string_view path_;
  LexedDockerfile& out_;
  bool done_ = false;
  std::set<std::string> seen_;
};

bool IsComment(std::string_view raw) {
  std::string_view t = TrimLeft(raw);
  return !t.empty() && t.front() == '#';
}

// Removes a trailing escape (plus blanks after it); true when one was there.
bool TrimContinuation(std::string& line, char escape) {
  size_t end = line.size();
  while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
  if (end == 0 || line[end - 1] != escape) return false;
  line.resize(end - 1);
  return true;
}

std::vector<std::string_view> PhysicalLines(std::string_view text) {
  std::vector<std::string_view> lines;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    // CRLF files (Windows checkouts) read as LF ones.
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

// The first blank-separated word of `s` and what follows it.
std::pair<std::string_view, std::string_view> FirstWord(std::string_view s) {
  s = TrimLeft(s);
  size_t end = 0;
  while (end < s.size() && !IsBlankChar(s[end])) ++end;
  return {s.substr(0, end), s.substr(end)};
}

std::string_view TrimTabs(std::string_view s) {
  while (!s.empty() && s.front() == '\t') s.remove_prefix(1);
  return s;
}

// Reads the bodies of the heredocs on `line` from physical[i...], advancing
// `i` past each delimiter line. BuildKit's rules: a body ends at the first
// line equal to the delimiter (after leading tabs are dropped, for <<-).
absl::Status ReadHeredocs(const std::vector<std::string_view>& physical, size_t& i,
                          std::string_view path, LogicalLine& line) {
  auto [keyword, rest] = FirstWord(line.text);
  std::string shown = absl::AsciiStrToUpper(std::string(keyword));
  if (shown == "ONBUILD") keyword = FirstWord(rest).first;
  if (!TakesHeredocs(keyword) || line.text.find("<<") == std::string::npos) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<HeredocMark>> marks = FindHeredocs(line.text);
  if (!marks.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}:{}: {}: {}", path, line.lines.first_line,
                                                  shown, std::string(marks.status().message())));
  }
  for (HeredocMark& mark : *marks) {
    Heredoc doc;
    doc.delimiter = mark.delimiter;
    doc.strip_tabs = mark.strip_tabs;
    doc.expand = mark.expand;
    doc.lines.first_line = static_cast<int>(i) + 1;
    bool terminated = false;
    while (i < physical.size()) {
      std::string_view raw = physical[i++];
      std::string_view text = mark.strip_tabs ? TrimTabs(raw) : raw;
      if (text == mark.delimiter) {
        terminated = true;
        break;
      }
      doc.body.append(text);
      doc.body += '\n';
    }
    if (!terminated) {
      return absl::InvalidArgumentError(fmt::format(
          "{}:{}: {}: heredoc {} is never terminated; end it with a line holding only {}", path,
          line.lines.first_line, shown, mark.written, mark.delimiter));
    }
    doc.lines.last_line = static_cast<int>(i);
    line.lines.last_line = doc.lines.last_line;
    line.heredocs.push_back(std::move(doc));
    line.heredoc_words.push_back(std::move(mark.written));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LexedDockerfile> SplitLogicalLines(std::string_view text, std::string_view path) {
  LexedDockerfile out;
  DirectiveReader directives(path, out);
  std::vector<std::string_view> physical = PhysicalLines(text);
  size_t i = 0;
  while (i < physical.size()) {
    const int first = static_cast<int>(i) + 1;
    std::string_view start = TrimLeft(physical[i]);
    if (absl::Status s = directives.Read(start, first); !s.ok()) return s;
    ++i;
    if (!start.empty() && start.front() == '#') continue;
    std::string line(start);
    bool continues = TrimContinuation(line, out.escape);
    if (!continues && TrimLeft(line).empty()) continue;
    bool empty_continuation = false;
    while (continues && i < physical.size()) {
      std::string_view raw = physical[i];
      if (absl::Status s = directives.Read(TrimLeft(raw), static_cast<int>(i) + 1); !s.ok()) {
        return s;
      }
      ++i;
      // Docker drops comment lines inside a continuation before joining, so a
      // commented-out line in a long RUN does not end the instruction.
      if (IsComment(raw)) continue;
      if (TrimLeft(raw).empty()) {
        empty_continuation = true;
        continue;
      }
      std::string next(raw);
      continues = TrimContinuation(next, out.escape);
      line += next;
    }
    const int last = static_cast<int>(i);
    if (empty_continuation) {
      out.warnings.push_back(fmt::format(
          "{}:{}: empty continuation line (Docker will make this an error); remove the blank "
          "line or the trailing escape before it",
          path, first));
    }
    if (TrimLeft(line).empty()) continue;
    LogicalLine logical{std::move(line), {first, last}, {}, {}};
    if (absl::Status s = ReadHeredocs(physical, i, path, logical); !s.ok()) return s;
    out.lines.push_back(std::move(logical));
  }
  return out;
}

}  // namespace trainpkg::packager::dockerfile::internal
