// `trainpkg serve` end to end: the built binary serves on a free loopback
// port; our Vertex client, `trainpkg run --backend vertex` and curl drive it,
// with replica_probe as the trainer; and the digits sample's job file, sent
// by sdk::CustomJob's Vertex backend, runs in containers of an image the
// service pulls from a registry.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/environment.h"
#include "base/file_util.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "http/curl_transport.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/job_file.h"
#include "nlohmann/json.hpp"
#include "packager/builder/image_store.h"
#include "registry/image_pusher.h"
#include "registry/registry_client.h"
#include "sdk/custom_job.h"
#include "sdk/image_builder.h"
#include "sdk/job_store.h"
#include "sdk/vertex/vertex_client.h"
#include "sdk/vertex/vertex_job_record.h"
#include "tests/registry/registry_server.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/sdk/serve_process.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::vertex {
namespace {

using ::testing::HasSubstr;
using testing::MakeJob;
using testing::PidsInDir;
using testing::ProcessGone;
using testing::ReplicaProbePath;
using testing::TempDir;
using testing::WaitFor;

constexpr char kParent[] = "projects/demo/locations/local-1";

pid_t Spawn(std::vector<std::string> argv, const std::filesystem::path& out_file,
            const std::map<std::string, std::string>& extra_env) {
  const std::string program = argv[0];
  pid_t pid = testing::SpawnWithOutput(std::move(argv), out_file, extra_env);
  EXPECT_GT(pid, 0) << "starting " << program;
  return pid;
}

std::string ReadText(const std::filesystem::path& path) {
  absl::StatusOr<std::string> text = base::ReadFile(path);
  return text.ok() ? *text : "";
}

class ServeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    absl::StatusOr<testing::ServeProcess> serve =
        testing::StartServe(TRAINPKG_PATH, dir_->path() / "home", dir_->path() / "serve.out",
                            {"--allow-local-executables"});
    ASSERT_THAT(serve, IsOk());
    serve_ = new testing::ServeProcess(*std::move(serve));
    endpoint_ = new std::string(serve_->endpoint);
  }

  static void TearDownTestSuite() {
    if (serve_ != nullptr) {
      EXPECT_EQ(testing::StopServe(*serve_), 0) << ReadText(serve_->out);
      // A clean exit removes the token file.
      EXPECT_FALSE(std::filesystem::exists(TokenFile(serve_->home)));
    }
    delete serve_;
    delete endpoint_;
    delete dir_;
  }

  // The token file serve keeps for local clients under `home`.
  static std::filesystem::path TokenFile(const std::filesystem::path& home) {
    return home / "serve" / fmt::format("127.0.0.1_{}.token", serve_->port);
  }

  // Gives a client whose trainpkg home is `home` the token file, as if
  // serve ran under that home: the sdk and the CLI then pick it up.
  static void ShareTokenWith(const std::filesystem::path& home) {
    std::filesystem::create_directories(home / "serve");
    std::filesystem::copy_file(TokenFile(serve_->home), TokenFile(home),
                               std::filesystem::copy_options::overwrite_existing);
  }

  static std::string AuthHeader() { return "-H 'Authorization: Bearer " + serve_->token + "' "; }

  void SetUp() override { ASSERT_NE(endpoint_, nullptr); }

  VertexClient Client() {
    return VertexClient(
        {.endpoint = *endpoint_,
         .transport = http::MakeCurlTransport({}),
         .credentials = std::make_shared<auth::AccessTokenCredentials>(serve_->token),
         .clock = nullptr});
  }

  // CustomJob options for the Vertex backend against this serve, with the
  // client's own job store at `home` and no credentials: the backend picks
  // serve's token up from the trainpkg home of its environment.
  static CustomJobOptions VertexJobOptions(const std::filesystem::path& home,
                                           absl::Duration first_poll, absl::Duration max_poll) {
    CustomJobOptions options;
    options.backend = JobBackendKind::kVertex;
    options.vertex.project = "demo";
    options.vertex.location = "local-1";
    options.vertex.endpoint = *endpoint_;
    options.environment = {{"TRAINPKG_HOME", serve_->home.string()}};
    options.vertex.initial_poll_interval = first_poll;
    options.vertex.max_poll_interval = max_poll;
    options.home = home;
    return options;
  }

  // Polls the job until it is terminal.
  jobspec::CustomJob WaitTerminal(VertexClient& client, const std::string& name) {
    jobspec::CustomJob last;
    EXPECT_TRUE(WaitFor(
        [&] {
          absl::StatusOr<jobspec::CustomJob> job = client.GetCustomJob(name);
          EXPECT_THAT(job, IsOk());
          if (!job.ok()) return true;
          last = *job;
          return jobspec::IsTerminal(job->state);
        },
        absl::Seconds(20)));
    return last;
  }

  // curl's body; the request must succeed at the HTTP level or fail as expected by the caller.
  static std::string Curl(const std::string& args) { return testing::Curl(args).body; }

  static TempDir* dir_;
  static testing::ServeProcess* serve_;
  static std::string* endpoint_;
};

