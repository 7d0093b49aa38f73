#include "sdk/internal/env_expansion.h"

namespace trainpkg::sdk::internal {

std::string ExpandEnvValue(std::string_view value,
                           const std::map<std::string, std::string>& defined) {
  std::string out;
  out.reserve(value.size());
  size_t i = 0;
  while (i < value.size()) {
    if (value[i] != '$' || i + 1 == value.size()) {
      out.push_back(value[i++]);
      continue;
    }
    // Kubernetes' rule, which Vertex documents for env values: $(NAME) from the
    // variables defined before, $$ escapes, an unknown reference stays as written.
    if (value[i + 1] == '$') {
      out.push_back('$');
      i += 2;
      continue;
    }
    size_t close = value[i + 1] == '(' ? value.find(')', i + 2) : std::string_view::npos;
    if (close == std::string_view::npos) {
      out.push_back(value[i++]);
      continue;
    }
    std::string_view reference = value.substr(i, close + 1 - i);  // "$(NAME)"
    auto it = defined.find(std::string(reference.substr(2, reference.size() - 3)));
    out.append(it == defined.end() ? std::string(reference) : it->second);
    i = close + 1;
  }
  return out;
}

void ApplyEnvVars(const std::vector<jobspec::EnvVar>& vars,
                  std::map<std::string, std::string>& env) {
  for (const jobspec::EnvVar& var : vars) {
    env[var.name] = ExpandEnvValue(var.value, env);
  }
}

}  // namespace trainpkg::sdk::internal
