// Runs a bundle's process to completion with `runc run` and removes the
// container afterwards (`runc delete --force`, also after an error, and by
// this process's HostResourceLedger watchdog when the process dies).
//
//   TP_ASSIGN_OR_RETURN(RuncExit exit, RuncRun("runc", bundle_dir, "trainpkg-run-1", log));
//
// stdin is /dev/null; stdout and stderr go, merged, to `output` (may be
// empty) as they arrive, and their last 4 KiB are kept in the result.
// Blocks until the container's process exits. Thread-compatible.
#ifndef TRAINPKG_PACKAGER_RUN_RUNC_RUN_H_
#define TRAINPKG_PACKAGER_RUN_RUNC_RUN_H_

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::packager::run {

struct RuncExit {
  int exit_code = 0;        // the process's exit status; 128 + N when killed by signal N
  std::string output_tail;  // the last 4 KiB of stdout + stderr
};

// Errors: NotFound when `runc` cannot be executed; Internal when fork or
// pipe fail; those of RecordHostResource. A container that runc cannot start is reported like a
// failed command (runc exits non-zero and says why in `output_tail`).
absl::StatusOr<RuncExit> RuncRun(const std::string& runc, const std::filesystem::path& bundle_dir,
                                 const std::string& container_id,
                                 const std::function<void(std::string_view)>& output);

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_RUNC_RUN_H_
