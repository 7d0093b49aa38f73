// The Slurm backend of sdk::CustomJob (sdk/custom_job.h): one sbatch
// submission of the batch script (batch_script.h), then a supervisor thread
// that follows the job through scontrol, mirrors it into the job store
// (state, replica addresses and exits, logs written by srun), streams new
// log lines, and scancels it on Cancel() or on a cancel request from
// another process (`trainpkg jobs cancel`).
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_SLURM_BACKEND_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_SLURM_BACKEND_H_

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/internal/job_backend.h"
#include "sdk/internal/job_recorder.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/supervised_job_config.h"
#include "sdk/process_launcher.h"
#include "sdk/slurm/internal/batch_script.h"
#include "sdk/slurm/internal/slurm_job_files.h"
#include "sdk/slurm/internal/slurm_job_state.h"
#include "sdk/slurm/slurm_backend_options.h"

namespace trainpkg::sdk::slurm::internal {

struct SlurmBackendConfig {
  // What to run, as for the local backend: id, project, spec as recorded,
  // plans, the environment of Slurm's commands and of the job, the grace
  // period the batch script gives stopped steps, the launcher of sbatch,
  // scontrol and scancel, the store and the live output stream.
  sdk::internal::SupervisedJobConfig job;
  SlurmBackendOptions options;  // task_program absolute
};

class SlurmBackend final : public sdk::internal::JobBackend {
 public:
  SlurmBackend(SlurmBackendConfig config, std::shared_ptr<sdk::internal::JobRecorder> recorder);
  ~SlurmBackend() override;

  absl::Status Start() override;
  void Wait() override;
  void Cancel(bool immediately) override;

 private:
  struct Replica {
    ReplicaDetails details;
    std::string pending_output;  // the log's last line, until it is complete
    uintmax_t log_offset = 0;
  };

  void Supervise();
  // Writes the job's files and runs sbatch (or salloc); returns the Slurm
  // job id.
  absl::StatusOr<std::string> Submit();
  // SlurmSubmit::kSalloc: starts salloc running the batch script and waits
  // for the id of the allocation it asked for.
  absl::StatusOr<std::string> SubmitSalloc(const BatchScriptRequest& request);
  // Waits (10 s at most) for salloc to exit, once the job has ended.
  void ReapSalloc();
  // Follows the job until Slurm says it ended; returns its last components
  // (empty when the controller no longer knows the job).
  absl::StatusOr<std::vector<SlurmComponent>> Follow(const std::string& slurm_id);
  // The terminal state and error for the job's end.
  std::pair<jobspec::JobState, std::optional<jobspec::RpcStatus>> Outcome(
      const std::string& slurm_id, const std::vector<SlurmComponent>& components);
  // The failure naming the first replica that failed, if one did.
  std::optional<jobspec::RpcStatus> ReplicaFailure();
  // Replica addresses and exits into local.json; new log lines to `live`.
  void Refresh(bool final);
  bool CancelRequested();

  const SlurmBackendConfig config_;
  const SlurmJobFiles files_;
  const std::shared_ptr<sdk::internal::JobRecorder> recorder_;
  std::vector<Replica> replicas_;  // the supervisor's
  std::mutex mu_;
  std::condition_variable cv_;
  bool cancel_ = false;  // guarded by mu_
  bool done_ = false;    // guarded by mu_
  std::thread supervisor_;
  // The supervisor's; null once reaped or given up on (and with sbatch).
  std::unique_ptr<Process> salloc_;
};

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_SLURM_BACKEND_H_
