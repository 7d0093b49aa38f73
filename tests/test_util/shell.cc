#include "tests/test_util/shell.h"

#include <sys/wait.h>

#include <cstdio>

namespace trainpkg::testing {

ShellResult Sh(const std::string& command) {
  ShellResult result;
  FILE* pipe = ::popen(("(" + command + ") 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}


}  // namespace trainpkg::testing
