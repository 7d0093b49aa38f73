// The live record of one running job: the CustomJob (state, times, error)
// and the local process details, kept in memory and mirrored to the job
// store, with the Python-SDK-like state lines written to the log stream.
#ifndef TRAINPKG_SDK_INTERNAL_JOB_RECORDER_H_
#define TRAINPKG_SDK_INTERNAL_JOB_RECORDER_H_

#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "jobspec/custom_job.h"
#include "sdk/internal/line_stream.h"
#include "sdk/job_store.h"
#include "sdk/local_job_details.h"

namespace trainpkg::sdk::internal {

// Thread-safe.
class JobRecorder {
 public:
  // `job` has its name set. `log` is not owned and may be null; `clock`
  // must outlive the recorder.
  JobRecorder(JobStore store, std::string id, jobspec::CustomJob job, LineStream* log,
              base::Clock& clock);

  // Writes the QUEUED record, with this process as the supervisor.
  absl::Status Create();

  // Moves to `state` (start time on RUNNING, end time on a terminal state),
  // writes it and prints "CustomJob <name> current state:\n<STATE>", plus
  // the completion lines on a terminal state. Once the job is terminal,
  // further calls are ignored. Store write errors are logged, not returned:
  // the job goes on and Wait() still reports it.
  void SetState(jobspec::JobState state, std::optional<jobspec::RpcStatus> error = std::nullopt);

  // Adds or replaces (by name) a replica in local.json.
  void UpdateReplica(const ReplicaDetails& replica);
  // The same for several replicas, in one write.
  void UpdateReplicas(std::span<const ReplicaDetails> replicas);

  jobspec::CustomJob job() const;

 private:
  const JobStore store_;
  const std::string id_;
  LineStream* const log_;
  base::Clock& clock_;
  mutable std::mutex mu_;
  jobspec::CustomJob job_;  // guarded by mu_
  LocalJobDetails local_;   // guarded by mu_
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_JOB_RECORDER_H_
