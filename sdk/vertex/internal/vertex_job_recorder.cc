#include "sdk/vertex/internal/vertex_job_recorder.h"

namespace trainpkg::sdk::vertex::internal {
namespace {

VertexJobRecord Named(VertexJobRecord where, const jobspec::CustomJob& job) {
  where.name = job.name;
  return where;
}

}  // namespace

VertexJobRecorder::VertexJobRecorder(JobStore store, VertexJobRecord where)
    : recorder_(
          std::move(store),
          {.id = [](const jobspec::CustomJob& job) { return VertexJobStoreId(job.name); },
           .write =
               [where](const JobStore& s, std::string_view id, const jobspec::CustomJob& job) {
                 return WriteVertexJobRecord(s, id, Named(where, job));
               },
           .is_this_job =
               [where](const JobStore& s, std::string_view id, const jobspec::CustomJob& job) {
                 absl::StatusOr<VertexJobRecord> existing = ReadVertexJobRecord(s, id);
                 return existing.ok() && *existing == Named(where, job);
               }}) {}

}  // namespace trainpkg::sdk::vertex::internal
