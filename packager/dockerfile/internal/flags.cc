#include "packager/dockerfile/internal/flags.h"

#include "absl/status/status.h"
#include "base/closest_match.h"
#include "fmt/format.h"

namespace trainpkg::packager::dockerfile::internal {
namespace {

std::string Accepted(const std::vector<FlagSpec>& accepted) {
  if (accepted.empty()) return "it accepts no flags";
  std::string list;
  for (const FlagSpec& f : accepted) {
    if (!list.empty()) list += ", ";
    list += fmt::format("--{}", f.name);
  }
  return "it accepts " + list;
}

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> ParseFlags(
    const std::vector<std::string>& words, const std::vector<FlagSpec>& accepted) {
  std::map<std::string, std::string> out;
  for (const std::string& word : words) {
    std::string_view body = std::string_view(word).substr(2);
    size_t eq = body.find('=');
    std::string name(body.substr(0, eq));
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& f : accepted) {
      if (f.name == name) spec = &f;
    }
    if (spec == nullptr) {
      std::vector<std::string_view> names;
      for (const FlagSpec& f : accepted) names.push_back(f.name);
      std::string near(base::ClosestMatch(name, names).value_or(""));
      return absl::InvalidArgumentError(fmt::format(
          "unknown flag --{}{}; {}", name,
          near.empty() ? "" : fmt::format(" (did you mean --{}?)", near), Accepted(accepted)));
    }
    if (out.count(name) != 0) {
      return absl::InvalidArgumentError(
          fmt::format("flag --{} given more than once; give it once", name));
    }
    if (spec->is_bool) {
      std::string value = eq == std::string_view::npos ? "true" : std::string(body.substr(eq + 1));
      if (value != "true" && value != "false") {
        return absl::InvalidArgumentError(
            fmt::format("flag --{} expects a boolean, not '{}'; write --{} or --{}=false", name,
                        value, name, name));
      }
      out[name] = value;
    } else {
      if (eq == std::string_view::npos || eq + 1 == body.size()) {
        return absl::InvalidArgumentError(
            fmt::format("flag --{} needs a value; write --{}=VALUE", name, name));
      }
      out[name] = std::string(body.substr(eq + 1));
    }
  }
  return out;
}

}  // namespace trainpkg::packager::dockerfile::internal
