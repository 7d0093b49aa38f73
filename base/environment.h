// The process environment as a replaceable seam: production code reads
// variables through an Environment so tests can supply their own.
#ifndef TRAINPKG_BASE_ENVIRONMENT_H_
#define TRAINPKG_BASE_ENVIRONMENT_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace trainpkg::base {

// Read-only view of environment variables. Implementations are thread-safe
// for concurrent reads.
class Environment {
 public:
  virtual ~Environment() = default;
  // Returns the value of `name`, or nullopt when it is not set. A variable set
  // to the empty string is returned as "".
  virtual std::optional<std::string> Get(std::string_view name) const = 0;
};

// The real process environment (getenv). Never fails; the returned reference
// lives for the whole program.
const Environment& ProcessEnvironment();

// An environment backed by a map; what tests and launchers use.
class MapEnvironment final : public Environment {
 public:
  MapEnvironment() = default;
  explicit MapEnvironment(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {}

  std::optional<std::string> Get(std::string_view name) const override;
  void Set(std::string name, std::string value) { vars_[std::move(name)] = std::move(value); }
  const std::map<std::string, std::string>& vars() const { return vars_; }

 private:
  std::map<std::string, std::string> vars_;
};

// A snapshot of the current process environment (environ) as a map.
std::map<std::string, std::string> SnapshotProcessEnvironment();

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_ENVIRONMENT_H_
