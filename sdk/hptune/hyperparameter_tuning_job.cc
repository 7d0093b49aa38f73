#include "sdk/hptune/hyperparameter_tuning_job.h"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "base/clock.h"
#include "base/environment.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/hyperparameter_tuning_job_validation.h"
#include "sdk/hptune/internal/vertex_study.h"
#include "sdk/hptune/results_table.h"
#include "sdk/hptune/tuning_job_store.h"
#include "sdk/hptune/tuning_service.h"
#include "sdk/internal/job_id.h"
#include "sdk/job_store.h"
#include "sdk/vertex/vertex_client_factory.h"

namespace trainpkg::sdk {

class HyperparameterTuningJob::Impl {
 public:
  Impl(jobspec::HyperparameterTuningJob job, HyperparameterTuningJobOptions options,
       std::filesystem::path home)
      : job_(std::move(job)), options_(std::move(options)), store_(std::move(home)) {}

  ~Impl() {
    if (thread_.joinable()) {
      if (service_) service_->Cancel();
      if (vertex_) vertex_->Cancel();
      thread_.join();
    }
  }

  absl::Status Submit() {
    std::lock_guard lock(mu_);
    if (submitted_) return absl::FailedPreconditionError("the tuning job was already submitted");
    if (options_.trial_options.backend == JobBackendKind::kVertex) return SubmitToVertex();
    const absl::Time now = Now();
    id_ = options_.trial_options.job_id.empty() ? internal::GenerateJobId(now)
                                                : options_.trial_options.job_id;
    TP_RETURN_IF_ERROR(store_.CreateJobDir(id_));
    job_.name =
        fmt::format("projects/{}/locations/{}/hyperparameterTuningJobs/{}",
                    options_.trial_options.project_id, options_.trial_options.location, id_);
    job_.state = jobspec::JobState::kQueued;
    job_.create_time = now;
    job_.update_time = now;
    TP_RETURN_IF_ERROR(store_.WriteJob(id_, job_));
    output_dir_ = OutputDir();
    hptune::TuningServiceOptions service_options;
    service_options.runner = options_.runner != nullptr
                                 ? options_.runner
                                 : hptune::MakeCustomJobTrialRunner(options_.trial_options);
    service_options.base_output_dir = output_dir_;
    service_options.seed = options_.seed;
    service_options.poll_interval = options_.poll_interval;
    service_options.log_stream = options_.trial_options.log_stream;
    service_options.clock = options_.trial_options.clock;
    service_options.on_update = [this](const jobspec::HyperparameterTuningJob& job) {
      Record(job);
    };
    const std::string id = id_;
    const hptune::TuningJobStore store = store_;
    service_options.cancel_requested = [store, id] { return store.CancelRequested(id); };
    service_ = std::make_unique<hptune::TuningService>(std::move(service_options));
    submitted_ = true;
    thread_ = std::thread([this, job = job_] { RunStudy(job); });
    return absl::OkStatus();
  }

  absl::StatusOr<jobspec::HyperparameterTuningJob> Wait() {
    std::unique_lock lock(mu_);
    if (!submitted_) return absl::FailedPreconditionError("the tuning job was not submitted");
    done_cv_.wait(lock, [this] { return result_.has_value(); });
    return *result_;
  }

  void Cancel() {
    std::lock_guard lock(mu_);
    if (service_) service_->Cancel();
    if (vertex_) vertex_->Cancel();
  }

  jobspec::HyperparameterTuningJob job() const {
    std::lock_guard lock(mu_);
    return job_;
  }
  const std::string& id() const { return id_; }
  std::filesystem::path output_dir() const {
    std::lock_guard lock(mu_);
    return output_dir_;
  }

 private:
  absl::Time Now() const {
    base::Clock* clock = options_.trial_options.clock;
    return (clock != nullptr ? *clock : base::RealClock()).Now();
  }

  // REQUIRES: mu_ held.
  absl::Status SubmitToVertex() {
    const CustomJobOptions& trial = options_.trial_options;
    std::optional<base::MapEnvironment> map_env;
    if (trial.environment) map_env.emplace(*trial.environment);
    const base::Environment& env =
        map_env ? static_cast<const base::Environment&>(*map_env) : base::ProcessEnvironment();
    TP_ASSIGN_OR_RETURN(std::shared_ptr<vertex::VertexClient> client,
                        vertex::MakeVertexClient(trial.vertex, env));
    TP_ASSIGN_OR_RETURN(
        vertex_, hptune::internal::VertexStudy::Create(std::move(client), trial.vertex.project,
                                                       trial.vertex.location, job_));
    job_ = vertex_->created();
    id_ = job_.name.substr(job_.name.rfind('/') + 1);
    output_dir_ = options_.base_output_dir;
    submitted_ = true;
    thread_ = std::thread([this] {
      absl::StatusOr<jobspec::HyperparameterTuningJob> done = vertex_->Wait(
          options_.poll_interval, [this](const jobspec::HyperparameterTuningJob& job) {
            std::lock_guard lock(mu_);
            job_ = job;
          });
      Finish(std::move(done));
    });
    return absl::OkStatus();
  }

