// Variable substitution and quote removal for one Dockerfile word, with the
// rules of BuildKit's shell lexer (frontend/dockerfile/shell):
//   $NAME ${NAME}                 value, "" when unset
//   ${NAME:-word} ${NAME-word}    word when unset or empty / only when unset
//   ${NAME:+word} ${NAME+word}    word when set and non-empty / when set
//   ${NAME:?msg}  ${NAME?msg}     error "NAME: msg" when unset or empty / unset
//   'single quotes'               literal, no expansion
//   "double quotes"               expansion; ESC escapes only " $ and ESC
//   ESC c                         c literally (outside quotes); ESC is `\` or
//                                 the `# escape=` character
//   $ not followed by a name      a literal $
// The words inside ${...} follow the same rules. Not supported (rejected
// with an error naming the modifier): ${NAME#pat} ${NAME%pat} ${NAME/a/b}.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_SHELL_WORD_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_SHELL_WORD_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trainpkg::packager::dockerfile {

// Returns the value of a variable, nullopt when it is not set.
using VarLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The expanded word. InvalidArgument (message without location) for
// unterminated quotes, a missing '}', a bad substitution or a ${NAME?msg}
// whose variable is unset.
absl::StatusOr<std::string> ExpandWord(std::string_view word, const VarLookup& lookup,
                                       char escape = '\\');

// A COPY/ADD heredoc body with an unquoted delimiter, expanded as a shell
// expands a here-document: the `$` forms above are substituted; ESC before
// `$`, ESC or '`' gives that character and ESC before a newline joins the
// lines; quotes and everything else are kept as written. (BuildKit keeps
// quotes too, but does not substitute inside '...' and drops every ESC.)
// Errors: those of ExpandWord() for the `$` forms.
absl::StatusOr<std::string> ExpandHeredocBody(std::string_view body, const VarLookup& lookup,
                                              char escape = '\\');

// The syntax errors of ExpandWord() alone, without looking anything up
// (${NAME?msg} is not checked): used at parse time.
absl::Status CheckWordSyntax(std::string_view word, char escape = '\\');

}  // namespace trainpkg::packager::dockerfile

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_SHELL_WORD_H_
