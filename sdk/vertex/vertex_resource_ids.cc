#include "sdk/vertex/vertex_resource_ids.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trainpkg::sdk::vertex {
namespace {

bool IsLowerOrDigit(char c) { return absl::ascii_islower(c) || absl::ascii_isdigit(c); }

// A project id without a domain: [a-z]([a-z0-9-]*[a-z0-9])?, <= 30 characters.
bool IsProjectId(std::string_view id) {
  return !id.empty() && id.size() <= kMaxProjectIdLength && absl::ascii_islower(id.front()) &&
         id.back() != '-' &&
         std::all_of(id.begin(), id.end(), [](char c) { return IsLowerOrDigit(c) || c == '-'; });
}

// The domain of a domain-scoped project id: lowercase DNS name characters.
bool IsDomain(std::string_view domain) {
  return !domain.empty() && domain.size() <= 253 && IsLowerOrDigit(domain.front()) &&
         IsLowerOrDigit(domain.back()) && std::all_of(domain.begin(), domain.end(), [](char c) {
           return IsLowerOrDigit(c) || c == '-' || c == '.';
         });
}

bool IsProjectNumber(std::string_view number) {
  return !number.empty() && number.size() <= 20 &&
         std::all_of(number.begin(), number.end(), [](char c) { return absl::ascii_isdigit(c); });
}

// The value as a C-escaped, quoted string, cut at 80 bytes.
std::string Quoted(std::string_view value) {
  constexpr size_t kShown = 80;
  return absl::StrCat(
      "\"", absl::CHexEscape(absl::string_view(value.data(), std::min(value.size(), kShown))), "\"",
      value.size() > kShown ? "..." : "");
}

}  // namespace

absl::Status ValidateVertexLocation(std::string_view location) {
  const bool valid = !location.empty() && location.size() <= kMaxLocationLength &&
                     std::all_of(location.begin(), location.end(),
                                 [](char c) { return IsLowerOrDigit(c) || c == '-'; });
  if (valid) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s is not a Vertex AI region: expected lowercase letters, digits and '-', at most %d "
      "characters (e.g. us-central1); it becomes part of the API host name",
      Quoted(location), kMaxLocationLength));
}

absl::Status ValidateVertexProject(std::string_view project) {
  const size_t colon = project.find(':');
  const bool valid = IsProjectNumber(project) || IsProjectId(project) ||
                     (colon != std::string_view::npos && IsDomain(project.substr(0, colon)) &&
                      IsProjectId(project.substr(colon + 1)));
  if (valid) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      Quoted(project),
      " is not a Google Cloud project id or number: expected a lowercase letter, then lowercase "
      "letters, digits or '-', not ending in '-', at most ",
      kMaxProjectIdLength, " characters (e.g. my-project-123), or the project number"));
}

}  // namespace trainpkg::sdk::vertex
