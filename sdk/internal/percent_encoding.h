// Percent-encoding for URL query strings and application/x-www-form-urlencoded
// bodies (RFC 3986 unreserved characters are kept, every other byte is %XX).
#ifndef TRAINPKG_SDK_INTERNAL_PERCENT_ENCODING_H_
#define TRAINPKG_SDK_INTERNAL_PERCENT_ENCODING_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainpkg::sdk::internal {

std::string PercentEncode(std::string_view text);

// "k1=v1&k2=v2" with both sides encoded, in the given order.
std::string EncodeQuery(const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_PERCENT_ENCODING_H_
