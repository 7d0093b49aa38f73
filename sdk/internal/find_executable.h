// Locating the program a replica runs, as execvp would, but before forking so
// that a missing executable is an error the caller can report.
#ifndef TRAINPKG_SDK_INTERNAL_FIND_EXECUTABLE_H_
#define TRAINPKG_SDK_INTERNAL_FIND_EXECUTABLE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::sdk::internal {

// A `program` containing '/' is used as is; otherwise it is looked up in the
// ':'-separated `path_env`. Returns the path to exec. NotFound when no such
// file exists, PermissionDenied when it is not an executable regular file.
absl::StatusOr<std::string> FindExecutable(std::string_view program, std::string_view path_env);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_FIND_EXECUTABLE_H_
