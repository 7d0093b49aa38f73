// Mirrors a job that runs elsewhere (Vertex AI, a Kubernetes cluster) into
// the local job store (sdk/job_store.h) as its backend sees it change, so
// `trainpkg jobs` lists it and can reach it again:
//
//   <home>/jobs/<id>/job.json       the CustomJob as last seen
//                    history.jsonl  one line per state change seen
//                    <record file>  where the job lives, the backend's own
//                                   (vertex.json, k8s.json); never a credential
#ifndef TRAINPKG_SDK_INTERNAL_REMOTE_JOB_RECORDER_H_
#define TRAINPKG_SDK_INTERNAL_REMOTE_JOB_RECORDER_H_

#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/job_store.h"

namespace trainpkg::sdk::internal {

// Writes `job` as job.json of job `id` and, when its state is not `previous`,
// appends a history line at `now`.
absl::Status RecordRemoteJobState(const JobStore& store, std::string_view id,
                                  const jobspec::CustomJob& job, jobspec::JobState previous,
                                  absl::Time now);

// What a backend's record is, for RemoteJobRecorder.
struct RemoteJobRecordHooks {
  // The store id of a submitted job (from its resource name).
  std::function<absl::StatusOr<std::string>(const jobspec::CustomJob& job)> id;
  // Writes the backend's record file of job `id`.
  std::function<absl::Status(const JobStore& store, std::string_view id,
                             const jobspec::CustomJob& job)>
      write;
  // True when the record file of existing job `id` is this job's.
  std::function<bool(const JobStore& store, std::string_view id, const jobspec::CustomJob& job)>
      is_this_job;
};

// Thread-safe.
class RemoteJobRecorder {
 public:
  RemoteJobRecorder(JobStore store, RemoteJobRecordHooks hooks);

  // The first call creates the record (job directory, record file) under the
  // job's id; every call writes job.json and, on a state change, a history
  // line. A directory of that id recording another job is left alone and
  // nothing is recorded. Store errors are logged, not returned: the job goes
  // on without its record.
  void Record(const jobspec::CustomJob& job, jobspec::JobState previous);

  // The job directory once recorded, else empty.
  std::filesystem::path job_dir() const;

 private:
  // REQUIRES: mu_ held.
  absl::Status CreateRecord(const jobspec::CustomJob& job);

  const JobStore store_;
  const RemoteJobRecordHooks hooks_;
  mutable std::mutex mu_;
  std::string id_;       // guarded by mu_; set once recorded
  bool failed_ = false;  // guarded by mu_
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_REMOTE_JOB_RECORDER_H_