  // Writes the results (when there is an output dir) and wakes Wait().
  void Finish(absl::StatusOr<jobspec::HyperparameterTuningJob> done) {
    if (done.ok() && !output_dir_.empty()) {
      if (absl::Status status = hptune::WriteResults(*done, output_dir_); !status.ok()) {
        done = status;
      }
    }
    std::lock_guard lock(mu_);
    result_ = std::move(done);
    done_cv_.notify_all();
  }

  std::filesystem::path OutputDir() const {
    if (!options_.base_output_dir.empty()) return options_.base_output_dir;
    std::string base = job_.trial_job_spec.base_output_directory;
    // Trials here write to a path; a file:// URI names the same directory.
    if (base.rfind("file://", 0) == 0) base = base.substr(7);
    if (!base.empty()) return base;
    return store_.JobDir(id_) / "output";
  }

  void Record(const jobspec::HyperparameterTuningJob& job) {
    {
      std::lock_guard lock(mu_);
      job_ = job;
    }
    if (absl::Status status = store_.WriteJob(id_, job); !status.ok()) {
      TP_LOG(WARNING, "tuning job {}: {}", id_, std::string(status.message()));
    }
  }

  void RunStudy(jobspec::HyperparameterTuningJob job) {
    absl::StatusOr<jobspec::HyperparameterTuningJob> done = service_->Run(std::move(job));
    if (done.ok()) Record(*done);
    Finish(std::move(done));
  }

  mutable std::mutex mu_;
  std::condition_variable done_cv_;
  jobspec::HyperparameterTuningJob job_;
  HyperparameterTuningJobOptions options_;
  hptune::TuningJobStore store_;
  std::string id_;
  std::filesystem::path output_dir_;
  bool submitted_ = false;
  std::unique_ptr<hptune::TuningService> service_;         // local backend
  std::unique_ptr<hptune::internal::VertexStudy> vertex_;  // Vertex backend
  std::optional<absl::StatusOr<jobspec::HyperparameterTuningJob>> result_;
  std::thread thread_;
};

absl::StatusOr<HyperparameterTuningJob> HyperparameterTuningJob::Create(
    jobspec::HyperparameterTuningJob job, HyperparameterTuningJobOptions options) {
  TP_RETURN_IF_ERROR(jobspec::ValidateHyperparameterTuningJob(job));
  std::filesystem::path home = options.trial_options.home;
  if (options.trial_options.backend == JobBackendKind::kVertex &&
      (options.trial_options.vertex.project.empty() ||
       options.trial_options.vertex.location.empty())) {
    return absl::InvalidArgumentError(
        "the Vertex backend needs a project and a location (vertex.project, vertex.location)");
  }
  if (options.trial_options.backend == JobBackendKind::kK8s) {
    return absl::InvalidArgumentError(
        "hyperparameter tuning runs trials locally, on Slurm or on Vertex AI, not on Kubernetes: "
        "trials report their metrics through a file the tuning service reads "
        "(CLOUD_ML_HP_METRIC_FILE), which a pod's filesystem does not share");
  }
  // Local and Slurm trials: the tuning job and its trials are recorded in the
  // job store (on Slurm on a filesystem every node shares, as its jobs need).
  if (home.empty() && options.trial_options.backend != JobBackendKind::kVertex) {
    std::optional<base::MapEnvironment> map_env;
    if (options.trial_options.environment) map_env.emplace(*options.trial_options.environment);
    const base::Environment& env =
        map_env ? static_cast<const base::Environment&>(*map_env) : base::ProcessEnvironment();
    TP_ASSIGN_OR_RETURN(home, DefaultJobStoreHome(env));
    options.trial_options.home = home;
  }
  return HyperparameterTuningJob(
      std::make_shared<Impl>(std::move(job), std::move(options), std::move(home)));
}

absl::StatusOr<jobspec::HyperparameterTuningJob> HyperparameterTuningJob::Run() {
  TP_RETURN_IF_ERROR(Submit());
  return Wait();
}
absl::Status HyperparameterTuningJob::Submit() { return impl_->Submit(); }
absl::StatusOr<jobspec::HyperparameterTuningJob> HyperparameterTuningJob::Wait() {
  return impl_->Wait();
}
void HyperparameterTuningJob::Cancel() { impl_->Cancel(); }
jobspec::HyperparameterTuningJob HyperparameterTuningJob::job() const { return impl_->job(); }
const std::string& HyperparameterTuningJob::job_id() const { return impl_->id(); }
std::filesystem::path HyperparameterTuningJob::output_dir() const { return impl_->output_dir(); }

}  // namespace trainpkg::sdk
