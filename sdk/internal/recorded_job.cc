#include "sdk/internal/recorded_job.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/cluster_env.h"
#include "jobspec/job_state.h"
#include "sdk/internal/job_errors.h"

namespace trainpkg::sdk::internal {
namespace {

constexpr auto kCancelPollInterval = std::chrono::milliseconds(50);

// True for a job that will never finish: not terminal, and the supervisor
// that would finish it is gone. pid 0 (a record without local.json) names
// no supervisor, so none is declared dead.
bool Orphaned(const JobInfo& info) {
  return !jobspec::IsTerminal(info.job.state) && !info.supervisor_running &&
         info.local.supervisor.pid != 0;
}

// Finishes an orphaned job: CANCELLED when it was being cancelled and
// replicas were running, else FAILED.
absl::Status Repair(const BackendDriver& driver, const JobStore& store, JobInfo& info,
                    bool cancelling) {
  const bool was_running = driver.StopOrphan(store, info);
  absl::Time now = absl::Now();
  if (cancelling && was_running) {
    info.job.state = jobspec::JobState::kCancelled;
    info.job.error = internal::CancelledError();
  } else {
    info.job.state = jobspec::JobState::kFailed;
    info.job.error = jobspec::RpcStatus{
        .code = internal::kCodeInternal,
        .message = absl::StrCat("The job supervisor (pid ", info.local.supervisor.pid,
                                ") exited before the job finished")};
  }
  info.job.update_time = now;
  info.job.end_time = now;
  TP_RETURN_IF_ERROR(store.WriteJob(info.id, info.job));
  return store.AppendHistory(info.id, HistoryEntry{.state = info.job.state, .time = now});
}

struct LogSource {
  std::string replica;
  std::filesystem::path file;
  off_t offset = 0;
  std::string pending;  // bytes after the last '\n'
};

// Bytes of `path` from `offset` on; "" when the file does not exist yet.
absl::StatusOr<std::string> ReadFrom(const std::filesystem::path& path, off_t offset) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::string();
  if (fd < 0) return base::ErrnoToStatus(errno, absl::StrCat("opening ", path.string()));
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::pread(fd, buf, sizeof(buf), offset + static_cast<off_t>(out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return base::ErrnoToStatus(err, absl::StrCat("reading ", path.string()));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

// Every replica the job spec asks for, in pool order.
std::vector<std::string> ReplicaNames(const jobspec::CustomJobSpec& spec) {
  std::vector<std::string> names;
  for (size_t pool = 0; pool < spec.worker_pool_specs.size(); ++pool) {
    for (int64_t i = 0; i < spec.worker_pool_specs[pool].replica_count; ++i) {
      names.push_back(jobspec::ReplicaRef{.pool = static_cast<int>(pool), .index = i}.Name());
    }
  }
  return names;
}

void Emit(LogSource& source, std::string_view prefix, bool flush_partial, std::ostream& out) {
  size_t start = 0;
  for (size_t nl; (nl = source.pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    out << prefix << std::string_view(source.pending).substr(start, nl + 1 - start);
  }
  source.pending.erase(0, start);
  // On the last pass a line the replica never ended is still shown.
  if (flush_partial && !source.pending.empty()) {
    out << prefix << source.pending << '\n';
    source.pending.clear();
  }
}

}  // namespace

absl::StatusOr<JobInfo> LoadRecordedJob(const BackendDriver& driver, const JobStore& store,
                                        std::string_view id) {
  JobInfo info;
  info.id = std::string(id);
  info.job_dir = store.JobDir(id);
  TP_ASSIGN_OR_RETURN(info.job, store.ReadJob(id));
  info.backend = std::string(driver.name());
  TP_RETURN_IF_ERROR(driver.ReadRecord(store, info));
  return info;
}

// The supervisor records the terminal state before it exits, so the job is
// read again once the supervisor is seen gone.
absl::StatusOr<JobInfo> LoadAndRepairRecordedJob(const BackendDriver& driver, const JobStore& store,
                                                 std::string_view id, bool cancelling) {
  TP_ASSIGN_OR_RETURN(JobInfo info, LoadRecordedJob(driver, store, id));
  if (!Orphaned(info)) return info;
  TP_ASSIGN_OR_RETURN(info, LoadRecordedJob(driver, store, id));
  if (Orphaned(info)) TP_RETURN_IF_ERROR(Repair(driver, store, info, cancelling));
  return info;
}

absl::StatusOr<jobspec::CustomJob> CancelSupervisedJob(const BackendDriver& driver,
                                                       const JobStore& store, std::string_view id,
                                                       absl::Duration timeout) {
  TP_ASSIGN_OR_RETURN(JobInfo info, LoadRecordedJob(driver, store, id));
  if (jobspec::IsTerminal(info.job.state)) return info.job;
  // A file the supervisor polls: any process may ask, without signalling a
  // process it may not own.
  TP_RETURN_IF_ERROR(store.RequestCancel(id));
  absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    TP_ASSIGN_OR_RETURN(info, LoadAndRepairRecordedJob(driver, store, id, /*cancelling=*/true));
    if (jobspec::IsTerminal(info.job.state)) return info.job;
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(fmt::format("job {} is still {} after {}", id,
                                                     jobspec::JobStateName(info.job.state),
                                                     absl::FormatDuration(timeout)));
    }
    std::this_thread::sleep_for(kCancelPollInterval);
  }
}

absl::Status WriteReplicaLogs(const JobStore& store, std::string_view id,
                              const JobLogsOptions& options, std::ostream& out,
                              const std::function<absl::StatusOr<JobInfo>()>& reload) {
  TP_ASSIGN_OR_RETURN(JobInfo info, reload());
  std::vector<std::string> names = ReplicaNames(info.job.job_spec);
  if (!options.replica.empty()) {
    if (std::find(names.begin(), names.end(), options.replica) == names.end()) {
      return absl::NotFoundError(fmt::format("job {} has no replica {}; its replicas are {}", id,
                                             options.replica, absl::StrJoin(names, ", ")));
    }
    names = {options.replica};
  }
  std::vector<LogSource> sources;
  for (std::string& name : names) {
    std::filesystem::path file = store.LogFile(id, name);
    sources.push_back(
        LogSource{.replica = std::move(name), .file = std::move(file), .offset = 0, .pending = ""});
  }
  for (;;) {
    // The state is read before the files, so once it is terminal this last
    // pass sees everything the replicas wrote.
    bool last_pass = !options.follow || jobspec::IsTerminal(info.job.state);
    for (LogSource& source : sources) {
      TP_ASSIGN_OR_RETURN(std::string data, ReadFrom(source.file, source.offset));
      source.offset += static_cast<off_t>(data.size());
      source.pending += data;
      std::string prefix = options.replica.empty() ? absl::StrCat("[", source.replica, "] ") : "";
      Emit(source, prefix, last_pass, out);
    }
    out.flush();
    if (last_pass) return absl::OkStatus();
    std::this_thread::sleep_for(absl::ToChronoMilliseconds(options.poll_interval));
    TP_ASSIGN_OR_RETURN(info, reload());
  }
}

}  // namespace trainpkg::sdk::internal
