// Mirrors a job the Vertex backend submitted into the local job store
// (sdk/vertex/vertex_job_record.h) as the backend sees it change.
#ifndef TRAINPKG_SDK_VERTEX_INTERNAL_VERTEX_JOB_RECORDER_H_
#define TRAINPKG_SDK_VERTEX_INTERNAL_VERTEX_JOB_RECORDER_H_

#include <filesystem>
#include <mutex>
#include <string>

#include "jobspec/custom_job.h"
#include "sdk/job_store.h"
#include "sdk/vertex/vertex_job_record.h"

namespace trainpkg::sdk::vertex::internal {

// Thread-safe.
class VertexJobRecorder {
 public:
  // `where` has endpoint, project and location; the name comes with the job.
  VertexJobRecorder(JobStore store, VertexJobRecord where);

  // The first call creates the record (job directory, vertex.json) under the
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
  mutable std::mutex mu_;
  VertexJobRecord record_;  // guarded by mu_
  std::string id_;          // guarded by mu_; set once recorded
  bool failed_ = false;     // guarded by mu_
};

}  // namespace trainpkg::sdk::vertex::internal

#endif  // TRAINPKG_SDK_VERTEX_INTERNAL_VERTEX_JOB_RECORDER_H_
