#include "sdk/internal/supervised_job.h"

#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/clock.h"
#include "base/environment.h"
#include "base/status_macros.h"
#include "jobspec/job_secret.h"
#include "jobspec/validation.h"
#include "sdk/internal/job_id.h"
#include "sdk/internal/python_package_image.h"
#include "sdk/internal/replica_plan.h"

namespace trainpkg::sdk::internal {
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

class SupervisedJob final : public BackendJob {
 public:
  SupervisedJob(jobspec::CustomJob job, CustomJobOptions options, std::string id, LineStream* log,
                SupervisedEngineFactory engine)
      : options_(std::move(options)),
        environment_(*options_.environment),
        id_(std::move(id)),
        name_(JobResourceName(options_.project_id, options_.location, id_)),
        store_(options_.home),
        job_dir_(store_.JobDir(id_)),
        log_(log),
        make_engine_(std::move(engine)),
        job_(std::move(job)) {
    job_.name = name_;
  }

  absl::Status Start() override;
  absl::StatusOr<jobspec::CustomJob> Wait() override {
    engine_->Wait();
    return recorder_->job();
  }
  jobspec::CustomJob Current() const override {
    return recorder_ != nullptr ? recorder_->job() : job_;
  }
  void Cancel(bool immediately) override { engine_->Cancel(immediately); }
  const std::string& id() const override { return id_; }
  const std::string& name() const override { return name_; }
  const std::filesystem::path& job_dir() const override { return job_dir_; }

 private:
  const CustomJobOptions options_;
  const std::map<std::string, std::string> environment_;
  const std::string id_;
  const std::string name_;
  const JobStore store_;
  const std::filesystem::path job_dir_;
  LineStream* const log_;
  const SupervisedEngineFactory make_engine_;
  jobspec::CustomJob job_;  // as prepared; not changed after construction
  // Set once by Start(); the engine is destroyed first.
  std::shared_ptr<JobRecorder> recorder_;
  std::unique_ptr<JobBackend> engine_;
};

absl::Status SupervisedJob::Start() {
  jobspec::CustomJob job = job_;
  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) return absl::InternalError(absl::StrCat("reading the current directory: ", ec.message()));
  AbsolutizeLocalImages(job.job_spec, cwd);
  TP_ASSIGN_OR_RETURN(std::vector<ReplicaPlan> plans, PlanReplicas(job.job_spec));
  auto path = environment_.find("PATH");
  TP_RETURN_IF_ERROR(
      CheckExecutables(plans, path == environment_.end() ? std::string() : path->second));
  // pythonPackageSpec pools: their executors with the packages installed,
  // built (or found) once per job before anything is recorded.
  TP_RETURN_IF_ERROR(PreparePythonPackageImages(
      plans, PythonPackageImageOptions{
                 .home = store_.home(),
                 .cwd = cwd,
                 .environment = environment_,
                 .log = [this](std::string_view line) { log_->WriteLine("", line); }}));
  // One secret for the job's replicas to authenticate their RPCs with.
  TP_ASSIGN_OR_RETURN(std::string job_secret, jobspec::NewJobSecret());
  // Nothing was recorded before this point: a job that fails its checks or
  // its image preparation leaves no record behind.
  TP_RETURN_IF_ERROR(store_.CreateJobDir(id_));
  std::string& output = job.job_spec.base_output_directory;
  if (output.empty()) {
    // In the job store: private like the rest of the job directory.
    TP_RETURN_IF_ERROR(MakePrivateDir(job_dir_ / "output", ExistingDir::kNarrow));
    output = (job_dir_ / "output/").string();
  }
  TP_RETURN_IF_ERROR(PrepareOutputDirectory(output, cwd));

  auto recorder = std::make_shared<JobRecorder>(store_, id_, job, log_, *options_.clock);
  TP_RETURN_IF_ERROR(recorder->Create());
  log_->WriteLine("", absl::StrCat("CustomJob created. Resource name: ", name_));
  log_->WriteLine(
      "", absl::StrCat("To use this CustomJob in another session:\ntrainpkg jobs describe ", id_));
  std::unique_ptr<JobBackend> engine = make_engine_(
      SupervisedJobConfig{
          .job_id = id_,
          .project_id = options_.project_id,
          .spec = job.job_spec,
          .plans = std::move(plans),
          .environment = environment_,
          .job_secret = std::move(job_secret),
          .grace_period = options_.cancel_grace_period,
          .launcher = options_.launcher,
          .store = store_,
          .live = options_.stream_replica_output ? log_ : nullptr,
          .host_network = options_.host_network,
      },
      recorder);
  TP_RETURN_IF_ERROR(engine->Start());
  recorder_ = std::move(recorder);
  engine_ = std::move(engine);
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckSupervisedJobId(std::string_view id) { return jobspec::ValidateJobId(id); }

absl::StatusOr<std::unique_ptr<BackendJob>> PrepareSupervisedJob(jobspec::CustomJob job,
                                                                 CustomJobOptions options,
                                                                 LineStream* log,
                                                                 SupervisedEngineFactory engine) {
  if (options.home.empty()) {
    TP_ASSIGN_OR_RETURN(options.home,
                        DefaultJobStoreHome(base::MapEnvironment(*options.environment)));
  }
  if (options.clock == nullptr) options.clock = &base::RealClock();
  if (options.launcher == nullptr) options.launcher = DefaultProcessLauncher();
  std::string id = options.job_id;
  if (id.empty()) {
    id = GenerateJobId(options.clock->Now());
  } else if (absl::Status status = CheckSupervisedJobId(id); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("job_id: ", status.message()));
  }
  return std::make_unique<SupervisedJob>(std::move(job), std::move(options), std::move(id), log,
                                         std::move(engine));
}

}  // namespace trainpkg::sdk::internal
