#include "packager/run/internal/child_exit.h"

#include <sys/wait.h>

#include <cerrno>

namespace trainpkg::packager::run::internal {

int WaitChildExit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace trainpkg::packager::run::internal
