// The seam between the SDK and where jobs run: one BackendDriver per
// JobBackendKind (local, Vertex AI, Kubernetes, Slurm), found through the
// table of sdk/backend_table.h. CustomJob::Create, JobClient and the
// `trainpkg run` / `trainpkg jobs` commands reach a backend only through its
// driver, so a new backend is a folder with its driver and one table row.
//
// A driver is stateless and thread-safe. It does two things:
//   * a job being created: Prepare() validates it for the backend (job id
//     rule included) and returns a BackendJob, which starts, waits for,
//     reports and cancels that one job;
//   * a job recorded in the job store (sdk/job_store.h), from any process:
//     ClaimsRecord/ReadRecord, Refresh, Cancel, CheckLogs/WriteLogs.
#ifndef TRAINPKG_SDK_BACKEND_DRIVER_H_
#define TRAINPKG_SDK_BACKEND_DRIVER_H_

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/auth/credentials.h"
#include "sdk/custom_job.h"
#include "sdk/job_client.h"
#include "sdk/job_logs.h"
#include "sdk/job_store.h"

namespace trainpkg::sdk {

namespace internal {
class LineStream;  // sdk/internal/line_stream.h
}  // namespace internal

// One job on one backend, as its driver prepared it. Made by Prepare(),
// driven by CustomJob (sdk/internal/driver_connection.h), which calls Start()
// until it succeeds once, never concurrently with Current(), and Wait() and
// Cancel() only after Start() succeeded.
// Destroying a started, unfinished job does what the backend documents in
// sdk/custom_job.h (local and Slurm: cancel and wait; remote: stop polling).
class BackendJob {
 public:
  virtual ~BackendJob() = default;
  // Records (where the backend records) and starts the job in the background.
  virtual absl::Status Start() = 0;
  // Blocks until the job is terminal; the terminal job, or the error that
  // stopped following it (remote backends). Thread-safe.
  virtual absl::StatusOr<jobspec::CustomJob> Wait() = 0;
  // The job as it is now; before Start(), as prepared. Thread-safe.
  virtual jobspec::CustomJob Current() const = 0;
  // Stops the job; `immediately` skips the grace period. Thread-safe,
  // idempotent.
  virtual void Cancel(bool immediately) = 0;
  // Id, resource name and job directory; the backend may set them in Start()
  // (Vertex AI assigns the id). Empty job_dir(): not in the job store.
  virtual const std::string& id() const = 0;
  virtual const std::string& name() const = 0;
  virtual const std::filesystem::path& job_dir() const = 0;
};

// What reaching a recorded job's service may need. Asked only by the drivers
// that need it (Vertex AI), when they need it.
struct RecordAccess {
  std::function<absl::StatusOr<std::shared_ptr<auth::Credentials>>()> credentials;
};

// Where a remote backend's jobs live, for messages.
struct RemotePlace {
  std::string_view platform;  // "Vertex AI"
  std::string_view source;    // "the service": what a refresh reads
};

class BackendDriver {
 public:
  virtual ~BackendDriver() = default;

  virtual JobBackendKind kind() const = 0;
  // "local", "vertex", "k8s", "slurm", "ssh": `--backend` and JobInfo::backend.
  virtual std::string_view name() const = 0;
  // nullopt for backends whose jobs a supervisor on this machine follows
  // (local, Slurm); else where they live.
  virtual std::optional<RemotePlace> remote() const = 0;

  // The job id rule: OK when a caller may give `id` (not empty) for a job
  // of this backend, else InvalidArgument saying why and what is valid,
  // without a field name (callers prefix "job_id: " or "--job-id: ").
  virtual absl::Status CheckJobId(std::string_view id) const = 0;

  // Validates `job` for this backend and prepares it: nothing is written or
  // started. The errors CustomJob::Create documents for the backend.
  // `options.environment` is set. `log` receives the state lines; it is not
  // owned and outlives the BackendJob.
  virtual absl::StatusOr<std::unique_ptr<BackendJob>> Prepare(jobspec::CustomJob job,
                                                              CustomJobOptions options,
                                                              internal::LineStream* log) const = 0;

  // True when recorded job `id` is this backend's (its record file is
  // there). The table asks the rows in order, the local backend last.
  virtual bool ClaimsRecord(const JobStore& store, std::string_view id) const = 0;
  // Fills the backend's part of `info` (id, job and job_dir are read);
  // REQUIRES: ClaimsRecord. Errors: the record's, as DataLoss naming the file.
  virtual absl::Status ReadRecord(const JobStore& store, JobInfo& info) const = 0;
  // For a job whose supervisor died unfinished: stops whatever of it still
  // runs (replica process groups, containers, a Slurm job). True when
  // something was still running. Remote backends have no supervisor: false.
  virtual bool StopOrphan(const JobStore& store, const JobInfo& info) const = 0;

  // The job as its backend sees it now, recorded. Local and Slurm jobs are
  // read by JobClient: `info.job` as it is.
  virtual absl::StatusOr<jobspec::CustomJob> Refresh(const JobStore& store, const JobInfo& info,
                                                     const RecordAccess& access) const = 0;
  // Cancels the job and waits up to `timeout` for it to be terminal
  // (DeadlineExceeded after). A terminal job is returned as it is.
  virtual absl::StatusOr<jobspec::CustomJob> Cancel(const JobStore& store, const JobInfo& info,
                                                    const RecordAccess& access,
                                                    absl::Duration timeout) const = 0;
  // FailedPrecondition (saying where the logs are) when this backend cannot
  // print the job's logs as `options` asks; checked before WriteLogs.
  virtual absl::Status CheckLogs(const JobInfo& info, const JobLogsOptions& options) const = 0;
  // Writes the replicas' logs as sdk/job_logs.h describes.
  virtual absl::Status WriteLogs(const JobStore& store, const JobInfo& info,
                                 const JobLogsOptions& options, std::ostream& out) const = 0;
};

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_BACKEND_DRIVER_H_
