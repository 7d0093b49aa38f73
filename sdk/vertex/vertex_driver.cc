#include "sdk/vertex/vertex_driver.h"

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/environment.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "sdk/internal/line_stream.h"
#include "sdk/vertex/internal/vertex_backend.h"
#include "sdk/vertex/internal/vertex_job_recorder.h"
#include "sdk/vertex/vertex_client_factory.h"
#include "sdk/vertex/vertex_job_record.h"

namespace trainpkg::sdk::vertex {
namespace {

using sdk::internal::LineStream;

// Until Start(): the job as given, without id or name (the service assigns
// them).
class VertexJob final : public BackendJob {
 public:
  VertexJob(std::shared_ptr<VertexClient> client, CustomJobOptions options,
            jobspec::CustomJob job, LineStream* log)
      : client_(std::move(client)), options_(std::move(options)), log_(log),
        job_(std::move(job)) {
    job_.name.clear();
  }

  // Creates the job on the service; id_ and name_ become the service's.
  absl::Status Start() override {
    std::shared_ptr<internal::VertexJobRecorder> recorder = MakeRecorder();
    internal::VertexBackend::Observer observer;
    if (recorder != nullptr) {
      observer = [recorder](const jobspec::CustomJob& job, jobspec::JobState previous) {
        recorder->Record(job, previous);
      };
    }
    auto engine = std::make_unique<internal::VertexBackend>(client_, options_.vertex, job_, log_,
                                                            std::move(observer));
    TP_RETURN_IF_ERROR(engine->Start());
    name_ = engine->job().name;
    std::vector<std::string> parts = absl::StrSplit(name_, '/');
    id_ = parts.back();
    if (recorder != nullptr) job_dir_ = recorder->job_dir();
    engine_ = std::move(engine);
    return absl::OkStatus();
  }
  absl::StatusOr<jobspec::CustomJob> Wait() override {
    engine_->Wait();
    return engine_->Result();
  }
  jobspec::CustomJob Current() const override {
    return engine_ != nullptr ? engine_->job() : job_;
  }
  void Cancel(bool immediately) override { engine_->Cancel(immediately); }
  const std::string& id() const override { return id_; }
  const std::string& name() const override { return name_; }
  const std::filesystem::path& job_dir() const override { return job_dir_; }

 private:
  // nullptr (and a warning) when there is no job store home.
  std::shared_ptr<internal::VertexJobRecorder> MakeRecorder() const {
    std::filesystem::path home = options_.home;
    if (home.empty()) {
      absl::StatusOr<std::filesystem::path> found =
          DefaultJobStoreHome(base::MapEnvironment(*options_.environment));
      if (!found.ok()) {
        // The job still runs on the service; only `trainpkg jobs` will not list it.
        TP_LOG(WARNING, "not recording the job in the job store: {}", found.status().ToString());
        return nullptr;
      }
      home = *std::move(found);
    }
    return std::make_shared<internal::VertexJobRecorder>(
        JobStore(home), VertexJobRecord{.endpoint = client_->endpoint(),
                                        .project = options_.vertex.project,
                                        .location = options_.vertex.location,
                                        .name = ""});
  }

  const std::shared_ptr<VertexClient> client_;
  const CustomJobOptions options_;
  LineStream* const log_;
  jobspec::CustomJob job_;  // as given, without name; not changed after construction
  std::string id_;                  // set once by Start()
  std::string name_;                // set once by Start()
  std::filesystem::path job_dir_;   // set once by Start()
  std::unique_ptr<internal::VertexBackend> engine_;  // set once by Start()
};

// A client for the service that runs recorded job `record`.
absl::StatusOr<std::shared_ptr<VertexClient>> ClientFor(const VertexJobRecord& record,
                                                        const RecordAccess& access) {
  VertexBackendOptions options;
  // Where the job was created, whatever the caller's current settings say.
  options.project = record.project;
  options.location = record.location;
  options.endpoint = record.endpoint;
  if (access.credentials) {
    TP_ASSIGN_OR_RETURN(options.credentials, access.credentials());
  }
  return MakeVertexClient(options, base::ProcessEnvironment());
}

class Driver final : public BackendDriver {
 public:
  JobBackendKind kind() const override { return JobBackendKind::kVertex; }
  std::string_view name() const override { return "vertex"; }
  std::optional<RemotePlace> remote() const override {
    return RemotePlace{.platform = "Vertex AI", .source = "the service"};
  }
  absl::Status CheckJobId(std::string_view) const override {
    return absl::InvalidArgumentError("Vertex AI assigns the job id: give none");
  }

  // InvalidArgument without project or location, ADC's credential file
  // errors (sdk/vertex/vertex_client_factory.h).
  absl::StatusOr<std::unique_ptr<BackendJob>> Prepare(jobspec::CustomJob job,
                                                      CustomJobOptions options,
                                                      LineStream* log) const override {
    if (!options.job_id.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("job_id: \"", options.job_id, "\": ", CheckJobId(options.job_id).message()));
    }
    TP_ASSIGN_OR_RETURN(
        std::shared_ptr<VertexClient> client,
        MakeVertexClient(options.vertex, base::MapEnvironment(*options.environment)));
    return std::make_unique<VertexJob>(std::move(client), std::move(options), std::move(job), log);
  }

  bool ClaimsRecord(const JobStore& store, std::string_view id) const override {
    return ReadVertexJobRecord(store, id).ok();
  }
  absl::Status ReadRecord(const JobStore& store, JobInfo& info) const override {
    TP_ASSIGN_OR_RETURN(info.vertex, ReadVertexJobRecord(store, info.id));
    return absl::OkStatus();
  }
  bool StopOrphan(const JobStore&, const JobInfo&) const override { return false; }
  absl::StatusOr<jobspec::CustomJob> Refresh(const JobStore& store, const JobInfo& info,
                                             const RecordAccess& access) const override {
    TP_ASSIGN_OR_RETURN(std::shared_ptr<VertexClient> client, ClientFor(*info.vertex, access));
    return RefreshRecordedVertexJob(store, info.id, *client);
  }
  absl::StatusOr<jobspec::CustomJob> Cancel(const JobStore& store, const JobInfo& info,
                                            const RecordAccess& access,
                                            absl::Duration timeout) const override {
    TP_ASSIGN_OR_RETURN(std::shared_ptr<VertexClient> client, ClientFor(*info.vertex, access));
    return CancelRecordedVertexJob(store, info.id, *client, timeout);
  }
  absl::Status CheckLogs(const JobInfo& info, const JobLogsOptions&) const override {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", info.id,
        " runs on Vertex AI, which keeps replica logs in Cloud Logging, not here: ",
        "see the job's logs in the Cloud console, or run gcloud logging read "
        "'resource.type=\"ml_job\" AND resource.labels.job_id=\"",
        info.id, "\"' --project ", info.vertex->project));
  }
  absl::Status WriteLogs(const JobStore&, const JobInfo& info, const JobLogsOptions& options,
                         std::ostream&) const override {
    return CheckLogs(info, options);
  }
};

}  // namespace

const BackendDriver& VertexDriver() {
  static const Driver driver;
  return driver;
}

}  // namespace trainpkg::sdk::vertex
