#include "base/terminal_text.h"

#include <cstdint>

#include "base/utf8.h"
#include "fmt/format.h"

namespace trainpkg::base {
namespace {

void AppendControl(std::string& out, unsigned char c, TextLayout layout) {
  if (layout == TextLayout::kJson) {
    out += fmt::format("\\u{:04x}", c);
    return;
  }
  switch (c) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      out += fmt::format("\\x{:02x}", c);
  }
}

}  // namespace

std::string TerminalSafe(std::string_view text, TextLayout layout) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const unsigned char c = static_cast<unsigned char>(text[0]);
    const size_t length = Utf8SequenceLength(text);
    if (length == 0) {
      out += layout == TextLayout::kJson ? std::string("\\ufffd") : fmt::format("\\x{:02x}", c);
      text.remove_prefix(1);
      continue;
    }
    if (length == 1 && (c < 0x20 || c == 0x7F)) {
      const bool kept = (c == '\n' && layout != TextLayout::kOneLine) ||
                        (c == '\t' && layout == TextLayout::kMultiLine);
      if (kept) {
        out += static_cast<char>(c);
      } else {
        AppendControl(out, c, layout);
      }
    } else if (length == 2 && c == 0xC2 && static_cast<unsigned char>(text[1]) <= 0x9F) {
      // U+0080..U+009F: C1 controls (0x9B is CSI on terminals that take them).
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[1]));
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length);
  }
  return out;
}

}  // namespace trainpkg::base
