#include "sdk/internal/find_executable.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/subprocess.h"
#include "fmt/format.h"

namespace trainpkg::sdk::internal {
namespace {

absl::Status CheckExecutable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("executable ", path, " does not exist"));
  }
  if (!S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0) {
    return absl::PermissionDeniedError(absl::StrCat(path, " is not an executable file"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> FindExecutable(std::string_view program, std::string_view path_env) {
  if (program.empty()) return absl::InvalidArgumentError("empty program name");
  if (program.find('/') != std::string_view::npos) {
    std::string path(program);
    absl::Status status = CheckExecutable(path);
    if (!status.ok()) return status;
    return path;
  }
  // base::FindInPath skips empty elements, which POSIX reads as the current
  // directory: what runs does not depend on where the job was started.
  if (std::optional<std::filesystem::path> found = base::FindInPath(program, path_env)) {
    return found->string();
  }
  return absl::NotFoundError(fmt::format("executable {} not found on PATH", program));
}

}  // namespace trainpkg::sdk::internal
