#include "trainer_runtime/train/internal/python_format.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "fmt/format.h"

namespace trainpkg::train::internal {

std::string PythonFloatRepr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  // Shortest round-trip digits, as d.ddde±x.
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof(buf), std::abs(value), std::chars_format::scientific);
  const std::string_view text(buf, static_cast<size_t>(end - buf));
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  const int decpt = exponent + 1;  // digits before the decimal point
  const int n = static_cast<int>(digits.size());
  std::string out = std::signbit(value) ? "-" : "";
  // CPython's float repr (PyOS_double_to_string, mode 'r'): positional while
  // -4 < decpt <= 16, else scientific with at least two exponent digits
  // ("1e-05", "1e+16"); integral values keep ".0".
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
    } else if (decpt >= n) {
      out += digits + std::string(static_cast<size_t>(decpt - n), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<size_t>(decpt)) + "." +
             digits.substr(static_cast<size_t>(decpt));
    }
  } else {
    out += digits.substr(0, 1);
    if (n > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
  }
  return out;
}

namespace {

// Decodes one UTF-8 sequence at s[i]; advances i. 0xFFFD for invalid bytes.
uint32_t NextCodePoint(std::string_view s, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  int extra = 0;
  uint32_t cp = 0;
  if (lead < 0x80) {
    ++i;
    return lead;
  } else if ((lead & 0xE0) == 0xC0) {
    extra = 1, cp = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2, cp = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3, cp = lead & 0x07;
  } else {
    ++i;
    return 0xFFFD;
  }
  if (i + static_cast<size_t>(extra) >= s.size()) {
    ++i;
    return 0xFFFD;
  }
  for (int k = 1; k <= extra; ++k) {
    if ((byte(i + static_cast<size_t>(k)) & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (byte(i + static_cast<size_t>(k)) & 0x3F);
  }
  i += static_cast<size_t>(extra) + 1;
  return cp;
}

}  // namespace

std::string PythonJsonString(std::string_view utf8) {
  std::string out = "\"";
  for (size_t i = 0; i < utf8.size();) {
    const uint32_t cp = NextCodePoint(utf8, i);
    switch (cp) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (cp < 0x20 || cp > 0x7E) {  // Python escapes all but ' '..'~'
          // Beyond the BMP json.dumps writes a UTF-16 surrogate pair: a JSON
          // escape holds only four hex digits.
          if (cp >= 0x10000) {
            const uint32_t v = cp - 0x10000;
            out += fmt::format("\\u{:04x}\\u{:04x}", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
          } else {
            out += fmt::format("\\u{:04x}", cp);
          }
        } else {
          out.push_back(static_cast<char>(cp));
        }
    }
  }
  out += "\"";
  return out;
}

}  // namespace trainpkg::train::internal