TempDir* ServeTest::dir_ = nullptr;
testing::ServeProcess* ServeTest::serve_ = nullptr;
std::string* ServeTest::endpoint_ = nullptr;

TEST_F(ServeTest, JobRunsToSucceededAndListFiltersAndPages) {
  VertexClient client = Client();
  jobspec::CustomJob spec = MakeJob(ReplicaProbePath(), {{1, {}}, {2, {"--exit=0"}}});
  spec.display_name = "served_ok";
  absl::StatusOr<jobspec::CustomJob> created = client.CreateCustomJob(kParent, spec);
  ASSERT_THAT(created, IsOk());
  EXPECT_THAT(created->name, HasSubstr(std::string(kParent) + "/customJobs/"));
  jobspec::CustomJob done = WaitTerminal(client, created->name);
  EXPECT_EQ(done.state, jobspec::JobState::kSucceeded) << jobspec::FormatCustomJobJson(done);
  ASSERT_TRUE(done.start_time.has_value());

  // A second job, then: filter, pagination, another parent.
  spec.display_name = "served_other";
  absl::StatusOr<jobspec::CustomJob> other = client.CreateCustomJob(kParent, spec);
  ASSERT_THAT(other, IsOk());
  WaitTerminal(client, other->name);
  absl::StatusOr<std::vector<jobspec::CustomJob>> listed = client.ListAllCustomJobs(
      kParent, {.filter = R"(state="JOB_STATE_SUCCEEDED" AND display_name:"served_ok*")",
                .page_size = 0,
                .page_token = ""});
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].name, created->name);

  absl::StatusOr<CustomJobPage> first = client.ListCustomJobs(
      kParent, {.filter = R"(display_name:"served_*")", .page_size = 1, .page_token = ""});
  ASSERT_THAT(first, IsOk());
  ASSERT_EQ(first->jobs.size(), 1u);
  EXPECT_EQ(first->jobs[0].name, other->name);  // newest first
  ASSERT_FALSE(first->next_page_token.empty());
  absl::StatusOr<CustomJobPage> second =
      client.ListCustomJobs(kParent, {.filter = R"(display_name:"served_*")",
                                      .page_size = 1,
                                      .page_token = first->next_page_token});
  ASSERT_THAT(second, IsOk());
  ASSERT_EQ(second->jobs.size(), 1u);
  EXPECT_EQ(second->jobs[0].name, created->name);
  EXPECT_EQ(second->next_page_token, "");

  absl::StatusOr<CustomJobPage> elsewhere =
      client.ListCustomJobs("projects/demo/locations/elsewhere", {});
  ASSERT_THAT(elsewhere, IsOk());
  EXPECT_TRUE(elsewhere->jobs.empty());
  EXPECT_EQ(client.ListCustomJobs(kParent, {.filter = "stat=1", .page_size = 0, .page_token = ""})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);

  // Deleting a finished job removes it.
  ASSERT_THAT(client.DeleteCustomJob(other->name), IsOk());
  EXPECT_EQ(client.GetCustomJob(other->name).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ServeTest, CancelStopsEveryReplica) {
  VertexClient client = Client();
  std::filesystem::path pids = dir_->path() / "pids";
  std::filesystem::create_directories(pids);
  std::string pid_flag = "--pid-dir=" + pids.string();
  jobspec::CustomJob spec =
      MakeJob(ReplicaProbePath(), {{1, {pid_flag, "--sleep=60"}}, {2, {pid_flag, "--sleep=60"}}});
  spec.display_name = "served_long";
  absl::StatusOr<jobspec::CustomJob> created = client.CreateCustomJob(kParent, spec);
  ASSERT_THAT(created, IsOk());
  ASSERT_TRUE(WaitFor([&] { return PidsInDir(pids, "replica-").size() == 3; }, absl::Seconds(10)));
  // Deleting a running job is refused.
  EXPECT_EQ(client.DeleteCustomJob(created->name).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_THAT(client.CancelCustomJob(created->name), IsOk());
  jobspec::CustomJob done = WaitTerminal(client, created->name);
  EXPECT_EQ(done.state, jobspec::JobState::kCancelled);
  ASSERT_TRUE(done.error.has_value());
  EXPECT_EQ(done.error->code, 1);
  for (int pid : PidsInDir(pids, "replica-")) {
    EXPECT_TRUE(WaitFor([&] { return ProcessGone(pid); }, absl::Seconds(5))) << pid;
  }
}

TEST_F(ServeTest, InvalidJobIs400WithFieldPaths) {
  VertexClient client = Client();
  jobspec::CustomJob spec = MakeJob(ReplicaProbePath(), {{2, {}}});
  absl::StatusOr<jobspec::CustomJob> created = client.CreateCustomJob(kParent, spec);
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(created.status().message(), HasSubstr("HTTP 400 INVALID_ARGUMENT"));
  EXPECT_THAT(created.status().message(), HasSubstr("jobSpec.workerPoolSpecs[0].replicaCount"));

  nlohmann::json reply = nlohmann::json::parse(
      Curl(AuthHeader() + "-X POST -H 'Content-Type: application/json' -d '{\"jobSpec\":{}}' " +
           *endpoint_ + "/v1/" + kParent + "/customJobs"));
  EXPECT_EQ(reply["error"]["code"], 400);
  EXPECT_EQ(reply["error"]["status"], "INVALID_ARGUMENT");
  std::vector<std::string> fields;
  for (const auto& violation : reply["error"]["details"][0]["fieldViolations"]) {
    fields.push_back(violation["field"]);
  }
  EXPECT_THAT(fields, ::testing::Contains("displayName"));
  EXPECT_THAT(fields, ::testing::Contains("jobSpec.workerPoolSpecs"));

  nlohmann::json missing =
      nlohmann::json::parse(Curl(AuthHeader() + *endpoint_ + "/v1/" + kParent + "/customJobs/999"));
  EXPECT_EQ(missing["error"]["status"], "NOT_FOUND");
}

TEST_F(ServeTest, ServedJsonHasVertexShapes) {
  VertexClient client = Client();
  absl::StatusOr<jobspec::CustomJob> created =
      client.CreateCustomJob(kParent, MakeJob(ReplicaProbePath(), {{1, {}}}));
  ASSERT_THAT(created, IsOk());
  WaitTerminal(client, created->name);
  nlohmann::json json =
      nlohmann::json::parse(Curl(AuthHeader() + *endpoint_ + "/v1/" + created->name));
  EXPECT_EQ(json["name"], created->name);
  EXPECT_EQ(json["state"], "JOB_STATE_SUCCEEDED");                        // enum by name
  EXPECT_EQ(json["jobSpec"]["workerPoolSpecs"][0]["replicaCount"], "1");  // int64 as string
  EXPECT_TRUE(json["createTime"].is_string());
  EXPECT_THAT(json["createTime"].get<std::string>(), ::testing::EndsWith("Z"));
}

// No token flag: `trainpkg run` reads the token file of the serve at
// --endpoint from its trainpkg home.
TEST_F(ServeTest, TrainpkgRunWithTheVertexBackendRunsThroughTheService) {
  std::filesystem::path out = dir_->path() / "run.out";
  ShareTokenWith(dir_->path() / "run-home");
  pid_t pid = Spawn({TRAINPKG_PATH, "run", "--backend", "vertex", "--project", "demo", "--region",
                     "local-1", "--endpoint", *endpoint_, "--display-name", "served_cli",
                     "--worker-pool-spec=machine-type=n1-standard-4,replica-count=1,"
                     "container-image-uri=local:" +
                         ReplicaProbePath(),
                     "--worker-pool-spec=machine-type=n1-standard-4,replica-count=2,"
                     "container-image-uri=local:" +
                         ReplicaProbePath()},
                    out, {{"TRAINPKG_HOME", (dir_->path() / "run-home").string()}});
  EXPECT_EQ(testing::WaitExitCode(pid), 0) << ReadText(out);
  std::string text = ReadText(out);
  EXPECT_THAT(text, HasSubstr("CustomJob created. Resource name: projects/demo/locations/local-1/"
                              "customJobs/"));
  EXPECT_THAT(text, HasSubstr("current state:\nJOB_STATE_SUCCEEDED"));

  VertexClient client = Client();
  absl::StatusOr<std::vector<jobspec::CustomJob>> listed = client.ListAllCustomJobs(
      kParent, {.filter = R"(display_name="served_cli")", .page_size = 0, .page_token = ""});
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].state, jobspec::JobState::kSucceeded);
}

