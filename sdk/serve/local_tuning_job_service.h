// `trainpkg serve`'s hyperparameterTuningJobs: Vertex AI REST v1 semantics
// (create, get, list, cancel) over the local tuning service
// (sdk/hptune/hyperparameter_tuning_job.h) and the tuning job store, without
// HTTP (job_http_server.h carries it).
//
// Resource names are projects/<p>/locations/<l>/hyperparameterTuningJobs/<id>;
// a job is found only under the parent it was created in. Trials run as local
// CustomJobs recorded in the same home, so customJobs get/list show them.
// Replies are proto3 JSON (jobspec/hyperparameter_tuning_job_json.h) or
// google.rpc.Status errors.
#ifndef TRAINPKG_SDK_SERVE_LOCAL_TUNING_JOB_SERVICE_H_
#define TRAINPKG_SDK_SERVE_LOCAL_TUNING_JOB_SERVICE_H_

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "sdk/hptune/hyperparameter_tuning_job.h"
#include "sdk/process_launcher.h"
#include "sdk/serve/image_policy.h"
#include "sdk/serve/local_job_service.h"

namespace trainpkg::sdk::serve {

struct LocalTuningJobServiceOptions {
  std::filesystem::path home;                      // the job store home (required)
  std::map<std::string, std::string> environment;  // what trial replicas inherit
  std::shared_ptr<ProcessLauncher> launcher;       // nullptr: DefaultProcessLauncher()
  absl::Duration cancel_grace_period = absl::Seconds(10);
  absl::Duration poll_interval = absl::Milliseconds(250);
  ImagePolicy images;  // what trials may run (image_policy.h); default: no local: executables
  int max_running_jobs = 16;  // studies created here and not yet terminal, at most
};

// Thread-safe. Destroying the service cancels the studies it started and
// waits for them.
class LocalTuningJobService {
 public:
  explicit LocalTuningJobService(LocalTuningJobServiceOptions options);
  ~LocalTuningJobService();

  // POST .../hyperparameterTuningJobs with a HyperparameterTuningJob body:
  // 200 with the job (QUEUED or later); 400 INVALID_ARGUMENT for a body that
  // does not parse or validate (the message lists each field path); 403
  // PERMISSION_DENIED (with the imageUri's field under trialJobSpec) for an
  // image the ImagePolicy does not allow; 429 RESOURCE_EXHAUSTED while
  // max_running_jobs studies run. Nothing is pulled or run when refused.
  RestReply Create(std::string_view project, std::string_view location, std::string_view body);
  // The job with its trials; 404 NOT_FOUND when there is none under the parent.
  RestReply Get(std::string_view project, std::string_view location, std::string_view id);
  // {"hyperparameterTuningJobs": [...]} under the parent, newest first.
  RestReply List(std::string_view project, std::string_view location);
  // {} at once; the study's running trials are cancelled and it ends CANCELLED.
  RestReply Cancel(std::string_view project, std::string_view location, std::string_view id);

 private:
  // Drops the handles of studies that finished. REQUIRES: mu_ held.
  void ReapFinished();

  const LocalTuningJobServiceOptions options_;
  std::mutex mu_;
  std::map<std::string, HyperparameterTuningJob> running_;  // by id; guarded by mu_
  int starting_ = 0;  // creations past the running-studies check; guarded by mu_
};

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_LOCAL_TUNING_JOB_SERVICE_H_
