// Finding here-document operators (`<<EOF`, `<<-"EOT"`) on a RUN, COPY or
// ADD line, as a POSIX shell finds them, so that the lines the Dockerfile
// parser takes as a body are the ones the shell would read.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_HEREDOC_SCAN_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_HEREDOC_SCAN_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::packager::dockerfile::internal {

struct HeredocMark {
  std::string written;    // the operator and its word as on the line: `<<-"EOT"`
  std::string delimiter;  // the word with quotes and backslashes removed
  bool strip_tabs = false;
  bool expand = true;  // no part of the word was quoted
};

// The heredoc operators of `line`, in order: an unquoted `<<` or `<<-` (not
// `<<<`), optional blanks, then a word that ends at an unquoted blank or one
// of ;&|<>(); '...' and "..." quote, `\` escapes one character. Quotes
// elsewhere on the line are skipped as the shell skips them, and so is
// arithmetic (`$((1 << 4))`, `(( x <<= 1 ))`); a word starting with '#' (a
// shell comment) ends the scan. An operator with no word is not
// a heredoc. InvalidArgument (no location) for a word whose quote is never
// closed or whose delimiter is empty.
absl::StatusOr<std::vector<HeredocMark>> FindHeredocs(std::string_view line);

// Whether `keyword` (any case) takes heredocs: RUN, COPY, ADD.
bool TakesHeredocs(std::string_view keyword);

}  // namespace trainpkg::packager::dockerfile::internal

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_HEREDOC_SCAN_H_