struct CliResult {
  int exit_code = -1;
  std::string out;
};

// Runs `trainpkg jobs ...` with TRAINPKG_HOME=`home`.
CliResult RunJobsCli(const std::filesystem::path& home, std::vector<std::string> args,
                     const std::filesystem::path& out_file) {
  args.insert(args.begin(), {TRAINPKG_PATH, "jobs"});
  pid_t pid = Spawn(std::move(args), out_file, {{"TRAINPKG_HOME", home.string()}});
  CliResult result;
  result.exit_code = testing::WaitExitCode(pid);
  result.out = ReadText(out_file);
  return result;
}

// The job store of the client (not serve's) records jobs the Vertex backend
// submits: `trainpkg jobs list|describe|cancel|logs` reach them.
TEST_F(ServeTest, VertexJobsAreRecordedInTheClientJobStore) {
  const std::filesystem::path home = dir_->path() / "client-home";
  const std::filesystem::path cli_out = dir_->path() / "jobs-cli.out";
  CustomJobOptions options =
      VertexJobOptions(home, absl::Milliseconds(100), absl::Milliseconds(500));
  JobStore store(home);
  ShareTokenWith(home);  // for `trainpkg jobs describe|cancel`

  jobspec::CustomJob spec = MakeJob(ReplicaProbePath(), {{1, {"--sleep=1"}}});
  spec.display_name = "recorded_ok";
  absl::StatusOr<CustomJob> job = CustomJob::Create(spec, options);
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());
  const std::string id = job->job_id();
  EXPECT_EQ(job->job_dir(), store.JobDir(id));
  CliResult list = RunJobsCli(home, {"list"}, cli_out);
  EXPECT_EQ(list.exit_code, 0) << list.out;
  EXPECT_THAT(list.out, HasSubstr("BACKEND"));
  EXPECT_THAT(list.out, ::testing::ContainsRegex(id + " +recorded_ok +JOB_STATE_[A-Z]+ .* vertex"));
  absl::StatusOr<jobspec::CustomJob> done = job->Wait();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  absl::StatusOr<jobspec::CustomJob> recorded = store.ReadJob(id);
  ASSERT_THAT(recorded, IsOk());
  EXPECT_EQ(recorded->state, jobspec::JobState::kSucceeded);
  EXPECT_EQ(recorded->name, job->resource_name());
  absl::StatusOr<std::vector<HistoryEntry>> history = store.ReadHistory(id);
  ASSERT_THAT(history, IsOk());
  ASSERT_FALSE(history->empty());
  EXPECT_EQ(history->back().state, jobspec::JobState::kSucceeded);
  absl::StatusOr<VertexJobRecord> record = ReadVertexJobRecord(store, id);
  ASSERT_THAT(record, IsOk());
  EXPECT_EQ(record->endpoint, *endpoint_);
  EXPECT_EQ(record->name, job->resource_name());
  list = RunJobsCli(home, {"list"}, cli_out);
  EXPECT_THAT(list.out,
              ::testing::ContainsRegex(id + " +recorded_ok +JOB_STATE_SUCCEEDED .* vertex"));
  // Serve's own job store is another home: not listed there by the client.
  EXPECT_FALSE(std::filesystem::exists(store.JobDir(id) / "local.json"));

  CliResult describe = RunJobsCli(home, {"describe", id}, cli_out);
  EXPECT_EQ(describe.exit_code, 0) << describe.out;
  EXPECT_THAT(describe.out, HasSubstr("\"state\": \"JOB_STATE_SUCCEEDED\""));
  EXPECT_THAT(describe.out, HasSubstr("Resource name: " + job->resource_name()));

  CliResult logs = RunJobsCli(home, {"logs", id}, cli_out);
  EXPECT_EQ(logs.exit_code, 2) << logs.out;
  EXPECT_THAT(logs.out, HasSubstr("Cloud Logging"));

  // `jobs cancel` of a running one cancels it on the service.
  std::filesystem::path pids = dir_->path() / "recorded-pids";
  std::filesystem::create_directories(pids);
  jobspec::CustomJob long_spec =
      MakeJob(ReplicaProbePath(), {{1, {"--pid-dir=" + pids.string(), "--sleep=60"}}});
  long_spec.display_name = "recorded_long";
  absl::StatusOr<CustomJob> long_job = CustomJob::Create(long_spec, options);
  ASSERT_THAT(long_job, IsOk());
  ASSERT_THAT(long_job->Submit(), IsOk());
  const std::string long_id = long_job->job_id();
  ASSERT_TRUE(WaitFor([&] { return PidsInDir(pids, "replica-").size() == 1; }, absl::Seconds(10)));
  describe = RunJobsCli(home, {"describe", long_id}, cli_out);
  EXPECT_EQ(describe.exit_code, 0) << describe.out;
  EXPECT_THAT(describe.out, HasSubstr("\"state\": \"JOB_STATE_RUNNING\""));
  CliResult cancel = RunJobsCli(home, {"cancel", long_id}, cli_out);
  EXPECT_EQ(cancel.exit_code, 0) << cancel.out;
  EXPECT_THAT(cancel.out, HasSubstr("Job " + long_id + ": JOB_STATE_CANCELLED"));
  VertexClient client = Client();
  absl::StatusOr<jobspec::CustomJob> served = client.GetCustomJob(long_job->resource_name());
  ASSERT_THAT(served, IsOk());
  EXPECT_EQ(served->state, jobspec::JobState::kCancelled);
  absl::StatusOr<jobspec::CustomJob> cancelled = long_job->Wait();
  ASSERT_THAT(cancelled, IsOk());
  EXPECT_EQ(cancelled->state, jobspec::JobState::kCancelled);
  EXPECT_EQ(store.ReadJob(long_id).value_or(jobspec::CustomJob{}).state,
            jobspec::JobState::kCancelled);
  for (int pid : PidsInDir(pids, "replica-")) {
    EXPECT_TRUE(WaitFor([&] { return ProcessGone(pid); }, absl::Seconds(5))) << pid;
  }
}

