// Running shell commands from tests: the independent tools (umoci, skopeo,
// runc, the trainpkg binary itself) are driven through `sh -c` and their
// output read back.
#ifndef TRAINPKG_TESTS_TEST_UTIL_SHELL_H_
#define TRAINPKG_TESTS_TEST_UTIL_SHELL_H_

#include <string>

#include "base/shell_quote.h"

namespace trainpkg::testing {

struct ShellResult {
  int code = -1;    // the exit status; -1 when it could not run or was killed by a signal
  std::string out;  // stdout and stderr together, in the order written
};

// Runs `command` with `sh -c`, stderr merged into stdout.
ShellResult Sh(const std::string& command);

using ::trainpkg::base::ShellQuote;

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TEST_UTIL_SHELL_H_
