#include "registry/auth/scope.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace trainpkg::registry {

std::string RepositoryScope(std::string_view path, const std::vector<std::string>& actions) {
  return fmt::format("repository:{}:{}", path, absl::StrJoin(actions, ","));
}

std::vector<std::string> PullScopes(std::string_view path) {
  return {RepositoryScope(path, {"pull"})};
}

std::vector<std::string> PushScopes(std::string_view path,
                                    const std::vector<std::string>& mount_sources) {
  std::vector<std::string> scopes = {RepositoryScope(path, {"pull", "push"})};
  for (const std::string& source : mount_sources) {
    if (source != path) scopes.push_back(RepositoryScope(source, {"pull"}));
  }
  return scopes;
}

std::vector<std::string> MergeScopes(const std::vector<std::string>& requested,
                                     std::string_view challenge_scope) {
  std::vector<std::string> out = requested;
  for (absl::string_view scope :
       absl::StrSplit(absl::string_view(challenge_scope.data(), challenge_scope.size()), ' ',
                      absl::SkipEmpty())) {
    if (std::find(out.begin(), out.end(), scope) == out.end()) out.emplace_back(scope);
  }
  return out;
}

}  // namespace trainpkg::registry
