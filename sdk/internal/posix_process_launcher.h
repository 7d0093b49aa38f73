// ProcessLauncher on Linux: base::Spawn (fork + execve), one pipe for stdout
// and stderr unless the spec appends them to a file.
#ifndef TRAINPKG_SDK_INTERNAL_POSIX_PROCESS_LAUNCHER_H_
#define TRAINPKG_SDK_INTERNAL_POSIX_PROCESS_LAUNCHER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::internal {

// The child, before execve: resets every signal disposition to the default
// and the signal mask to empty (the CLI blocks SIGINT/SIGTERM in its
// threads), makes itself a process group leader (a session leader with
// outlives_caller), sets PR_SET_PDEATHSIG(SIGKILL) (exiting when the parent
// already died; not with outlives_caller), reads stdin from /dev/null and
// marks every other descriptor close-on-exec. An execve failure comes back
// to Start(). Destroying a Process that was not waited for kills its group
// and reaps it, unless it outlives its caller.
class PosixProcessLauncher final : public ProcessLauncher {
 public:
  absl::StatusOr<std::unique_ptr<Process>> Start(const ProcessSpec& spec) override;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_POSIX_PROCESS_LAUNCHER_H_
