#include "sdk/process_launcher.h"

#include <string.h>

#include "absl/strings/str_cat.h"
#include "sdk/internal/posix_process_launcher.h"

namespace trainpkg::sdk {

std::string DescribeExitStatus(const ExitStatus& status) {
  if (status.signal != 0) {
    const char* description = ::sigdescr_np(status.signal);
    return absl::StrCat("was terminated by signal ", status.signal, " (",
                        description == nullptr ? "unknown signal" : description, ")");
  }
  if (status.code == 0) return "exited with status 0";
  return absl::StrCat("exited with a non-zero status of ", status.code);
}

std::shared_ptr<ProcessLauncher> DefaultProcessLauncher() {
  static const std::shared_ptr<ProcessLauncher> launcher =
      std::make_shared<internal::PosixProcessLauncher>();
  return launcher;
}

}  // namespace trainpkg::sdk
