#include "tests/test_util/peak_rss.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>

namespace trainpkg::testing {
namespace {

ChildRun Reap(pid_t pid) {
  ChildRun run;
  int status = 0;
  struct rusage usage {};
  pid_t got;
  do {
    got = wait4(pid, &status, 0, &usage);
  } while (got < 0 && errno == EINTR);
  if (got != pid) return run;
  run.peak_rss_kib = usage.ru_maxrss;
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  return run;
}

}  // namespace

ChildRun RunInChildMeasured(const std::function<int()>& body, int64_t address_space_limit_bytes) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return ChildRun{};
  if (pid == 0) {
    if (address_space_limit_bytes > 0) {
      struct rlimit limit {};
      limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(address_space_limit_bytes);
      setrlimit(RLIMIT_AS, &limit);
    }
    // An exception must not unwind into the test framework's frames, which
    // would go on running the other tests in this copy of the process.
    int code = 0;
    try {
      code = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "RunInChildMeasured: uncaught exception: %s\n", e.what());
      std::abort();
    } catch (...) {
      std::fprintf(stderr, "RunInChildMeasured: uncaught exception\n");
      std::abort();
    }
    std::fflush(nullptr);
    _exit(code & 0xff);
  }
  return Reap(pid);
}

ChildRun RunCommandMeasured(const std::vector<std::string>& argv) {
  ChildRun failed;
  if (argv.empty()) return failed;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return failed;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return failed;
  }
  if (pid == 0) {
    int null_in = open("/dev/null", O_RDONLY);
    if (null_in >= 0) dup2(null_in, 0);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buffer[65536];
  for (;;) {
    ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  ChildRun run = Reap(pid);
  run.out = std::move(out);
  return run;
}

}  // namespace trainpkg::testing
