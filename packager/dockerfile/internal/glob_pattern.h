// One .dockerignore pattern, matched as moby/patternmatcher does: `*` and `?`
// never match '/', `**` matches any number of directories (also none),
// `[...]` is a character class (`^` negates), `\` escapes; a pattern that
// starts with `**` and has no other wildcard matches any path ending with the
// rest; otherwise the whole path must match.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_GLOB_PATTERN_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_GLOB_PATTERN_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::packager::dockerfile::internal {

class GlobPattern {
 public:
  // `pattern` is already cleaned (no leading '/', no '.' segments).
  // InvalidArgument for an unterminated or empty class or a trailing '\'.
  static absl::StatusOr<GlobPattern> Compile(std::string_view pattern);

  bool Matches(std::string_view path) const;
  // Whether the pattern may match some path strictly beneath directory `dir`
  // (conservative: true when unsure).
  bool CouldMatchBeneath(std::string_view dir) const;

 private:
  enum class Kind { kLiteral, kStar, kQuestion, kDoubleStar, kTail, kClass };
  struct Range {
    char lo, hi;
  };
  struct Token {
    Kind kind = Kind::kLiteral;
    char literal = 0;
    bool negated = false;
    std::vector<Range> ranges;
  };

  static Token Tok(Kind kind, char literal = 0);
  bool ClassMatches(const Token& t, char c) const;
  // Matches path[p..] with tokens[t..]; `prefix`: succeed as soon as the path
  // is used up while tokens remain.
  bool Match(std::string_view path, bool prefix) const;

  std::vector<Token> tokens_;
  bool suffix_mode_ = false;
  std::string suffix_;
};

}  // namespace trainpkg::packager::dockerfile::internal

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_GLOB_PATTERN_H_
