#include "sdk/internal/supervised_record.h"

#include <signal.h>

#include "sdk/internal/proc_stat.h"
#include "sdk/internal/recorded_job.h"
#include "sdk/internal/supervised_job.h"

namespace trainpkg::sdk::internal {

absl::Status SupervisedDriver::CheckJobId(std::string_view id) const {
  return CheckSupervisedJobId(id);
}

absl::Status SupervisedDriver::ReadRecord(const JobStore& store, JobInfo& info) const {
  absl::StatusOr<LocalJobDetails> local = store.ReadLocalDetails(info.id);
  if (!local.ok()) return absl::OkStatus();
  info.local = *std::move(local);
  info.supervisor_running =
      IsProcessAlive(info.local.supervisor.pid, info.local.supervisor.start_time);
  return absl::OkStatus();
}

bool SupervisedDriver::StopOrphan(const JobStore&, const JobInfo& info) const {
  bool running = false;
  for (const ReplicaDetails& replica : info.local.replicas) {
    if (replica.pgid <= 0) continue;
    running = running || !replica.exit_status.has_value();
    // No supervisor is left to stop them gently; the start time keeps a group
    // id reused by another process from being signalled.
    SignalProcessGroup(replica.pgid, replica.start_time, SIGKILL);
  }
  return running;
}

absl::StatusOr<jobspec::CustomJob> SupervisedDriver::Refresh(const JobStore&, const JobInfo& info,
                                                             const RecordAccess&) const {
  return info.job;
}

absl::StatusOr<jobspec::CustomJob> SupervisedDriver::Cancel(const JobStore& store,
                                                            const JobInfo& info,
                                                            const RecordAccess&,
                                                            absl::Duration timeout) const {
  return CancelSupervisedJob(*this, store, info.id, timeout);
}

absl::Status SupervisedDriver::CheckLogs(const JobInfo&, const JobLogsOptions&) const {
  return absl::OkStatus();
}

absl::Status SupervisedDriver::WriteLogs(const JobStore& store, const JobInfo& info,
                                         const JobLogsOptions& options, std::ostream& out) const {
  return WriteReplicaLogs(store, info.id, options, out, [this, &store, &info] {
    return LoadAndRepairRecordedJob(*this, store, info.id, /*cancelling=*/false);
  });
}

}  // namespace trainpkg::sdk::internal
