// Vertex's (and Kubernetes') EnvVar value expansion: "$(NAME)" becomes the
// value of an already defined variable, "$$" becomes "$" (so "$$(NAME)" is a
// literal "$(NAME)"), and a reference to an undefined variable is left as is.
#ifndef TRAINPKG_SDK_INTERNAL_ENV_EXPANSION_H_
#define TRAINPKG_SDK_INTERNAL_ENV_EXPANSION_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "jobspec/custom_job.h"

namespace trainpkg::sdk::internal {

std::string ExpandEnvValue(std::string_view value,
                           const std::map<std::string, std::string>& defined);

// Sets each of `vars` in order, expanding its value against `env` as it is
// at that point (so later entries see earlier ones).
void ApplyEnvVars(const std::vector<jobspec::EnvVar>& vars,
                  std::map<std::string, std::string>& env);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_ENV_EXPANSION_H_
