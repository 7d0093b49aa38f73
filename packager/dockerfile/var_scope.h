// The variables that substitution sees at one point of a stage.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_VAR_SCOPE_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_VAR_SCOPE_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainpkg::packager::dockerfile {

// ENV variables (the base image config's Env, then ENV instructions) and the
// ARGs declared so far. As in Docker, an ENV variable hides an ARG of the
// same name. Plain value type; not thread-safe for concurrent mutation.
class VarScope {
 public:
  // Adds or replaces; keeps first-set order (the image config's Env order).
  void SetEnv(std::string_view name, std::string value);
  // Declares an ARG; nullopt: declared without a value (expands as unset).
  void SetArg(std::string_view name, std::optional<std::string> value);

  std::optional<std::string> Lookup(std::string_view name) const;

  const std::vector<std::pair<std::string, std::string>>& env() const { return env_; }
  const std::map<std::string, std::optional<std::string>, std::less<>>& args() const {
    return args_;
  }

 private:
  std::vector<std::pair<std::string, std::string>> env_;
  std::map<std::string, std::optional<std::string>, std::less<>> args_;
};

}  // namespace trainpkg::packager::dockerfile

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_VAR_SCOPE_H_
