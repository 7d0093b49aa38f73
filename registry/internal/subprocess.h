// Runs a short-lived helper program with input on stdin and its stdout and
// stderr captured (credential helpers).
#ifndef TRAINPKG_REGISTRY_INTERNAL_SUBPROCESS_H_
#define TRAINPKG_REGISTRY_INTERNAL_SUBPROCESS_H_

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trainpkg::registry::internal {

struct SubprocessResult {
  int exit_code = 0;  // 128 + signal number when killed by a signal
  std::string out;
  std::string err;
};

// The first executable file called `name` in the ':'-separated `path_list`,
// or nullopt.
std::optional<std::filesystem::path> FindInPath(std::string_view name, std::string_view path_list);

// Runs `argv` (argv[0] an absolute path) with the current environment,
// writes `input` to its stdin and closes it, and collects its output.
// DeadlineExceeded (after killing it by pid) when it outlives `timeout`.
absl::StatusOr<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv,
                                               std::string_view input, absl::Duration timeout);

}  // namespace trainpkg::registry::internal

#endif  // TRAINPKG_REGISTRY_INTERNAL_SUBPROCESS_H_
