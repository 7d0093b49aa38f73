// trainpkg-slurm-task: what srun runs for each replica of a job that the
// Slurm backend submitted (sdk/slurm/internal/slurm_task.h).
//
//   trainpkg-slurm-task JOB_DIR [--rendezvous-timeout=SECONDS]
#include <iostream>
#include <string>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "base/environment.h"
#include "sdk/slurm/internal/replica_exit_record.h"
#include "sdk/slurm/internal/slurm_job_files.h"
#include "sdk/slurm/internal/slurm_task.h"

namespace {

constexpr std::string_view kTimeoutFlag = "--rendezvous-timeout=";
constexpr int kUsage = 2;
constexpr int kFailed = 1;

}  // namespace

int main(int argc, char** argv) {
  namespace slurm = trainpkg::sdk::slurm::internal;
  slurm::SlurmTaskOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    int64_t seconds = 0;
    if (arg.starts_with(kTimeoutFlag) &&
        absl::SimpleAtoi(std::string(arg.substr(kTimeoutFlag.size())), &seconds) && seconds > 0) {
      options.rendezvous_timeout = absl::Seconds(seconds);
    } else if (options.job_dir.empty() && !arg.starts_with("-")) {
      options.job_dir = arg;
    } else {
      std::cerr << "trainpkg-slurm-task: unexpected argument \"" << arg
                << "\"; usage: trainpkg-slurm-task JOB_DIR [--rendezvous-timeout=SECONDS]\n";
      return kUsage;
    }
  }
  if (options.job_dir.empty()) {
    std::cerr << "trainpkg-slurm-task: usage: trainpkg-slurm-task JOB_DIR "
                 "[--rendezvous-timeout=SECONDS]\n";
    return kUsage;
  }
  const std::map<std::string, std::string> environment =
      trainpkg::base::SnapshotProcessEnvironment();
  const slurm::SlurmJobFiles files(options.job_dir);
  absl::StatusOr<trainpkg::sdk::ProcessSpec> spec = slurm::PrepareSlurmTask(environment, options);
  if (!spec.ok()) {
    std::cerr << "trainpkg-slurm-task: " << spec.status().message() << std::endl;
    // Named as the replica's failure, so the job's error points at its log.
    if (absl::StatusOr<trainpkg::jobspec::ReplicaRef> self =
            slurm::ReplicaFromSlurmEnv(environment);
        self.ok()) {
      (void)slurm::WriteReplicaExitRecord(
          files.exits_dir(),
          slurm::ReplicaExitRecord{
              .replica = self->Name(), .status = {.code = kFailed}, .time = absl::Now()});
    }
    return kFailed;
  }
  return slurm::RunReplica(*spec, files.exits_dir(), std::cerr);
}
