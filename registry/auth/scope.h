// Token scopes (distribution docs/spec/auth/scope.md):
// "repository:<name>:<action>[,<action>]", e.g. a push that mounts from
// another repository asks for "repository:team/app:pull,push" and
// "repository:base/img:pull".
#ifndef TRAINPKG_REGISTRY_AUTH_SCOPE_H_
#define TRAINPKG_REGISTRY_AUTH_SCOPE_H_

#include <string>
#include <string_view>
#include <vector>

namespace trainpkg::registry {

// "repository:<path>:<actions>" with actions joined by ','.
std::string RepositoryScope(std::string_view path, const std::vector<std::string>& actions);

// The scopes for pulling from `path`.
std::vector<std::string> PullScopes(std::string_view path);

// The scopes for pushing to `path`, pull-and-push first (some registries
// read only the first scope), then pull on each mount source.
std::vector<std::string> PushScopes(std::string_view path,
                                    const std::vector<std::string>& mount_sources = {});

// `requested` followed by the scopes of `challenge_scope` (space-separated,
// as in a challenge's scope parameter) that are not already there.
std::vector<std::string> MergeScopes(const std::vector<std::string>& requested,
                                     std::string_view challenge_scope);

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_AUTH_SCOPE_H_
