#include "base/environment.h"

#include <cstdlib>

extern char** environ;

namespace trainpkg::base {
namespace {

class RealEnvironment final : public Environment {
 public:
  std::optional<std::string> Get(std::string_view name) const override {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  }
};

}  // namespace

const Environment& ProcessEnvironment() {
  static const RealEnvironment* const env = new RealEnvironment();
  return *env;
}

std::optional<std::string> MapEnvironment::Get(std::string_view name) const {
  auto it = vars_.find(std::string(name));
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

std::map<std::string, std::string> SnapshotProcessEnvironment() {
  std::map<std::string, std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    out.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return out;
}

}  // namespace trainpkg::base
