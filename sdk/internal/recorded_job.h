// Reading a recorded job through the driver of its backend, and what the
// supervised backends (local, Slurm) do with such a record: repair a job
// whose supervisor died, cancel through the job store, print replica logs.
// JobClient (sdk/job_client.h) is these with the driver looked up in the
// backend table; SupervisedDriver uses them with itself, so the backends do
// not depend on the table that lists them.
#ifndef TRAINPKG_SDK_INTERNAL_RECORDED_JOB_H_
#define TRAINPKG_SDK_INTERNAL_RECORDED_JOB_H_

#include <functional>
#include <ostream>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/backend_driver.h"
#include "sdk/job_client.h"
#include "sdk/job_logs.h"
#include "sdk/job_store.h"

namespace trainpkg::sdk::internal {

// The job as recorded, with `driver`'s part of the record (ReadRecord).
absl::StatusOr<JobInfo> LoadRecordedJob(const BackendDriver& driver, const JobStore& store,
                                        std::string_view id);

// LoadRecordedJob, and an orphaned job (not terminal, its supervisor gone)
// finished: its leftovers stopped (driver.StopOrphan) and the job recorded
// CANCELLED when it was being cancelled and replicas were running, FAILED
// naming the supervisor otherwise.
absl::StatusOr<JobInfo> LoadAndRepairRecordedJob(const BackendDriver& driver, const JobStore& store,
                                                 std::string_view id, bool cancelling);

// Asks the job's supervisor to cancel it (JobStore::RequestCancel) and waits
// up to `timeout` for a terminal state, repairing an orphan on the way. A
// terminal job is returned unchanged; DeadlineExceeded after `timeout`.
absl::StatusOr<jobspec::CustomJob> CancelSupervisedJob(const BackendDriver& driver,
                                                       const JobStore& store, std::string_view id,
                                                       absl::Duration timeout);

// Writes the replica logs of job `id` (<job dir>/logs/<replica>.log) as
// WriteJobLogs documents; `reload` reads the job again while following.
absl::Status WriteReplicaLogs(const JobStore& store, std::string_view id,
                              const JobLogsOptions& options, std::ostream& out,
                              const std::function<absl::StatusOr<JobInfo>()>& reload);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_RECORDED_JOB_H_
