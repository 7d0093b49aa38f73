// The logic of `trainpkg serve`: Vertex AI REST v1 customJobs semantics over
// the local backend and the job store, without HTTP (job_http_server.h
// carries it), so it is tested alone.
//
// Resource names are projects/<p>/locations/<l>/customJobs/<id>; any project
// and location are accepted and become part of the job's name, and a job is
// found only under the parent it was created in. Replies are proto3 JSON
// (jobspec/custom_job_json.h) or google.rpc.Status errors (rpc_error.h), with
// a BadRequest detail listing each invalid field's path.
#ifndef TRAINPKG_SDK_SERVE_LOCAL_JOB_SERVICE_H_
#define TRAINPKG_SDK_SERVE_LOCAL_JOB_SERVICE_H_

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "sdk/custom_job.h"
#include "sdk/job_client.h"
#include "sdk/process_launcher.h"
#include "sdk/serve/image_policy.h"

namespace trainpkg::sdk::serve {

struct RestReply {
  int status = 200;
  nlohmann::json body;
};

struct LocalJobServiceOptions {
  std::filesystem::path home;                      // the job store home (required)
  std::map<std::string, std::string> environment;  // what replicas inherit
  std::shared_ptr<ProcessLauncher> launcher;       // nullptr: DefaultProcessLauncher()
  absl::Duration cancel_grace_period = absl::Seconds(10);
  int default_page_size = 100;
  int max_page_size = 1000;
  ImagePolicy images;         // what jobs may run (image_policy.h); default: no local: executables
  int max_running_jobs = 16;  // jobs created here and not yet terminal, at most
};

// Thread-safe. Destroying the service cancels the jobs it started and waits
// for their replicas to stop.
class LocalJobService {
 public:
  explicit LocalJobService(LocalJobServiceOptions options);
  ~LocalJobService();

  // POST .../customJobs with a CustomJob body. 200 with the job (QUEUED or
  // later); 400 INVALID_ARGUMENT for a body that is not a valid CustomJob or
  // names a missing executable or image, with fieldViolations; 403
  // PERMISSION_DENIED (with the imageUri's field) for an image the
  // ImagePolicy does not allow; 429 RESOURCE_EXHAUSTED while
  // max_running_jobs jobs run. Nothing is pulled or run when refused.
  RestReply CreateCustomJob(std::string_view project, std::string_view location,
                            std::string_view body);
  // 404 NOT_FOUND when there is no such job under that parent.
  RestReply GetCustomJob(std::string_view project, std::string_view location, std::string_view id);
  // {"customJobs": [...], "nextPageToken": "..."}, newest first. `page_size`
  // and `page_token` as given in the query ("" when absent).
  RestReply ListCustomJobs(std::string_view project, std::string_view location,
                           std::string_view filter, std::string_view page_size,
                           std::string_view page_token);
  // {} at once; the job goes CANCELLING then CANCELLED (replicas get SIGTERM,
  // then SIGKILL after the grace period). No effect on a terminal job.
  RestReply CancelCustomJob(std::string_view project, std::string_view location,
                            std::string_view id);
  // A done google.longrunning.Operation; the job's record and logs are
  // removed. 400 FAILED_PRECONDITION while the job is not terminal.
  RestReply DeleteCustomJob(std::string_view project, std::string_view location,
                            std::string_view id);

 private:
  // The job with `id` under the parent, or a 404 reply.
  std::optional<RestReply> Lookup(std::string_view project, std::string_view location,
                                  std::string_view id, jobspec::CustomJob& job) const;
  // Drops the handles of jobs that finished. REQUIRES: mu_ held.
  void ReapFinished();

  const LocalJobServiceOptions options_;
  const JobClient client_;
  std::mutex mu_;
  std::map<std::string, CustomJob> running_;  // by id; guarded by mu_
  int starting_ = 0;  // creations past the running-jobs check, not yet in running_; guarded by mu_
  int operations_ = 0;  // guarded by mu_
};

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_LOCAL_JOB_SERVICE_H_
