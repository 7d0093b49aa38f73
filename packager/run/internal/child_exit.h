// Waiting for a child process this module forked (runc, slirp4netns, the
// watchdog's cleanups).
#ifndef TRAINPKG_PACKAGER_RUN_INTERNAL_CHILD_EXIT_H_
#define TRAINPKG_PACKAGER_RUN_INTERNAL_CHILD_EXIT_H_

#include <sys/types.h>

namespace trainpkg::packager::run::internal {

// Waits for `pid` (retrying on EINTR) and returns its exit status, or
// 128 + the signal that killed it, as a shell reports them; -1 when it
// cannot be waited for. Only waitpid: safe in a child of a multi-threaded
// process.
int WaitChildExit(pid_t pid);

}  // namespace trainpkg::packager::run::internal

#endif  // TRAINPKG_PACKAGER_RUN_INTERNAL_CHILD_EXIT_H_
