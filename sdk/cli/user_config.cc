#include "sdk/cli/user_config.h"

#include <algorithm>
#include <array>
#include <optional>

#include "base/bounded_file.h"
#include "base/closest_match.h"
#include "fmt/format.h"
#include "jobspec/job_file.h"
#include "nlohmann/json.hpp"
#include "yaml-cpp/yaml.h"

namespace trainpkg::cli {
namespace {

constexpr std::array<std::string_view, 4> kKeys = {"backend", "project", "region", "registry"};
constexpr std::array<std::string_view, 4> kBackends = {"local", "vertex", "k8s", "slurm"};

absl::Status ErrorAt(const std::filesystem::path& file, const YAML::Mark& mark,
                     std::string_view what) {
  if (mark.is_null()) return absl::InvalidArgumentError(fmt::format("{}: {}", file.string(), what));
  return absl::InvalidArgumentError(
      fmt::format("{}: line {}: {}", file.string(), mark.line + 1, what));
}

absl::StatusOr<UserConfig> Parse(const std::filesystem::path& file, const std::string& text) {
  UserConfig config;
  config.file = file;
  // yaml-cpp's own parser recurses without a bound: the bounded converter
  // (nesting, values, aliases) goes first, and names the line of YAML errors.
  if (absl::StatusOr<nlohmann::json> checked = jobspec::YamlToJson(text); !checked.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", file.string(), std::string(checked.status().message())));
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return ErrorAt(file, e.mark, fmt::format("not valid YAML: {}", e.msg));
  }
  if (root.IsNull()) return config;
  if (!root.IsMap()) {
    return ErrorAt(file, root.Mark(),
                   "expected a mapping of backend, project, region and registry");
  }
  for (const auto& entry : root) {
    const YAML::Node& key = entry.first;
    const YAML::Node& value = entry.second;
    if (!key.IsScalar()) return ErrorAt(file, key.Mark(), "a key must be a plain name");
    const std::string name = key.Scalar();
    std::string* field = name == "backend"    ? &config.backend
                         : name == "project"  ? &config.project
                         : name == "region"   ? &config.region
                         : name == "registry" ? &config.registry
                                              : nullptr;
    if (field == nullptr) {
      return ErrorAt(file, key.Mark(),
                     fmt::format("unknown key \"{}\"{}; valid: backend, project, region, registry",
                                 name, base::DidYouMean(name, kKeys)));
    }
    if (!value.IsScalar()) {
      return ErrorAt(file, value.Mark(), fmt::format("{}: expected a string", name));
    }
    *field = value.Scalar();
  }
  if (!config.backend.empty() &&
      std::find(kBackends.begin(), kBackends.end(), config.backend) == kBackends.end()) {
    return ErrorAt(file, root["backend"].Mark(),
                   fmt::format("backend: \"{}\" is not local, vertex, k8s or slurm{}",
                               config.backend, base::DidYouMean(config.backend, kBackends)));
  }
  return config;
}

}  // namespace

std::filesystem::path UserConfigPath(const base::Environment& env) {
  if (std::optional<std::string> xdg = env.Get("XDG_CONFIG_HOME");
      xdg.has_value() && !xdg->empty()) {
    return std::filesystem::path(*xdg) / "trainpkg" / "config.yaml";
  }
  if (std::optional<std::string> home = env.Get("HOME"); home.has_value() && !home->empty()) {
    return std::filesystem::path(*home) / ".config" / "trainpkg" / "config.yaml";
  }
  return {};
}

absl::StatusOr<UserConfig> ReadUserConfig(const base::Environment& env) {
  const std::filesystem::path file = UserConfigPath(env);
  if (file.empty()) return UserConfig{};
  absl::StatusOr<std::string> text = base::ReadRegularFile(
      file,
      base::BoundedReadOptions{.max_bytes = kMaxUserConfigBytes, .what = "trainpkg config file"});
  if (absl::IsNotFound(text.status())) return UserConfig{};
  if (!text.ok()) return text.status();
  return Parse(file, *text);
}

}  // namespace trainpkg::cli
