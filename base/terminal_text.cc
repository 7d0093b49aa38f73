#include "base/terminal_text.h"

#include <cstdint>

#include "fmt/format.h"

namespace trainpkg::base {
namespace {

bool InRange(unsigned char c, unsigned char lo, unsigned char hi) { return c >= lo && c <= hi; }

// The length of the valid UTF-8 sequence at the start of `text`, or 0 when
// its first byte does not start one (RFC 3629: no overlong forms, no
// surrogates, nothing beyond U+10FFFF).
size_t Utf8SequenceLength(std::string_view text) {
  const auto at = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = at(0);
  size_t length = 0;
  unsigned char second_lo = 0x80, second_hi = 0xBF;
  if (lead < 0x80) return 1;
  if (InRange(lead, 0xC2, 0xDF)) {
    length = 2;
  } else if (InRange(lead, 0xE0, 0xEF)) {
    length = 3;
    if (lead == 0xE0) second_lo = 0xA0;
    if (lead == 0xED) second_hi = 0x9F;
  } else if (InRange(lead, 0xF0, 0xF4)) {
    length = 4;
    if (lead == 0xF0) second_lo = 0x90;
    if (lead == 0xF4) second_hi = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length || !InRange(at(1), second_lo, second_hi)) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (!InRange(at(i), 0x80, 0xBF)) return 0;
  }
  return length;
}

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
