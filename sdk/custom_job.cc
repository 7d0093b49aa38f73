#include "sdk/custom_job.h"

#include <mutex>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/environment.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "jobspec/job_secret.h"
#include "jobspec/validation.h"
#include "sdk/internal/job_backend.h"
#include "sdk/internal/job_id.h"
#include "sdk/internal/job_recorder.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/local_process_backend.h"
#include "sdk/internal/python_package_image.h"
#include "sdk/internal/remote_job_recorder.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/job_store.h"
#include "sdk/k8s/internal/k8s_backend.h"
#include "sdk/k8s/k8s_job_record.h"
#include "sdk/k8s/k8s_submission.h"
#include "sdk/slurm/internal/slurm_backend.h"
#include "sdk/slurm/internal/slurm_job_check.h"
#include "sdk/vertex/internal/vertex_backend.h"
#include "sdk/vertex/internal/vertex_job_recorder.h"
#include "sdk/vertex/vertex_client_factory.h"

namespace trainpkg::sdk {
namespace {

// A local base output directory is made absolute and created, as Vertex
// creates a missing gs:// prefix; URIs ("gs://", "file://") are left alone.
absl::Status PrepareOutputDirectory(std::string& dir, const std::filesystem::path& cwd) {
  if (absl::StrContains(dir, "://")) return absl::OkStatus();
  std::filesystem::path path(dir);
  if (path.is_relative()) dir = (cwd / path).lexically_normal().string();
  if (!absl::EndsWith(dir, "/")) dir += "/";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("jobSpec.baseOutputDirectory: creating ", dir, ": ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace

class CustomJob::Impl {
 public:
  Impl(jobspec::CustomJob job, CustomJobOptions options, std::string id,
       std::map<std::string, std::string> environment,
       std::shared_ptr<vertex::VertexClient> vertex_client)
      : options_(std::move(options)),
        environment_(std::move(environment)),
        vertex_client_(std::move(vertex_client)),
        id_(std::move(id)),
        name_(id_.empty() ? std::string()
                          : internal::JobResourceName(options_.project_id, options_.location, id_)),
        store_(options_.home),
        // Local and Slurm jobs live in the job store; Vertex ones once
        // submitted (SubmitToVertex); Kubernetes ones do not.
        job_dir_(id_.empty() || options_.backend == JobBackendKind::kVertex ||
                         options_.backend == JobBackendKind::kK8s
                     ? std::filesystem::path()
                     : store_.JobDir(id_)),
        log_(options_.log_stream),
        job_(std::move(job)) {
    job_.name = name_;
  }

  absl::Status Submit() {
    std::lock_guard<std::mutex> lock(mu_);
    if (backend_ != nullptr) {
      return absl::FailedPreconditionError(absl::StrCat("job ", id_, " was already submitted"));
    }
    log_.WriteLine("", "Creating CustomJob");
    if (vertex_client_ != nullptr) return SubmitToVertex();
    if (k8s_pending_ != nullptr) return SubmitToK8s();
    jobspec::CustomJob job = job_;
    std::error_code ec;
    std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (ec)
      return absl::InternalError(absl::StrCat("reading the current directory: ", ec.message()));
    internal::AbsolutizeLocalImages(job.job_spec, cwd);
    TP_ASSIGN_OR_RETURN(std::vector<internal::ReplicaPlan> plans,
                        internal::PlanReplicas(job.job_spec));
    auto path = environment_.find("PATH");
    TP_RETURN_IF_ERROR(internal::CheckExecutables(
        plans, path == environment_.end() ? std::string() : path->second));
    // pythonPackageSpec pools: their executors with the packages installed,
    // built (or found) once per job before anything is recorded.
    TP_RETURN_IF_ERROR(internal::PreparePythonPackageImages(
        plans, internal::PythonPackageImageOptions{
                   .home = store_.home(),
                   .cwd = cwd,
                   .environment = environment_,
                   .log = [this](std::string_view line) { log_.WriteLine("", line); }}));
    // One secret for the job's replicas to authenticate their RPCs with.
    TP_ASSIGN_OR_RETURN(std::string job_secret, jobspec::NewJobSecret());
    TP_RETURN_IF_ERROR(store_.CreateJobDir(id_));
    std::string& output = job.job_spec.base_output_directory;
    if (output.empty()) {
      // In the job store: private like the rest of the job directory.
      TP_RETURN_IF_ERROR(MakePrivateDir(job_dir_ / "output", ExistingDir::kNarrow));
      output = (job_dir_ / "output/").string();
    }
    TP_RETURN_IF_ERROR(PrepareOutputDirectory(output, cwd));

    auto recorder =
        std::make_shared<internal::JobRecorder>(store_, id_, job, &log_, options_.clock);
    TP_RETURN_IF_ERROR(recorder->Create());
    log_.WriteLine("", absl::StrCat("CustomJob created. Resource name: ", name_));
    log_.WriteLine(
        "",
        absl::StrCat("To use this CustomJob in another session:\ntrainpkg jobs describe ", id_));
    internal::LocalProcessBackendConfig config{
        .job_id = id_,
        .project_id = options_.project_id,
        .spec = job.job_spec,
        .plans = std::move(plans),
        .environment = environment_,
        .job_secret = std::move(job_secret),
        .grace_period = options_.cancel_grace_period,
        .launcher = options_.launcher,
        .store = store_,
        .live = options_.stream_replica_output ? &log_ : nullptr,
        .host_network = options_.host_network,
    };
    std::unique_ptr<internal::JobBackend> backend;
    if (options_.backend == JobBackendKind::kSlurm) {
      backend = std::make_unique<slurm::internal::SlurmBackend>(
          slurm::internal::SlurmBackendConfig{.job = std::move(config), .options = options_.slurm},
          recorder);
    } else {
      backend = std::make_unique<internal::LocalProcessBackend>(std::move(config), recorder);
    }
    TP_RETURN_IF_ERROR(backend->Start());
    recorder_ = std::move(recorder);
    backend_ = std::move(backend);
    return absl::OkStatus();
  }

  absl::StatusOr<jobspec::CustomJob> Wait() {
    internal::JobBackend* backend = Backend();
    if (backend == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat("job ", id_, " was not submitted"));
    }
    backend->Wait();
    if (vertex_ != nullptr) return vertex_->Result();
    if (k8s_ != nullptr) return k8s_->Result();
    return recorder_->job();
  }

  void Cancel(bool immediately) {
    internal::JobBackend* backend = Backend();
    if (backend == nullptr || jobspec::IsTerminal(Current().state)) return;
    if (!cancel_logged_.exchange(true)) {
      log_.WriteLine("", absl::StrCat("Cancelling CustomJob run: ", name_));
    }
    backend->Cancel(immediately);
  }

  jobspec::CustomJob job() const {
    std::lock_guard<std::mutex> lock(mu_);
    return backend_ != nullptr ? Current() : job_;
  }

  const std::string& id() const { return id_; }
  const std::string& name() const { return name_; }
  const std::filesystem::path& job_dir() const { return job_dir_; }
  internal::LineStream* log() { return &log_; }

 private:
  // The submitted job as the backend sees it. REQUIRES: submitted.
  jobspec::CustomJob Current() const {
    if (k8s_ != nullptr) return k8s_->job();
    return vertex_ != nullptr ? vertex_->job() : recorder_->job();
  }

  // Creates the job on the service; id_ and name_ become the service's.
  // The job is recorded in the job store (sdk/vertex/vertex_job_record.h)
  // when it has a home. REQUIRES: mu_ held, not yet submitted.
  absl::Status SubmitToVertex() {
    std::shared_ptr<vertex::internal::VertexJobRecorder> recorder = MakeVertexRecorder();
    vertex::internal::VertexBackend::Observer observer;
    if (recorder != nullptr) {
      observer = [recorder](const jobspec::CustomJob& job, jobspec::JobState previous) {
        recorder->Record(job, previous);
      };
    }
    auto backend = std::make_unique<vertex::internal::VertexBackend>(
        vertex_client_, options_.vertex, job_, &log_, std::move(observer));
    TP_RETURN_IF_ERROR(backend->Start());
    name_ = backend->job().name;
    std::vector<std::string> parts = absl::StrSplit(name_, '/');
    id_ = parts.back();
    if (recorder != nullptr) job_dir_ = recorder->job_dir();
    vertex_ = backend.get();
    backend_ = std::move(backend);
    return absl::OkStatus();
  }

  // nullptr (and a warning) when there is no job store home.
  std::shared_ptr<vertex::internal::VertexJobRecorder> MakeVertexRecorder() {
    std::filesystem::path home = options_.home;
    if (home.empty()) {
      absl::StatusOr<std::filesystem::path> found =
          DefaultJobStoreHome(base::MapEnvironment(environment_));
      if (!found.ok()) {
        TP_LOG(WARNING, "not recording the job in the job store: {}", found.status().ToString());
        return nullptr;
      }
      home = *std::move(found);
    }
    return std::make_shared<vertex::internal::VertexJobRecorder>(
        JobStore(home), vertex::VertexJobRecord{.endpoint = vertex_client_->endpoint(),
                                                .project = options_.vertex.project,
                                                .location = options_.vertex.location,
                                                .name = ""});
  }

  // Creates the objects on the cluster. REQUIRES: mu_ held, not yet submitted.
  absl::Status SubmitToK8s() {
    TP_RETURN_IF_ERROR(k8s_pending_->Start());
    name_ = k8s_pending_->job().name;
    k8s_ = k8s_pending_.get();
    backend_ = std::move(k8s_pending_);
    return absl::OkStatus();
  }

 public:
  // kK8s: the backend, created but not started. REQUIRES: before Submit().
  void SetK8sBackend(std::unique_ptr<k8s::internal::K8sBackend> backend) {
    k8s_pending_ = std::move(backend);
    name_ = k8s_pending_->job().name;
    job_.name = name_;
  }

 private:
  // The backend once submitted, else nullptr. Neither it nor recorder_
  // changes afterwards, so callers may use them without the lock.
  internal::JobBackend* Backend() const {
    std::lock_guard<std::mutex> lock(mu_);
    return backend_.get();
  }

  const CustomJobOptions options_;
  const std::map<std::string, std::string> environment_;
  const std::shared_ptr<vertex::VertexClient> vertex_client_;  // kVertex only
  std::string id_;                                             // kVertex: set once by Submit()
  std::string name_;                                           // kVertex: set once by Submit()
  const JobStore store_;
  std::filesystem::path job_dir_;  // kVertex: set once by Submit()
  internal::LineStream log_;
  std::atomic<bool> cancel_logged_{false};
  mutable std::mutex mu_;
  jobspec::CustomJob job_;                                  // as created; guarded by mu_
  std::shared_ptr<internal::JobRecorder> recorder_;         // set once by Submit()
  vertex::internal::VertexBackend* vertex_ = nullptr;       // backend_ when kVertex
  std::unique_ptr<k8s::internal::K8sBackend> k8s_pending_;  // kK8s until Submit()
  k8s::internal::K8sBackend* k8s_ = nullptr;                // backend_ when kK8s
  std::unique_ptr<internal::JobBackend> backend_;           // set once by Submit(); destroyed first
};

absl::StatusOr<CustomJob> CustomJob::Create(jobspec::CustomJob job, CustomJobOptions options) {
  TP_RETURN_IF_ERROR(jobspec::ValidateCustomJob(job));
  if (options.backend == JobBackendKind::kVertex) {
    std::map<std::string, std::string> environment =
        options.environment.has_value() ? *options.environment : base::SnapshotProcessEnvironment();
    TP_ASSIGN_OR_RETURN(
        std::shared_ptr<vertex::VertexClient> client,
        vertex::MakeVertexClient(options.vertex, base::MapEnvironment(environment)));
    return CustomJob(std::make_shared<Impl>(std::move(job), std::move(options), std::string(),
                                            std::move(environment), std::move(client)));
  }
  if (options.backend == JobBackendKind::kK8s)
    return CreateOnK8s(std::move(job), std::move(options));
  TP_ASSIGN_OR_RETURN(std::vector<internal::ReplicaPlan> plans,
                      internal::PlanReplicas(job.job_spec));
  if (options.backend == JobBackendKind::kSlurm) {
    TP_RETURN_IF_ERROR(slurm::internal::CheckSlurmJob(job.job_spec, plans, options.slurm));
  }
  std::map<std::string, std::string> environment =
      options.environment.has_value() ? *options.environment : base::SnapshotProcessEnvironment();
  if (options.home.empty()) {
    TP_ASSIGN_OR_RETURN(options.home, DefaultJobStoreHome(base::MapEnvironment(environment)));
  }
  if (!options.clock) options.clock = [] { return absl::Now(); };
  if (options.launcher == nullptr) options.launcher = DefaultProcessLauncher();
  std::string id = options.job_id;
  if (id.empty()) {
    id = internal::GenerateJobId(options.clock());
  } else {
    TP_RETURN_IF_ERROR(jobspec::ValidateJobId(id));
  }
  return CustomJob(std::make_shared<Impl>(std::move(job), std::move(options), std::move(id),
                                          std::move(environment), nullptr));
}

absl::StatusOr<CustomJob> CustomJob::CreateOnK8s(jobspec::CustomJob job, CustomJobOptions options) {
  std::map<std::string, std::string> environment =
      options.environment.has_value() ? *options.environment : base::SnapshotProcessEnvironment();
  if (!options.clock) options.clock = [] { return absl::Now(); };
  std::string id = options.job_id.empty() ? k8s::DefaultJobName(options.clock()) : options.job_id;
  base::MapEnvironment env(environment);
  TP_ASSIGN_OR_RETURN(k8s::K8sSubmission submission,
                      k8s::PrepareK8sSubmission(job, options.k8s, id, env));
  k8s::internal::K8sBackendConfig config{.client = submission.client,
                                         .options = options.k8s,
                                         .manifests = std::move(submission.manifests),
                                         .job = job,
                                         .log = nullptr,
                                         .stream_pod_logs = options.stream_replica_output};
  if (options.home.empty()) {
    absl::StatusOr<std::filesystem::path> home = DefaultJobStoreHome(env);
    if (home.ok()) {
      options.home = *std::move(home);
    } else {
      TP_LOG(WARNING, "not recording the job in the job store: {}", home.status().ToString());
    }
  }
  if (!options.home.empty()) {
    const nlohmann::json& workload = config.manifests.workload;
    auto recorder = std::make_shared<internal::RemoteJobRecorder>(
        JobStore(options.home),
        k8s::K8sJobRecordHooks(k8s::K8sJobRecord{
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
  auto impl = std::make_shared<Impl>(std::move(job), std::move(options), id, std::move(environment),
                                     nullptr);
  config.log = impl->log();
  impl->SetK8sBackend(std::make_unique<k8s::internal::K8sBackend>(std::move(config)));
  return CustomJob(std::move(impl));
}

absl::StatusOr<jobspec::CustomJob> CustomJob::Run() {
  TP_RETURN_IF_ERROR(Submit());
  return Wait();
}

absl::Status CustomJob::Submit() { return impl_->Submit(); }
absl::StatusOr<jobspec::CustomJob> CustomJob::Wait() { return impl_->Wait(); }
void CustomJob::Cancel() { impl_->Cancel(/*immediately=*/false); }
void CustomJob::Kill() { impl_->Cancel(/*immediately=*/true); }
jobspec::CustomJob CustomJob::job() const { return impl_->job(); }
const std::string& CustomJob::job_id() const { return impl_->id(); }
const std::string& CustomJob::resource_name() const { return impl_->name(); }
const std::filesystem::path& CustomJob::job_dir() const { return impl_->job_dir(); }

}  // namespace trainpkg::sdk
