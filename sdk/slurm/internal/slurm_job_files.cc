#include "sdk/slurm/internal/slurm_job_files.h"

#include "absl/strings/str_cat.h"

namespace trainpkg::sdk::slurm::internal {

std::filesystem::path SlurmJobFiles::log_pattern(int pool) const {
  // The same names as JobStore::LogFile: logs/workerpool<pool>-<index>.log.
  return job_dir_ / "logs" / absl::StrCat("workerpool", pool, "-%t.log");
}

}  // namespace trainpkg::sdk::slurm::internal
