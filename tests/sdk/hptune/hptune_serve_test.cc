// `trainpkg serve`'s hyperparameterTuningJobs: a small study created, polled,
// listed and cancelled through VertexClient over HTTP on 127.0.0.1, trials
// run by the local tuning service (testdata/timeline_trainer.sh).
#include <fstream>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "http/curl_transport.h"
#include "jobspec/hyperparameter_tuning_job_json.h"
#include "sdk/auth/credentials.h"
#include "sdk/hptune/hyperparameter_tuning_job.h"
#include "sdk/serve/job_http_server.h"
#include "sdk/serve/local_job_service.h"
#include "sdk/serve/local_tuning_job_service.h"
#include "sdk/vertex/vertex_client.h"
#include "tests/sdk/hptune/timeline_study.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using ::testing::SizeIs;

constexpr char kParent[] = "projects/p1/locations/l1";
const std::string kToken(43, 's');

nlohmann::json StudyJson(int trials, const std::string& sleep,
                         const std::filesystem::path& timeline) {
  return jobspec::HyperparameterTuningJobToJson(
      hptune::testing::TimelineStudy("served", trials, /*parallel=*/2, sleep, timeline));
}

class HptuneServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path() / "timeline");
    server_ = StartServer(/*allow_local_executables=*/true, jobs_, tuning_);
    ASSERT_NE(server_, nullptr);
  }

  // Services under dir_/home (trials run local: scripts only when allowed)
  // behind an HTTP server with kToken.
  std::unique_ptr<serve::JobHttpServer> StartServer(
      bool allow_local_executables, std::unique_ptr<serve::LocalJobService>& jobs,
      std::unique_ptr<serve::LocalTuningJobService>& tuning) {
    serve::LocalJobServiceOptions job_options;
    job_options.home = dir_.path() / "home";
    job_options.images.allow_local_executables = allow_local_executables;
    jobs = std::make_unique<serve::LocalJobService>(job_options);
    serve::LocalTuningJobServiceOptions tuning_options;
    tuning_options.home = dir_.path() / "home";
    tuning_options.cancel_grace_period = absl::Seconds(2);
    tuning_options.poll_interval = absl::Milliseconds(50);
    tuning_options.images.allow_local_executables = allow_local_executables;
    tuning = std::make_unique<serve::LocalTuningJobService>(tuning_options);
    absl::StatusOr<std::unique_ptr<serve::JobHttpServer>> server = serve::JobHttpServer::Start(
        *jobs, tuning.get(),
        {.host = "127.0.0.1", .port = 0, .token = kToken, .token_home = {}, .dashboard_home = {}});
    EXPECT_THAT(server, IsOk());
    return server.ok() ? *std::move(server) : nullptr;
  }

  static vertex::VertexClient Client(const serve::JobHttpServer& server) {
    return vertex::VertexClient(
        {.endpoint = server.endpoint(),
         .transport = http::MakeCurlTransport({}),
         .credentials = std::make_shared<auth::AccessTokenCredentials>(kToken),
         .clock = nullptr});
  }
  vertex::VertexClient Client() { return Client(*server_); }

  vertex::HyperparameterTuningJobDocument WaitTerminal(vertex::VertexClient& client,
                                                       const std::string& name) {
    vertex::HyperparameterTuningJobDocument last;
    EXPECT_TRUE(testing::WaitFor(
        [&] {
          absl::StatusOr<vertex::HyperparameterTuningJobDocument> job =
              client.GetHyperparameterTuningJob(name);
          EXPECT_THAT(job, IsOk());
          if (!job.ok()) return true;
          last = *job;
          return jobspec::IsTerminal(job->state);
        },
        absl::Seconds(40)));
    return last;
  }

  testing::TempDir dir_;
  std::unique_ptr<serve::LocalJobService> jobs_;
  std::unique_ptr<serve::LocalTuningJobService> tuning_;
  std::unique_ptr<serve::JobHttpServer> server_;
};

TEST_F(HptuneServeTest, RunsAStudyCreatedOverRest) {
  vertex::VertexClient client = Client();
  absl::StatusOr<vertex::HyperparameterTuningJobDocument> created =
      client.CreateHyperparameterTuningJob(kParent, StudyJson(3, "0.2", dir_.path() / "timeline"));
  ASSERT_THAT(created, IsOk());
  EXPECT_THAT(created->name,
              ::testing::StartsWith("projects/p1/locations/l1/hyperparameterTuningJobs/"));
  const vertex::HyperparameterTuningJobDocument done = WaitTerminal(client, created->name);
  EXPECT_EQ(done.state, jobspec::JobState::kSucceeded);
  absl::StatusOr<jobspec::HyperparameterTuningJob> job =
      jobspec::HyperparameterTuningJobFromJson(done.json);
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->trials, SizeIs(3));
  for (const jobspec::Trial& trial : job->trials) {
    EXPECT_EQ(trial.state, jobspec::TrialState::kSucceeded) << trial.infeasible_reason;
    EXPECT_TRUE(trial.final_measurement.has_value());
  }
  absl::StatusOr<vertex::HyperparameterTuningJobPage> page =
      client.ListHyperparameterTuningJobs(kParent, {});
  ASSERT_THAT(page, IsOk());
  ASSERT_THAT(page->jobs, SizeIs(1));
  EXPECT_EQ(page->jobs[0].name, created->name);
  absl::StatusOr<vertex::HyperparameterTuningJobPage> other =
      client.ListHyperparameterTuningJobs("projects/p2/locations/l1", {});
  ASSERT_THAT(other, IsOk());
  EXPECT_TRUE(other->jobs.empty());
  const std::string id = created->name.substr(created->name.rfind('/') + 1);
  EXPECT_EQ(
      client.GetHyperparameterTuningJob("projects/p2/locations/l1/hyperparameterTuningJobs/" + id)
          .status()
          .code(),
      absl::StatusCode::kNotFound);
}

