#include "packager/dockerfile/var_scope.h"

namespace trainpkg::packager::dockerfile {

void VarScope::SetEnv(std::string_view name, std::string value) {
  for (auto& [k, v] : env_) {
    if (k == name) {
      v = std::move(value);
      return;
    }
  }
  env_.emplace_back(std::string(name), std::move(value));
}

void VarScope::SetArg(std::string_view name, std::optional<std::string> value) {
  args_.insert_or_assign(std::string(name), std::move(value));
}

std::optional<std::string> VarScope::Lookup(std::string_view name) const {
  // ENV first: Docker's rule that an ENV always overrides an ARG of the same name.
  for (const auto& [k, v] : env_) {
    if (k == name) return v;
  }
  auto it = args_.find(name);
  if (it == args_.end()) return std::nullopt;
  return it->second;
}

}  // namespace trainpkg::packager::dockerfile
