// Fuzz target: any bytes as a WWW-Authenticate header value through
// ParseChallenges and the scope merge that consumes a challenge's scope.
// Must never crash or trip a sanitizer; every parsed challenge has a
// lower-case scheme and lower-case parameter names.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/check.h"
#include "registry/auth/challenge.h"
#include "registry/auth/scope.h"

namespace {

bool IsLower(const std::string& s) {
  for (char c : s) {
    if (std::isupper(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::registry;
  std::string_view header(reinterpret_cast<const char*>(data), size);
  std::vector<Challenge> challenges = ParseChallenges(header);
  for (const Challenge& c : challenges) {
    TP_CHECK(!c.scheme.empty() && IsLower(c.scheme), "scheme '{}' from '{}'", c.scheme,
             std::string(header));
    for (const auto& [name, value] : c.params) {
      TP_CHECK(IsLower(name), "parameter name '{}' from '{}'", name, std::string(header));
    }
    std::vector<std::string> requested = PushScopes("team/app", {"base/img"});
    std::vector<std::string> merged = MergeScopes(requested, c.Param("scope"));
    TP_CHECK(merged.size() >= requested.size(), "merging '{}' dropped requested scopes",
             c.Param("scope"));
  }
  return 0;
}