// Builds the digits sample into an image (the native-closure bundler) in a
// store of its own and pushes it to `registry`; returns its reference.
std::string PushDigitsImage(const std::filesystem::path& home, const std::string& registry) {
  const std::string reference = registry + "/samples/digits_multiworker:serve";
  base::MapEnvironment env({{"TRAINPKG_HOME", home.string()}});
  ImageBuildOptions build;
  build.bundle.emplace().binary = DIGITS_SAMPLE;
  build.tags = {reference};
  build.environment = &env;
  absl::StatusOr<BuiltImage> built = BuildImage(build);
  EXPECT_THAT(built, IsOk());
  absl::StatusOr<packager::builder::ImageStore> store =
      packager::builder::ImageStore::Open(home / "images");
  absl::StatusOr<registry::Reference> target = registry::ParseReference(reference);
  EXPECT_TRUE(store.ok() && target.ok());
  if (!built.ok() || !store.ok() || !target.ok()) return reference;
  registry::RegistryClient client{registry::RegistryClientOptions{}};
  auto pushed = registry::PushImage(client, store->layout(), built->tags.at(0), *target, {});
  EXPECT_THAT(pushed, IsOk());
  return reference;
}

TEST_F(ServeTest, DigitsJobFileRunsInContainersThroughTheVertexBackend) {
  if (::geteuid() != 0) GTEST_SKIP() << "runc needs root to start containers";
  ASSERT_TRUE(std::filesystem::exists(DIGITS_DATA)) << "scripts/fetch-digits.sh";
  registry::testing::RegistryServer server;
  ASSERT_THAT(server.Start({}), IsOk());
  const std::string image = PushDigitsImage(dir_->path() / "build-home", server.host());

  // samples/digits_multiworker/job.yaml with the pushed image, 3 epochs, and
  // the data in the base output directory (mounted into the containers).
  absl::StatusOr<jobspec::CustomJob> spec = jobspec::LoadJobFile(DIGITS_JOB_FILE);
  ASSERT_THAT(spec, IsOk());
  const std::filesystem::path output = dir_->path() / "digits-output";
  std::filesystem::create_directories(output);
  std::filesystem::copy_file(DIGITS_DATA, output / "digits.csv.gz");
  spec->job_spec.base_output_directory = output.string() + "/";
  for (jobspec::WorkerPoolSpec& pool : spec->job_spec.worker_pool_specs) {
    ASSERT_TRUE(pool.container_spec.has_value());
    pool.container_spec->image_uri = image;
    for (std::string& arg : pool.container_spec->args) {
      if (arg.starts_with("--epochs=")) arg = "--epochs=3";
    }
    pool.container_spec->args.push_back("--data=" + (output / "digits.csv.gz").string());
  }

  // A serve that may pull from the test's registry.
  absl::StatusOr<testing::ServeProcess> serve =
      testing::StartServe(TRAINPKG_PATH, dir_->path() / "digits-home",
                          dir_->path() / "digits-serve.out", {"--allow-registry", server.host()});
  ASSERT_THAT(serve, IsOk());
  std::ostringstream log;
  CustomJobOptions options = VertexJobOptions(dir_->path() / "digits-client-home",
                                              absl::Milliseconds(200), absl::Seconds(1));
  options.vertex.endpoint = serve->endpoint;
  options.environment = {{"TRAINPKG_HOME", serve->home.string()}};
  options.log_stream = &log;
  absl::StatusOr<CustomJob> job = CustomJob::Create(*spec, options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  EXPECT_EQ(testing::StopServe(*serve), 0) << ReadText(serve->out);
  ASSERT_THAT(done, IsOk());
  const std::filesystem::path logs = serve->home / "jobs" / job->job_id() / "logs";
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded)
      << log.str() << ReadText(logs / "workerpool0-0.log") << ReadText(logs / "workerpool1-0.log");
  EXPECT_THAT(ReadText(logs / "workerpool0-0.log"), HasSubstr("test_accuracy="));
  EXPECT_TRUE(std::filesystem::exists(output / "model/model.tpmodel"));
}

}  // namespace
}  // namespace trainpkg::sdk::vertex
