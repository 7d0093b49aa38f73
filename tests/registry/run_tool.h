// Runs a command-line tool the tests need (openssl, htpasswd, skopeo) found
// on the usual system PATH, and fails with its stderr when it fails.
#ifndef TRAINPKG_TESTS_REGISTRY_RUN_TOOL_H_
#define TRAINPKG_TESTS_REGISTRY_RUN_TOOL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::registry::testing {

// Runs `argv` (argv[0] a program name) with a 30 s limit. NotFound when the
// program is not installed; Internal with its stderr when it exits non-zero.
// Returns its stdout.
absl::StatusOr<std::string> RunTool(const std::vector<std::string>& argv);

}  // namespace trainpkg::registry::testing

#endif  // TRAINPKG_TESTS_REGISTRY_RUN_TOOL_H_
