#include "sdk/k8s/k8s_driver.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/clock.h"
#include "base/environment.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/remote_job_recorder.h"
#include "sdk/k8s/internal/k8s_backend.h"
#include "sdk/k8s/job_manifests.h"
#include "sdk/k8s/k8s_job_record.h"
#include "sdk/k8s/k8s_submission.h"

namespace trainpkg::sdk::k8s {
namespace {

using sdk::internal::LineStream;

// The objects are named `id` from Prepare() on.
class K8sJob final : public BackendJob {
 public:
  K8sJob(internal::K8sBackendConfig config, std::string id)
      : engine_(std::make_unique<internal::K8sBackend>(std::move(config))),
        id_(std::move(id)),
        name_(engine_->job().name) {}

  absl::Status Start() override { return engine_->Start(); }
  absl::StatusOr<jobspec::CustomJob> Wait() override {
    engine_->Wait();
    return engine_->Result();
  }
  jobspec::CustomJob Current() const override { return engine_->job(); }
  void Cancel(bool immediately) override { engine_->Cancel(immediately); }
  const std::string& id() const override { return id_; }
  const std::string& name() const override { return name_; }
  const std::filesystem::path& job_dir() const override { return job_dir_; }

 private:
  const std::unique_ptr<internal::K8sBackend> engine_;
  const std::string id_;
  const std::string name_;
  const std::filesystem::path job_dir_;  // not in the job store
};

class Driver final : public BackendDriver {
 public:
  JobBackendKind kind() const override { return JobBackendKind::kK8s; }
  std::string_view name() const override { return "k8s"; }
  std::optional<RemotePlace> remote() const override {
    return RemotePlace{.platform = "Kubernetes", .source = "the cluster"};
  }
  absl::Status CheckJobId(std::string_view id) const override { return CheckWorkloadName(id); }

  // The errors of PrepareK8sSubmission (kubeconfig, registry credentials,
  // what a cluster cannot run).
  absl::StatusOr<std::unique_ptr<BackendJob>> Prepare(jobspec::CustomJob job,
                                                      CustomJobOptions options,
                                                      LineStream* log) const override;

  bool ClaimsRecord(const JobStore& store, std::string_view id) const override {
    return ReadK8sJobRecord(store, id).ok();
  }
  absl::Status ReadRecord(const JobStore& store, JobInfo& info) const override {
    TP_ASSIGN_OR_RETURN(info.k8s, ReadK8sJobRecord(store, info.id));
    return absl::OkStatus();
  }
  bool StopOrphan(const JobStore&, const JobInfo&) const override { return false; }
  absl::StatusOr<jobspec::CustomJob> Refresh(const JobStore& store, const JobInfo& info,
                                             const RecordAccess&) const override {
    TP_ASSIGN_OR_RETURN(std::shared_ptr<K8sClient> client, MakeK8sClientFor(*info.k8s));
    return RefreshRecordedK8sJob(store, info.id, *client);
  }
  absl::StatusOr<jobspec::CustomJob> Cancel(const JobStore& store, const JobInfo& info,
                                            const RecordAccess&,
                                            absl::Duration timeout) const override {
    TP_ASSIGN_OR_RETURN(std::shared_ptr<K8sClient> client, MakeK8sClientFor(*info.k8s));
    return CancelRecordedK8sJob(store, info.id, *client, timeout);
  }
  absl::Status CheckLogs(const JobInfo& info, const JobLogsOptions& options) const override {
    if (!options.follow) return absl::OkStatus();
    const ObjectRef& workload = info.k8s->workload;
    return absl::FailedPreconditionError(absl::StrCat(
        "following logs reads local replica logs; job ", info.id,
        " runs on Kubernetes: run kubectl logs -f -n ", workload.kubernetes_namespace, " -l ",
        kJobLabel, "=", workload.name, " --prefix"));
  }
  absl::Status WriteLogs(const JobStore& store, const JobInfo& info, const JobLogsOptions& options,
                         std::ostream& out) const override {
    TP_RETURN_IF_ERROR(CheckLogs(info, options));
    TP_ASSIGN_OR_RETURN(std::shared_ptr<K8sClient> client, MakeK8sClientFor(*info.k8s));
    return WriteRecordedK8sJobLogs(store, info.id, *client, options.replica, out);
  }
};

absl::StatusOr<std::unique_ptr<BackendJob>> Driver::Prepare(jobspec::CustomJob job,
                                                            CustomJobOptions options,
                                                            LineStream* log) const {
  if (options.clock == nullptr) options.clock = &base::RealClock();
  std::string id = options.job_id;
  if (id.empty()) {
    id = DefaultJobName(options.clock->Now());
  } else if (absl::Status status = CheckJobId(id); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("job_id: ", status.message()));
  }
  base::MapEnvironment env(*options.environment);
  TP_ASSIGN_OR_RETURN(K8sSubmission submission, PrepareK8sSubmission(job, options.k8s, id, env));
  internal::K8sBackendConfig config{.client = submission.client,
                                    .options = options.k8s,
                                    .manifests = std::move(submission.manifests),
                                    .job = std::move(job),
                                    .log = log,
                                    .stream_pod_logs = options.stream_replica_output};
  std::filesystem::path home = options.home;
  if (home.empty()) {
    absl::StatusOr<std::filesystem::path> found = DefaultJobStoreHome(env);
    if (found.ok()) {
      home = *std::move(found);
    } else {
      TP_LOG(WARNING, "not recording the job in the job store: {}", found.status().ToString());
    }
  }
  if (!home.empty()) {
    const nlohmann::json& workload = config.manifests.workload;
    auto recorder = std::make_shared<sdk::internal::RemoteJobRecorder>(
        JobStore(home),
        K8sJobRecordHooks(K8sJobRecord{
            .kubeconfig = submission.kubeconfig.string(),
            .context = submission.context,
            .workload = {.api_version = workload.value("apiVersion", ""),
                         .kind = workload.value("kind", ""),
                         .kubernetes_namespace = workload["metadata"].value("namespace", ""),
                         .name = workload["metadata"].value("name", "")}}));
    config.observer = [recorder](const jobspec::CustomJob& j, jobspec::JobState previous) {
      recorder->Record(j, previous);
    };
  }
  return std::make_unique<K8sJob>(std::move(config), std::move(id));
}

}  // namespace

const BackendDriver& K8sDriver() {
  static const Driver driver;
  return driver;
}

}  // namespace trainpkg::sdk::k8s
