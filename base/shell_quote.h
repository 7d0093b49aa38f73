// Quoting for POSIX sh: the one way trainpkg writes a word into a shell
// command line or script (Slurm batch scripts, SSH remote commands, tests'
// `sh -c` lines).
//
//   std::string line = absl::StrCat("rm -rf ", base::ShellQuote(dir));
#ifndef TRAINPKG_BASE_SHELL_QUOTE_H_
#define TRAINPKG_BASE_SHELL_QUOTE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace trainpkg::base {

// `text` in single quotes, each ' inside written as '\'' (close, escaped
// quote, reopen): sh expands nothing inside, so any bytes but NUL survive.
std::string ShellQuote(absl::string_view text);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_SHELL_QUOTE_H_
