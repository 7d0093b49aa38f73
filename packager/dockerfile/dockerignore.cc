#include "packager/dockerfile/dockerignore.h"

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/dockerfile/internal/words.h"

namespace trainpkg::packager::dockerfile {
namespace {

// Go's path.Clean on a slash-separated path.
std::string CleanPath(std::string_view p) {
  if (p.empty()) return ".";
  const bool rooted = p.front() == '/';
  std::vector<std::string_view> segs;
  while (!p.empty()) {
    size_t slash = p.find('/');
    std::string_view seg = p.substr(0, slash);
    p = slash == std::string_view::npos ? std::string_view() : p.substr(slash + 1);
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (!segs.empty() && segs.back() != "..") {
        segs.pop_back();
      } else if (!rooted) {
        segs.push_back(seg);
      }
      continue;
    }
    segs.push_back(seg);
  }
  std::string out = rooted ? "/" : "";
  for (size_t i = 0; i < segs.size(); ++i) {
    if (i > 0) out += '/';
    out.append(segs[i]);
  }
  return out.empty() ? "." : out;
}

}  // namespace

absl::StatusOr<DockerIgnore::Rule> DockerIgnore::MakeRule(std::string_view pattern) {
  Rule rule;
  std::string p = CleanPath(internal::Trim(pattern));
  if (p.front() == '!') {
    if (p.size() == 1) {
      return absl::InvalidArgumentError(
          "illegal exclusion pattern \"!\"; write !PATTERN to re-include paths");
    }
    rule.exception = true;
    p = p.substr(1);
  }
  TP_ASSIGN_OR_RETURN(rule.glob, internal::GlobPattern::Compile(p));
  rule.text = std::move(p);
  return rule;
}

absl::StatusOr<DockerIgnore> DockerIgnore::Parse(std::string_view text, std::string_view path) {
  DockerIgnore out;
  // As Docker does: a UTF-8 byte order mark (editors on Windows) is dropped.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  int line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    // A comment only with '#' in the first column, before trimming, as Docker
    // reads the file: " #x" is a pattern.
    if (!line.empty() && line.front() == '#') continue;
    std::string_view pattern = internal::Trim(line);
    if (pattern.empty()) continue;
    const bool invert = pattern.front() == '!';
    if (invert) pattern = internal::Trim(pattern.substr(1));
    std::string cleaned;
    if (!pattern.empty()) {
      cleaned = CleanPath(pattern);
      // Patterns are relative to the context root, so "/a" means "a" (Docker's rule).
      if (cleaned.size() > 1 && cleaned.front() == '/') cleaned.erase(0, 1);
    }
    absl::StatusOr<Rule> rule = MakeRule(invert ? "!" + cleaned : cleaned);
    if (!rule.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: {}", path, line_no, std::string(rule.status().message())));
    }
    out.rules_.push_back(std::move(*rule));
  }
  return out;
}

bool DockerIgnore::IsExcluded(std::string_view rel_path) const {
  std::string file = CleanPath(rel_path);
  if (file == "." || file == "/") return false;
  std::vector<std::string_view> parents;  // "a", "a/b", ... (file's ancestors)
  for (size_t i = file.find('/'); i != std::string::npos; i = file.find('/', i + 1)) {
    parents.push_back(std::string_view(file).substr(0, i));
  }
  bool matched = false;
  for (const Rule& rule : rules_) {
    // The last matching rule decides, so a rule that cannot change the verdict
    // so far is skipped; a match on a parent counts, as excluding a directory
    // excludes what is in it.
    if (rule.exception != matched) continue;
    bool match = rule.glob.Matches(file);
    for (size_t i = 0; !match && i < parents.size(); ++i) match = rule.glob.Matches(parents[i]);
    if (match) matched = !rule.exception;
  }
  return matched;
}

bool DockerIgnore::MustWalk(std::string_view rel_dir) const {
  std::string dir = CleanPath(rel_dir);
  for (const Rule& rule : rules_) {
    if (rule.exception && (dir == "." || rule.glob.CouldMatchBeneath(dir))) return true;
  }
  return false;
}

void DockerIgnore::KeepFile(std::string_view rel_path) {
  if (!IsExcluded(rel_path)) return;
  absl::StatusOr<Rule> rule = MakeRule("!" + CleanPath(rel_path));
  if (rule.ok()) rules_.push_back(std::move(*rule));
}

std::vector<std::string> DockerIgnore::patterns() const {
  std::vector<std::string> out;
  for (const Rule& r : rules_) out.push_back(r.exception ? "!" + r.text : r.text);
  return out;
}

}  // namespace trainpkg::packager::dockerfile
