// How trainpkg shows text it did not write itself (a job's display name,
// labels, arguments and error messages, a service's replies) on a terminal:
// valid printable UTF-8 is kept, and every byte that a terminal would act on
// (move the cursor, clear the screen, set the title, answer back) is shown as
// a visible escape instead.
//
//   std::cout << TerminalSafe(job.display_name) << "\n";  // "\x1b[2J" stays visible
//
// TP_LOG (log.h) passes every message through it (multi-line). A program's
// own output (replica logs) is not: it is shown as written, like `docker logs`.
#ifndef TRAINPKG_BASE_TERMINAL_TEXT_H_
#define TRAINPKG_BASE_TERMINAL_TEXT_H_

#include <string>
#include <string_view>

namespace trainpkg::base {

enum class TextLayout {
  // A field on one line (a table cell): every control is escaped, '\n' as
  // "\n" and '\t' as "\t" included.
  kOneLine,
  // A message that may span lines: '\n' and '\t' are kept, other controls
  // escaped ('\r' as "\r": it could overwrite what was printed).
  kMultiLine,
  // Text produced by a JSON serializer (nlohmann's dump(), which already
  // escapes C0 controls inside strings): '\n' between tokens is kept, DEL and
  // C1 controls become "\u007f" / "\u0080".."\u009f" and an invalid UTF-8 byte
  // "\ufffd", so the output stays valid JSON with the same values (bar
  // invalid bytes, which JSON cannot carry).
  kJson,
};

// `text` with C0 controls (U+0000-U+001F), DEL (U+007F), C1 controls
// (U+0080-U+009F) and bytes that are not valid UTF-8 (overlong forms,
// surrogates, beyond U+10FFFF, truncated sequences) escaped: "\x1b", "\x7f",
// "\u009b", "\xff" (kJson: "\u001b", "\u007f", "\u009b", "\ufffd"). A
// backslash is kept as it is. The result holds only printable UTF-8 (and
// '\n'/'\t' as `layout` allows), so escaping it again changes nothing.
std::string TerminalSafe(std::string_view text, TextLayout layout = TextLayout::kOneLine);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_TERMINAL_TEXT_H_
