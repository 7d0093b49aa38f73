// The record side shared by the backends whose jobs a supervisor on this
// machine follows (local, Slurm): what JobClient and `trainpkg jobs` do with
// such a job in the job store (sdk/backend_driver.h). StopOrphan kills what
// is left of each replica's process group.
#ifndef TRAINPKG_SDK_INTERNAL_SUPERVISED_RECORD_H_
#define TRAINPKG_SDK_INTERNAL_SUPERVISED_RECORD_H_

#include <optional>
#include <ostream>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/backend_driver.h"
#include "sdk/job_client.h"
#include "sdk/job_logs.h"
#include "sdk/job_store.h"

namespace trainpkg::sdk::internal {

// What the drivers of supervised backends share: no remote place, the job id
// rule of CheckSupervisedJobId, the record read by JobClient (refresh is the
// record as read), cancelling through the job store (CancelSupervisedJob),
// and the logs in the job directory (WriteReplicaLogs); all in
// sdk/internal/recorded_job.h.
class SupervisedDriver : public BackendDriver {
 public:
  std::optional<RemotePlace> remote() const override { return std::nullopt; }
  absl::Status CheckJobId(std::string_view id) const override;
  // info.local and info.supervisor_running from local.json, when there is one.
  absl::Status ReadRecord(const JobStore& store, JobInfo& info) const override;
  bool StopOrphan(const JobStore& store, const JobInfo& info) const override;
  absl::StatusOr<jobspec::CustomJob> Refresh(const JobStore& store, const JobInfo& info,
                                             const RecordAccess& access) const override;
  absl::StatusOr<jobspec::CustomJob> Cancel(const JobStore& store, const JobInfo& info,
                                            const RecordAccess& access,
                                            absl::Duration timeout) const override;
  absl::Status CheckLogs(const JobInfo& info, const JobLogsOptions& options) const override;
  absl::Status WriteLogs(const JobStore& store, const JobInfo& info, const JobLogsOptions& options,
                         std::ostream& out) const override;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_SUPERVISED_RECORD_H_
