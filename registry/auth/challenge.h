// WWW-Authenticate challenges (RFC 7235 §4.1, RFC 6750 §3) as registries send
// them: `Bearer realm="https://auth.docker.io/token",service="registry.docker.io",
// scope="repository:a:pull,push"` or `Basic realm="basic-realm"`.
#ifndef TRAINPKG_REGISTRY_AUTH_CHALLENGE_H_
#define TRAINPKG_REGISTRY_AUTH_CHALLENGE_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trainpkg::registry {

struct Challenge {
  std::string scheme;                         // lower case: "bearer", "basic"
  std::map<std::string, std::string> params;  // names lower case; values unquoted

  // The value of `name`, or "".
  std::string Param(const std::string& name) const;
};

// Parses one header value, which may hold several comma-separated challenges.
// Quoted values keep commas and spaces and lose their backslash escapes.
// Malformed trailing text is ignored: what parsed before it is returned.
std::vector<Challenge> ParseChallenges(std::string_view header);

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_AUTH_CHALLENGE_H_
