#include "sdk/slurm/internal/recorded_job_cancel.h"

#include <string>

#include "absl/strings/ascii.h"
#include "base/environment.h"
#include "base/file_util.h"
#include "base/log.h"
#include "sdk/process_launcher.h"
#include "sdk/slurm/internal/slurm_command.h"
#include "sdk/slurm/internal/slurm_job_files.h"

namespace trainpkg::sdk::slurm::internal {

bool CancelRecordedSlurmJob(const std::filesystem::path& job_dir) {
  absl::StatusOr<std::string> id = base::ReadFile(SlurmJobFiles(job_dir).slurm_job_id());
  if (!id.ok()) return false;
  const std::string slurm_id(absl::StripAsciiWhitespace(*id));
  absl::StatusOr<CommandResult> scancel = RunSlurmCommand(
      *DefaultProcessLauncher(), {"scancel", slurm_id}, base::SnapshotProcessEnvironment());
  if (!scancel.ok() || !scancel->exit.ok()) {
    TP_LOG(ERROR, "scancel {}: {}", slurm_id,
           scancel.ok() ? scancel->output : std::string(scancel.status().message()));
  }
  return true;
}

}  // namespace trainpkg::sdk::slurm::internal
