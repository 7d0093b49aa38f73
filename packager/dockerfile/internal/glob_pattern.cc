#include "packager/dockerfile/internal/glob_pattern.h"

#include <functional>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace trainpkg::packager::dockerfile::internal {

GlobPattern::Token GlobPattern::Tok(Kind kind, char literal) {
  Token t;
  t.kind = kind;
  t.literal = literal;
  return t;
}

absl::StatusOr<GlobPattern> GlobPattern::Compile(std::string_view pattern) {
  GlobPattern g;
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(fmt::format("bad pattern '{}': {}", pattern, why));
  };
  size_t i = 0;
  bool simple_rest = true;  // no wildcard after a leading **
  while (i < pattern.size()) {
    char c = pattern[i++];
    if (c == '*') {
      if (i < pattern.size() && pattern[i] == '*') {
        ++i;
        if (i < pattern.size() && pattern[i] == '/') ++i;
        if (i == pattern.size()) {
          g.tokens_.push_back(Tok(Kind::kTail));
        } else {
          g.tokens_.push_back(Tok(Kind::kDoubleStar));
        }
        if (g.tokens_.size() > 1) simple_rest = false;
      } else {
        g.tokens_.push_back(Tok(Kind::kStar));
        simple_rest = false;
      }
    } else if (c == '?') {
      g.tokens_.push_back(Tok(Kind::kQuestion));
      simple_rest = false;
    } else if (c == '\\') {
      if (i == pattern.size()) return bad("it ends with an escape '\\'");
      g.tokens_.push_back(Tok(Kind::kLiteral, pattern[i++]));
      simple_rest = false;
    } else if (c == '[') {
      Token t = Tok(Kind::kClass);
      // '^' negates, as in the filepath.Match syntax Docker's patterns follow.
      if (i < pattern.size() && pattern[i] == '^') {
        t.negated = true;
        ++i;
      }
      while (true) {
        if (i >= pattern.size()) return bad("unterminated character class '['");
        char lo = pattern[i++];
        if (lo == ']') break;
        if (lo == '\\') {
          if (i >= pattern.size()) return bad("unterminated character class '['");
          lo = pattern[i++];
        }
        char hi = lo;
        if (i + 1 < pattern.size() && pattern[i] == '-' && pattern[i + 1] != ']') {
          hi = pattern[i + 1];
          i += 2;
          if (hi == '\\' && i < pattern.size()) hi = pattern[i++];
          if (hi < lo) return bad("character range out of order");
        }
        t.ranges.push_back({lo, hi});
      }
      if (t.ranges.empty()) return bad("empty character class '[]'");
      g.tokens_.push_back(std::move(t));
      simple_rest = false;
    } else {
      g.tokens_.push_back(Tok(Kind::kLiteral, c));
    }
  }
  // moby/patternmatcher's suffix match: `**` followed by no wildcard is a
  // plain ends-with test, so "**.go" matches "a/b.go".
  if (pattern.substr(0, 2) == "**" && simple_rest) {
    g.suffix_mode_ = true;
    g.suffix_ = std::string(pattern.substr(2));
  }
  return g;
}

bool GlobPattern::ClassMatches(const Token& t, char c) const {
  bool in = false;
  for (const Range& r : t.ranges) in = in || (c >= r.lo && c <= r.hi);
  return in != t.negated;
}

bool GlobPattern::Match(std::string_view path, bool prefix) const {
  const size_t nt = tokens_.size();
  const size_t np = path.size();
  // Memoised on (token, position): many stars against a long path stay
  // O(tokens * path) instead of backtracking exponentially.
  std::vector<signed char> memo((nt + 1) * (np + 1), -1);
  std::function<bool(size_t, size_t)> go = [&](size_t t, size_t p) -> bool {
    signed char& m = memo[t * (np + 1) + p];
    if (m >= 0) return m != 0;
    bool r = false;
    if (prefix && p == np && t < nt) {
      r = true;
    } else if (t == nt) {
      r = p == np;
    } else {
      const Token& tok = tokens_[t];
      switch (tok.kind) {
        case Kind::kLiteral:
          r = p < np && path[p] == tok.literal && go(t + 1, p + 1);
          break;
        case Kind::kQuestion:
          r = p < np && path[p] != '/' && go(t + 1, p + 1);
          break;
        case Kind::kClass:
          r = p < np && ClassMatches(tok, path[p]) && go(t + 1, p + 1);
          break;
        case Kind::kStar:
          // '*' and '?' never cross a '/': only `**` spans directories.
          r = go(t + 1, p) || (p < np && path[p] != '/' && go(t, p + 1));
          break;
        case Kind::kTail:
          r = true;
          break;
        case Kind::kDoubleStar:
          r = go(t + 1, p);
          for (size_t q = p; !r && q < np; ++q) {
            if (path[q] == '/') r = go(t + 1, q + 1);
          }
          if (prefix && !r) r = true;  // the path may end inside the `**`
          break;
      }
    }
    m = r ? 1 : 0;
    return r;
  };
  return go(0, 0);
}

bool GlobPattern::Matches(std::string_view path) const {
  if (suffix_mode_) {
    if (path.ends_with(suffix_)) return true;
    return !suffix_.empty() && suffix_[0] == '/' && path == std::string_view(suffix_).substr(1);
  }
  return Match(path, /*prefix=*/false);
}

bool GlobPattern::CouldMatchBeneath(std::string_view dir) const {
  if (suffix_mode_) return true;
  return Match(std::string(dir) + "/", /*prefix=*/true);
}

}  // namespace trainpkg::packager::dockerfile::internal
