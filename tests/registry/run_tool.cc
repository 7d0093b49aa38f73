#include "tests/registry/run_tool.h"

#include <filesystem>
#include <optional>

#include "absl/time/time.h"
#include "base/status_macros.h"
#include "base/subprocess.h"
#include "fmt/format.h"

namespace trainpkg::registry::testing {

absl::StatusOr<std::string> RunTool(const std::vector<std::string>& argv) {
  std::optional<std::filesystem::path> exe =
      base::FindInPath(argv[0], "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  if (!exe) return absl::NotFoundError(argv[0] + " is not installed");
  std::vector<std::string> args = argv;
  args[0] = exe->string();
  TP_ASSIGN_OR_RETURN(base::SubprocessResult r, base::RunSubprocess(args, "", absl::Seconds(30)));
  if (r.exit_code != 0) {
    return absl::InternalError(fmt::format("{} failed ({}): {}", argv[0], r.exit_code, r.err));
  }
  return r.out;
}

}  // namespace trainpkg::registry::testing
