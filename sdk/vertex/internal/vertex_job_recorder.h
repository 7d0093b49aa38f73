// Mirrors a job the Vertex backend submitted into the local job store
// (sdk/vertex/vertex_job_record.h) as the backend sees it change.
#ifndef TRAINPKG_SDK_VERTEX_INTERNAL_VERTEX_JOB_RECORDER_H_
#define TRAINPKG_SDK_VERTEX_INTERNAL_VERTEX_JOB_RECORDER_H_

#include <filesystem>

#include "jobspec/custom_job.h"
#include "sdk/internal/remote_job_recorder.h"
#include "sdk/job_store.h"
#include "sdk/vertex/vertex_job_record.h"

namespace trainpkg::sdk::vertex::internal {

// Thread-safe. Record() and job_dir() as sdk::internal::RemoteJobRecorder's,
// with vertex.json as the record.
class VertexJobRecorder {
 public:
  // `where` has endpoint, project and location; the name comes with the job.
  VertexJobRecorder(JobStore store, VertexJobRecord where);

  void Record(const jobspec::CustomJob& job, jobspec::JobState previous) {
    recorder_.Record(job, previous);
  }
  std::filesystem::path job_dir() const { return recorder_.job_dir(); }

 private:
  sdk::internal::RemoteJobRecorder recorder_;
};

}  // namespace trainpkg::sdk::vertex::internal

#endif  // TRAINPKG_SDK_VERTEX_INTERNAL_VERTEX_JOB_RECORDER_H_
