#include "sdk/internal/percent_encoding.h"

#include "absl/strings/ascii.h"

namespace trainpkg::sdk::internal {

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    // RFC 3986's unreserved characters pass; everything else is encoded, so a
    // value never changes a query's structure.
    if (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
        c == '~') {
      out.push_back(c);
    } else {
      auto byte = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xF]);
    }
  }
  return out;
}

std::string EncodeQuery(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out.push_back('&');
    out += PercentEncode(name) + "=" + PercentEncode(value);
  }
  return out;
}

}  // namespace trainpkg::sdk::internal
