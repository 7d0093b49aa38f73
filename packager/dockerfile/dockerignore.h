// .dockerignore with Docker's rules (moby/patternmatcher + ignorefile):
//   - lines starting with '#' are comments; surrounding blanks are trimmed;
//     blank lines are skipped; a UTF-8 BOM is dropped;
//   - each pattern is cleaned (duplicate '/', '.' and '..' resolved, trailing
//     '/' dropped) and a leading '/' removed: patterns are relative to the
//     context root;
//   - `*` `?` `[...]` `\` and `**` as in internal/glob_pattern.h;
//   - `!pattern` re-includes; for each path the last matching pattern wins;
//   - a pattern that matches a directory excludes everything beneath it
//     (unless a later `!` pattern re-includes it).
// The Dockerfile and .dockerignore are read by the build whatever the
// patterns say; KeepFile() reproduces `docker build`'s rule of still sending
// them in the context.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_DOCKERIGNORE_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_DOCKERIGNORE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/dockerfile/internal/glob_pattern.h"

namespace trainpkg::packager::dockerfile {

// Immutable after construction except KeepFile(); const methods are safe to
// call from several threads.
class DockerIgnore {
 public:
  // InvalidArgument "path:line: ..." for a lone "!" or a bad pattern (an
  // unterminated or empty character class, a trailing '\').
  static absl::StatusOr<DockerIgnore> Parse(std::string_view text,
                                            std::string_view path = ".dockerignore");

  // Whether `rel_path` (slash-separated, relative to the context root) is
  // left out of the context. The root itself ("" or ".") never is.
  bool IsExcluded(std::string_view rel_path) const;

  // For an excluded directory: whether some `!` pattern may re-include a path
  // beneath it, so the walk must still descend into it.
  bool MustWalk(std::string_view rel_dir) const;

  // Appends "!rel_path" when `rel_path` would be excluded.
  void KeepFile(std::string_view rel_path);

  // The cleaned patterns, '!' kept, in file order.
  std::vector<std::string> patterns() const;

 private:
  struct Rule {
    std::string text;  // cleaned, without '!'
    bool exception = false;
    internal::GlobPattern glob;
  };
  static absl::StatusOr<Rule> MakeRule(std::string_view pattern);

  std::vector<Rule> rules_;
};

}  // namespace trainpkg::packager::dockerfile

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_DOCKERIGNORE_H_
