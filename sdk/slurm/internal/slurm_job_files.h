// Where a Slurm job's files live in its job directory, which every node
// sees (slurm_backend_options.h):
//
//   <job dir>/slurm/task.json         what every replica runs (task_manifest.h)
//                   batch.sh          the sbatch script
//                   batch.log         its stdout+stderr (srun's own errors)
//                   job_id            the Slurm job id, once sbatch accepted the job
//                   peers/<replica>   "host:port" each replica listens on
//                   exits/<replica>   how each replica ended (replica_exit_record.h)
//   <job dir>/logs/<replica>.log      each replica's stdout+stderr (srun --output)
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_SLURM_JOB_FILES_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_SLURM_JOB_FILES_H_

#include <filesystem>
#include <string_view>

namespace trainpkg::sdk::slurm::internal {

class SlurmJobFiles {
 public:
  explicit SlurmJobFiles(std::filesystem::path job_dir) : job_dir_(std::move(job_dir)) {}

  const std::filesystem::path& job_dir() const { return job_dir_; }
  std::filesystem::path dir() const { return job_dir_ / "slurm"; }
  std::filesystem::path manifest() const { return dir() / "task.json"; }
  std::filesystem::path script() const { return dir() / "batch.sh"; }
  std::filesystem::path batch_log() const { return dir() / "batch.log"; }
  std::filesystem::path slurm_job_id() const { return dir() / "job_id"; }
  std::filesystem::path peers_dir() const { return dir() / "peers"; }
  std::filesystem::path exits_dir() const { return dir() / "exits"; }
  std::filesystem::path peer(std::string_view replica) const { return peers_dir() / replica; }
  std::filesystem::path exit(std::string_view replica) const { return exits_dir() / replica; }
  // srun --output pattern of a pool's step: %t is the task's rank in the step.
  std::filesystem::path log_pattern(int pool) const;

 private:
  std::filesystem::path job_dir_;
};

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_SLURM_JOB_FILES_H_
