#include "base/utf8.h"

namespace trainpkg::base {
namespace {

bool InRange(unsigned char c, unsigned char lo, unsigned char hi) { return c >= lo && c <= hi; }

}  // namespace

size_t Utf8SequenceLength(std::string_view text) {
  if (text.empty()) return 0;
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

std::optional<size_t> FirstInvalidUtf8(std::string_view text) {
  size_t offset = 0;
  while (offset < text.size()) {
    const size_t length = Utf8SequenceLength(text.substr(offset));
    if (length == 0) return offset;
    offset += length;
  }
  return std::nullopt;
}

}  // namespace trainpkg::base
