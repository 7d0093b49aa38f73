#include "sdk/cli/gcloud_config.h"

#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "base/bounded_file.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::cli {
namespace {

// The file's text, or nullopt when it does not exist.
absl::StatusOr<std::optional<std::string>> ReadOptional(const std::filesystem::path& path,
                                                        std::string_view what) {
  absl::StatusOr<std::string> text = base::ReadRegularFile(
      path, base::BoundedReadOptions{.max_bytes = kMaxGcloudConfigBytes, .what = what});
  if (absl::IsNotFound(text.status())) return std::nullopt;
  if (!text.ok()) return text.status();
  return *std::move(text);
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && absl::ascii_isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && absl::ascii_isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

bool ValidConfigurationName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

absl::StatusOr<std::string> ActiveConfigurationName(const base::Environment& env,
                                                    const std::filesystem::path& dir) {
  // gcloud's own override of active_config. The name becomes part of a file
  // name (config_<name>), hence the character check.
  if (std::optional<std::string> name = env.Get("CLOUDSDK_ACTIVE_CONFIG_NAME");
      name.has_value() && !name->empty()) {
    if (!ValidConfigurationName(*name)) {
      return absl::InvalidArgumentError(fmt::format(
          "CLOUDSDK_ACTIVE_CONFIG_NAME: \"{}\" is not a gcloud configuration name (letters, "
          "digits, '-' and '_')",
          *name));
    }
    return *name;
  }
  const std::filesystem::path active = dir / "active_config";
  TP_ASSIGN_OR_RETURN(std::optional<std::string> text,
                      ReadOptional(active, "gcloud's active_config"));
  if (!text.has_value()) return std::string("default");
  std::string name(Trim(std::string_view(*text).substr(0, text->find('\n'))));
  if (name.empty()) return std::string("default");
  if (!ValidConfigurationName(name)) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: line 1: \"{}\" is not a gcloud configuration name (letters, digits, '-' and '_')",
        active.string(), name));
  }
  return name;
}

}  // namespace

absl::StatusOr<GcloudProperties> ReadGcloudProperties(const base::Environment& env) {
  std::filesystem::path dir;
  if (std::optional<std::string> config = env.Get("CLOUDSDK_CONFIG");
      config.has_value() && !config->empty()) {
    dir = *config;
  } else if (std::optional<std::string> home = env.Get("HOME");
             home.has_value() && !home->empty()) {
    dir = std::filesystem::path(*home) / ".config" / "gcloud";
  } else {
    return GcloudProperties{};
  }
  TP_ASSIGN_OR_RETURN(std::string name, ActiveConfigurationName(env, dir));
  GcloudProperties properties;
  const std::filesystem::path file = dir / "configurations" / ("config_" + name);
  TP_ASSIGN_OR_RETURN(std::optional<std::string> text, ReadOptional(file, "gcloud configuration"));
  if (!text.has_value()) return properties;
  properties.file = file;
  std::string section;
  int line_number = 0;
  std::string_view rest = *text;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view line = Trim(rest.substr(0, end));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    ++line_number;
    // gcloud writes these files with Python's configparser, which also takes
    // ';' comments and ':' between key and value.
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) {
        return absl::InvalidArgumentError(
            fmt::format("{}: line {}: a section header is \"[name]\", found \"{}\"", file.string(),
                        line_number, line));
      }
      section = std::string(Trim(line.substr(1, line.size() - 2)));
      continue;
    }
    const size_t eq = line.find_first_of("=:");
    if (eq == std::string_view::npos || eq == 0) {
      return absl::InvalidArgumentError(
          fmt::format("{}: line {}: expected \"[section]\" or \"key = value\", found \"{}\"",
                      file.string(), line_number, line));
    }
    if (section.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: line {}: \"{}\" comes before any [section]", file.string(), line_number, line));
    }
    const std::string_view key = Trim(line.substr(0, eq));
    const std::string value(Trim(line.substr(eq + 1)));
    if (section == "core" && key == "project") properties.project = value;
    if (section == "ai" && key == "region") properties.region = value;
  }
  return properties;
}

}  // namespace trainpkg::cli
