// Inspecting and cancelling local jobs from any process, e.g. the one that
// runs `trainpkg jobs ...` while another process supervises the job.
//
// Reading a job also repairs it when its supervisor died (killed, crashed,
// machine rebooted) before the job finished: whatever is left of its replica
// process groups is killed (and, in container mode, its runc containers are
// deleted) and the job is marked FAILED with code 13 and
// "The job supervisor (pid N) exited before the job finished", so no job
// stays RUNNING forever. A Slurm job (sdk/slurm) of such a record is
// scancelled.
//
// Each job's backend is the driver that claims its record
// (sdk/backend_table.h). Jobs the Vertex and Kubernetes backends submitted
// (sdk/vertex/vertex_job_record.h, sdk/k8s/k8s_job_record.h) are listed and
// read with their last recorded state; reaching the service or cluster
// (refresh, cancel, logs) is their driver's (sdk/backend_driver.h).
#ifndef TRAINPKG_SDK_JOB_CLIENT_H_
#define TRAINPKG_SDK_JOB_CLIENT_H_

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/job_store.h"
#include "sdk/k8s/k8s_job_record.h"
#include "sdk/local_job_details.h"
#include "sdk/vertex/vertex_job_record.h"

namespace trainpkg::sdk {

struct JobInfo {
  std::string id;
  jobspec::CustomJob job;
  LocalJobDetails local;
  std::filesystem::path job_dir;
  bool supervisor_running = false;
  // The name of its backend's driver (sdk/backend_table.h): "local",
  // "slurm", "vertex" or "k8s".
  std::string backend;
  std::string slurm_job_id;                       // backend "slurm", once sbatch accepted it
  std::optional<vertex::VertexJobRecord> vertex;  // backend "vertex"
  std::optional<k8s::K8sJobRecord> k8s;           // backend "k8s"
};

// What ListJobs(options) returns.
struct JobListOptions {
  // Only jobs this accepts (null: every job). It sees the job as recorded;
  // a job whose supervisor died is repaired (GetJob) before it is asked.
  std::function<bool(const jobspec::CustomJob&)> matches;
  // At most this many jobs; 0: all.
  size_t limit = 0;
  // Only jobs after this one in list order (ListsBefore): the last job of
  // the previous page, which need not exist any more.
  std::optional<JobSummary> after;
};

struct JobList {
  std::vector<JobInfo> jobs;
  bool more = false;  // further jobs match beyond `limit`
};

// Thread-safe; holds only the store.
class JobClient {
 public:
  explicit JobClient(JobStore store) : store_(std::move(store)) {}

  const JobStore& store() const { return store_; }

  // Every job, newest first (by create time). Jobs that cannot be read are
  // skipped.
  absl::StatusOr<std::vector<JobInfo>> ListJobs() const;
  // A page of jobs in list order (newest first). The store's index picks
  // them (JobStore::ListJobSummaries): only the jobs returned, and those
  // not finished whose state a repair may change, are read in full, so the
  // cost grows with the page, not with the store. Jobs that cannot be read
  // are skipped.
  absl::StatusOr<JobList> ListJobs(const JobListOptions& options) const;

  // NotFound when there is no job `id`.
  absl::StatusOr<JobInfo> GetJob(std::string_view id) const;
  // Like GetJob, but an orphaned job is returned as recorded, not repaired
  // (what cancelling it reads first, so that it ends CANCELLED).
  absl::StatusOr<JobInfo> ReadJob(std::string_view id) const;

  // Asks the job's supervisor to cancel it and waits up to `timeout` for the
  // job to become terminal; the supervisor stops the replicas (SIGTERM, then
  // SIGKILL after its grace period) and records CANCELLED. A terminal job is
  // returned unchanged. When the supervisor is gone, the replica process
  // groups are killed here and the job is marked CANCELLED (or FAILED with
  // the supervisor message when no replica was running).
  // DeadlineExceeded when the job is still not terminal after `timeout`;
  // FailedPrecondition for a Vertex or Kubernetes job (their driver's
  // BackendDriver::Cancel reaches the service or cluster).
  absl::StatusOr<jobspec::CustomJob> CancelJob(std::string_view id, absl::Duration timeout) const;

 private:
  JobStore store_;
};

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_JOB_CLIENT_H_
