#include "registry/auth/containers_auth.h"

#include <optional>
#include <string>

namespace trainpkg::registry {
namespace {

std::optional<std::string> NonEmpty(const base::Environment& env, std::string_view name) {
  std::optional<std::string> value = env.Get(name);
  if (value.has_value() && value->empty()) return std::nullopt;
  return value;
}

}  // namespace

std::vector<std::filesystem::path> ContainersAuthFiles(const base::Environment& env) {
  if (std::optional<std::string> file = NonEmpty(env, "REGISTRY_AUTH_FILE")) return {*file};
  std::vector<std::filesystem::path> files;
  if (std::optional<std::string> runtime = NonEmpty(env, "XDG_RUNTIME_DIR")) {
    files.push_back(std::filesystem::path(*runtime) / "containers" / "auth.json");
  }
  if (std::optional<std::string> config = NonEmpty(env, "XDG_CONFIG_HOME")) {
    files.push_back(std::filesystem::path(*config) / "containers" / "auth.json");
  } else if (std::optional<std::string> home = NonEmpty(env, "HOME")) {
    files.push_back(std::filesystem::path(*home) / ".config" / "containers" / "auth.json");
  }
  return files;
}

}  // namespace trainpkg::registry