TEST_F(HptuneServeTest, SdkVertexBackendRunsTheStudyOnTheService) {
  absl::StatusOr<jobspec::HyperparameterTuningJob> spec =
      jobspec::HyperparameterTuningJobFromJson(StudyJson(2, "0.1", dir_.path() / "timeline"));
  ASSERT_THAT(spec, IsOk());
  HyperparameterTuningJobOptions options;
  options.trial_options.backend = JobBackendKind::kVertex;
  options.trial_options.vertex.project = "p1";
  options.trial_options.vertex.location = "l1";
  options.trial_options.vertex.endpoint = server_->endpoint();
  options.trial_options.vertex.credentials = std::make_shared<auth::AccessTokenCredentials>(kToken);
  options.base_output_dir = dir_.path() / "results";
  options.poll_interval = absl::Milliseconds(100);
  absl::StatusOr<HyperparameterTuningJob> job =
      HyperparameterTuningJob::Create(*std::move(spec), options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::HyperparameterTuningJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  EXPECT_THAT(done->name, ::testing::StartsWith("projects/p1/locations/l1/"));
  EXPECT_THAT(done->trials, SizeIs(2));
  EXPECT_TRUE(std::filesystem::exists(dir_.path() / "results" / "results.svg"));
}

TEST_F(HptuneServeTest, CancelOverRestStopsTheStudy) {
  vertex::VertexClient client = Client();
  absl::StatusOr<vertex::HyperparameterTuningJobDocument> created =
      client.CreateHyperparameterTuningJob(kParent, StudyJson(4, "60", dir_.path() / "timeline"));
  ASSERT_THAT(created, IsOk());
  ASSERT_TRUE(
      testing::WaitFor([&] { return std::filesystem::exists(dir_.path() / "timeline" / "pid-2"); },
                       absl::Seconds(20)));
  ASSERT_THAT(client.CancelHyperparameterTuningJob(created->name), IsOk());
  const vertex::HyperparameterTuningJobDocument done = WaitTerminal(client, created->name);
  EXPECT_EQ(done.state, jobspec::JobState::kCancelled);
  ASSERT_TRUE(done.error.has_value());
  EXPECT_EQ(done.error->code, 1);
}

TEST_F(HptuneServeTest, InvalidStudyIs400WithTheFieldPath) {
  vertex::VertexClient client = Client();
  nlohmann::json study = StudyJson(1, "0", dir_.path() / "timeline");
  study["parallelTrialCount"] = 5;
  absl::StatusOr<vertex::HyperparameterTuningJobDocument> created =
      client.CreateHyperparameterTuningJob(kParent, study);
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(created.status().message(), ::testing::HasSubstr("parallelTrialCount"));
}

// Trials are held to serve's image policy too: a study whose trials run a
// local: executable is refused unless serve allows them, and nothing runs.
TEST_F(HptuneServeTest, LocalTrialExecutablesNeedTheFlag) {
  std::unique_ptr<serve::LocalJobService> jobs;
  std::unique_ptr<serve::LocalTuningJobService> tuning;
  std::unique_ptr<serve::JobHttpServer> strict =
      StartServer(/*allow_local_executables=*/false, jobs, tuning);
  ASSERT_NE(strict, nullptr);
  vertex::VertexClient client = Client(*strict);
  absl::StatusOr<vertex::HyperparameterTuningJobDocument> created =
      client.CreateHyperparameterTuningJob(kParent, StudyJson(1, "0", dir_.path() / "timeline"));
  EXPECT_EQ(created.status().code(), absl::StatusCode::kPermissionDenied) << created.status();
  EXPECT_THAT(created.status().message(),
              ::testing::HasSubstr("trialJobSpec.workerPoolSpecs[0].containerSpec.imageUri"));
  EXPECT_THAT(created.status().message(), ::testing::HasSubstr("--allow-local-executables"));
  EXPECT_TRUE(std::filesystem::is_empty(dir_.path() / "timeline"));
}

}  // namespace
}  // namespace trainpkg::sdk
