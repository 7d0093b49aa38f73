// Jobs the Vertex backend submitted, kept in the local job store
// (sdk/job_store.h) so `trainpkg jobs` can list them and reach them again:
//
//   <home>/jobs/<id>/job.json       the CustomJob as the service last returned it
//                    history.jsonl  one line per state change seen
//                    vertex.json    where the job lives (VertexJobRecord)
//
// <id> is the service's job id, the last segment of the resource name. No
// token or other credential is ever written. Vertex AI keeps replica logs
// in Cloud Logging, so such a job has no logs/ content.
#ifndef TRAINPKG_SDK_VERTEX_VERTEX_JOB_RECORD_H_
#define TRAINPKG_SDK_VERTEX_VERTEX_JOB_RECORD_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/job_store.h"
#include "sdk/vertex/vertex_client.h"

namespace trainpkg::sdk::vertex {

struct VertexJobRecord {
  std::string endpoint;  // "https://us-central1-aiplatform.googleapis.com"
  std::string project;
  std::string location;
  std::string name;  // "projects/<p>/locations/<l>/customJobs/<id>"
  bool operator==(const VertexJobRecord&) const = default;
};

// vertex.json text (pretty, camelCase keys) and back. Parse errors are
// InvalidArgument naming the field; every field is required.
std::string FormatVertexJobRecord(const VertexJobRecord& record);
absl::StatusOr<VertexJobRecord> ParseVertexJobRecord(std::string_view text);

// The store id of a job: the last segment of its resource name.
// InvalidArgument when `name` has no such segment or it is not a plain name.
absl::StatusOr<std::string> VertexJobStoreId(std::string_view name);

std::filesystem::path VertexJobRecordFile(const JobStore& store, std::string_view id);
absl::Status WriteVertexJobRecord(const JobStore& store, std::string_view id,
                                  const VertexJobRecord& record);
// NotFound when job `id` has no vertex.json (it is not a Vertex job);
// DataLoss naming the file when it does not parse.
absl::StatusOr<VertexJobRecord> ReadVertexJobRecord(const JobStore& store, std::string_view id);

// Writes `job` as job.json and, when its state is not `previous`, appends
// a history line at `now`.
absl::Status RecordVertexJobState(const JobStore& store, std::string_view id,
                                  const jobspec::CustomJob& job, jobspec::JobState previous,
                                  absl::Time now);

// GETs recorded job `id` from the service and records what it returned.
// NotFound when it is not a Vertex job; the client's errors.
absl::StatusOr<jobspec::CustomJob> RefreshRecordedVertexJob(const JobStore& store,
                                                            std::string_view id,
                                                            VertexClient& client);

// Asks the service to cancel recorded job `id` (unless the record is already
// terminal), then polls it every `poll_interval`, recording each state, until
// it is terminal. DeadlineExceeded when it is not terminal after `timeout`.
absl::StatusOr<jobspec::CustomJob> CancelRecordedVertexJob(
    const JobStore& store, std::string_view id, VertexClient& client, absl::Duration timeout,
    absl::Duration poll_interval = absl::Milliseconds(500));

}  // namespace trainpkg::sdk::vertex

#endif  // TRAINPKG_SDK_VERTEX_VERTEX_JOB_RECORD_H_
