#include "sdk/slurm/internal/slurm_job_check.h"

#include <system_error>

#include "absl/strings/str_cat.h"
#include "base/status_context.h"
#include "sdk/internal/find_executable.h"
#include "sdk/slurm/internal/slurm_resources.h"

namespace trainpkg::sdk::slurm::internal {

absl::Status CheckSlurmJob(const jobspec::CustomJobSpec& spec,
                           const std::vector<sdk::internal::ReplicaPlan>& plans,
                           SlurmBackendOptions& options) {
  for (const sdk::internal::ReplicaPlan& plan : plans) {
    if (plan.image.has_value()) {
      return absl::UnimplementedError(absl::StrCat(
          plan.program_field, ": \"", plan.image->ToString(),
          "\" is a container image; the Slurm backend runs \"local:<path>\" executables on a "
          "filesystem every node shares"));
    }
  }
  for (size_t pool = 0; pool < spec.worker_pool_specs.size(); ++pool) {
    const jobspec::WorkerPoolSpec& pool_spec = spec.worker_pool_specs[pool];
    if (pool_spec.IsEmpty() || pool_spec.replica_count == 0) continue;
    absl::StatusOr<std::vector<std::string>> resources =
        PoolResourceOptions(spec, static_cast<int>(pool), options.gpu_types);
    if (!resources.ok()) return resources.status();
  }
  if (options.task_program.empty()) {
    std::error_code ec;
    std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) {
      return absl::InternalError(absl::StrCat("reading /proc/self/exe: ", ec.message()));
    }
    options.task_program = self.parent_path() / "trainpkg-slurm-task";
  }
  // Absolute: srun runs it on other nodes, from the file system they share.
  options.task_program = std::filesystem::absolute(options.task_program);
  absl::StatusOr<std::string> found =
      sdk::internal::FindExecutable(options.task_program.string(), "");
  if (!found.ok()) {
    return base::WithContext(found.status(), "the Slurm task launcher");
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::sdk::slurm::internal
