// The Vertex AI REST client, error mapping and the Vertex backend of
// sdk::CustomJob against a scripted transport.
#include "sdk/vertex/vertex_client.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "nlohmann/json.hpp"
#include "sdk/custom_job.h"
#include "sdk/vertex/rpc_error.h"
#include "sdk/vertex/vertex_client_factory.h"
#include "sdk/vertex/vertex_resource_ids.h"
#include "tests/http/scripted_transport.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::vertex {
namespace {

using http::testing::RecordedRequest;
using http::testing::Response;
using http::testing::ScriptedTransport;
using ::testing::HasSubstr;

constexpr char kParent[] = "projects/p/locations/us-central1";
constexpr char kName[] = "projects/p/locations/us-central1/customJobs/123";

nlohmann::json JobJson(const char* state, const char* name = kName) {
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {}}});
  job.name = name;
  nlohmann::json json = jobspec::CustomJobToJson(job);
  json["state"] = state;
  return json;
}

class VertexClientTest : public ::testing::Test {
 protected:
  std::shared_ptr<ScriptedTransport> transport_ = std::make_shared<ScriptedTransport>();
  VertexClient client_{{.endpoint = "https://us-central1-aiplatform.googleapis.com",
                        .transport = transport_,
                        .credentials = std::make_shared<auth::AccessTokenCredentials>("tok"),
                        .clock = nullptr}};
};

TEST(RpcErrorTest, StatusNameWinsOverHttpStatus) {
  absl::Status status = StatusFromErrorReply(
      400,
      R"({"error":{"code":400,"message":"List of found errors: 1.Field: job_spec","status":"FAILED_PRECONDITION"}})",
      "creating");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "creating: HTTP 400 FAILED_PRECONDITION: List of found errors: 1.Field: job_spec");
}

TEST(RpcErrorTest, HttpStatusWhenTheBodyIsNotAStatus) {
  EXPECT_EQ(StatusFromErrorReply(429, "slow down", "x").code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusFromErrorReply(401, "", "x").code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(StatusFromErrorReply(502, "<html>", "x").code(), absl::StatusCode::kInternal);
  EXPECT_THAT(StatusFromErrorReply(502, "<html>", "x").message(), HasSubstr("<html>"));
}

TEST(RpcErrorTest, ErrorJsonRoundTripsAndCarriesFieldViolations) {
  nlohmann::json json = ErrorJson(absl::InvalidArgumentError("bad"), {{"displayName", "required"}});
  EXPECT_EQ(json["error"]["code"], 400);
  EXPECT_EQ(json["error"]["status"], "INVALID_ARGUMENT");
  EXPECT_EQ(json["error"]["details"][0]["fieldViolations"][0]["field"], "displayName");
  EXPECT_EQ(StatusFromErrorReply(400, json.dump(), "w").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HttpStatusForCode(absl::StatusCode::kNotFound), 404);
  EXPECT_EQ(HttpStatusForCode(absl::StatusCode::kFailedPrecondition), 400);
  EXPECT_EQ(StatusCodeFromName("NOT_A_CODE"), std::nullopt);
}

TEST_F(VertexClientTest, CreateSendsTheJobWithoutOutputOnlyFields) {
  transport_->Push(Response(200, JobJson("JOB_STATE_PENDING").dump()));
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {}}});
  job.name = "ignored";
  job.state = jobspec::JobState::kRunning;
  absl::StatusOr<jobspec::CustomJob> created = client_.CreateCustomJob(kParent, job);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->name, kName);
  EXPECT_EQ(created->state, jobspec::JobState::kPending);
  const RecordedRequest& request = transport_->requests().at(0);
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.url,
            "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/"
            "customJobs");
  EXPECT_EQ(request.headers.Get("Authorization"), "Bearer tok");
  nlohmann::json sent = nlohmann::json::parse(request.body);
  EXPECT_FALSE(sent.contains("name"));
  EXPECT_FALSE(sent.contains("state"));
  EXPECT_EQ(sent["jobSpec"]["workerPoolSpecs"][0]["replicaCount"], "1");
}

TEST_F(VertexClientTest, ServiceErrorBecomesItsStatus) {
  transport_->Push(Response(
      404,
      R"({"error":{"code":404,"message":"The CustomJob does not exist.","status":"NOT_FOUND"}})"));
  absl::StatusOr<jobspec::CustomJob> job = client_.GetCustomJob(kName);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(job.status().message(),
              HasSubstr("getting projects/p/locations/us-central1/customJobs/123: HTTP 404 "
                        "NOT_FOUND: The CustomJob does not exist."));
}

TEST_F(VertexClientTest, ListFollowsPageTokensAndEncodesTheQuery) {
  transport_->Push(Response(200, nlohmann::json({{"customJobs", {JobJson("JOB_STATE_RUNNING")}},
                                                 {"nextPageToken", "t/2+"}})
                                     .dump()));
  transport_->Push(
      Response(200, nlohmann::json({{"customJobs", {JobJson("JOB_STATE_SUCCEEDED")}}}).dump()));
  absl::StatusOr<std::vector<jobspec::CustomJob>> jobs = client_.ListAllCustomJobs(
      kParent, {.filter = R"(state="JOB_STATE_RUNNING" AND display_name:"a*")",
                .page_size = 1,
                .page_token = ""});
  ASSERT_THAT(jobs, IsOk());
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[1].state, jobspec::JobState::kSucceeded);
  ASSERT_EQ(transport_->requests().size(), 2u);
  const std::string base =
      "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/"
      "customJobs?filter=state%3D%22JOB_STATE_RUNNING%22%20AND%20display_name%3A%22a%2A%22&"
      "pageSize=1";
  EXPECT_EQ(transport_->requests()[0].url, base);
  EXPECT_EQ(transport_->requests()[1].url, base + "&pageToken=t%2F2%2B");
}

TEST_F(VertexClientTest, EmptyListHasNoJobsAndNoToken) {
  transport_->Push(Response(200, "{}"));
  absl::StatusOr<CustomJobPage> page = client_.ListCustomJobs(kParent, {});
  ASSERT_THAT(page, IsOk());
  EXPECT_TRUE(page->jobs.empty());
  EXPECT_EQ(page->next_page_token, "");
}

TEST_F(VertexClientTest, CancelAndDeleteUseTheRestVerbs) {
  transport_->Push(Response(200, "{}"));
  transport_->Push(
      Response(200, R"({"name":"projects/p/locations/us-central1/operations/9","done":false})"));
  EXPECT_THAT(client_.CancelCustomJob(kName), IsOk());
  absl::StatusOr<nlohmann::json> operation = client_.DeleteCustomJob(kName);
  ASSERT_THAT(operation, IsOk());
  EXPECT_EQ((*operation)["name"], "projects/p/locations/us-central1/operations/9");
  EXPECT_EQ(transport_->requests()[0].method, "POST");
  EXPECT_THAT(transport_->requests()[0].url, HasSubstr("/customJobs/123:cancel"));
  EXPECT_EQ(transport_->requests()[1].method, "DELETE");
}

TEST_F(VertexClientTest, HyperparameterTuningJobsAreDocumentsWithTypedStateAndError) {
  transport_->Push(Response(
      200,
      R"({"name":"projects/p/locations/l/hyperparameterTuningJobs/7","state":5,"error":{"code":3,"message":"trial failed"},"maxTrialCount":4})"));
  absl::StatusOr<HyperparameterTuningJobDocument> doc =
      client_.GetHyperparameterTuningJob("projects/p/locations/l/hyperparameterTuningJobs/7");
  ASSERT_THAT(doc, IsOk());
  EXPECT_EQ(doc->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(doc->error.has_value());
  EXPECT_EQ(doc->error->message, "trial failed");
  EXPECT_EQ(doc->json["maxTrialCount"], 4);
}

// The Vertex backend behind CustomJob: create, polled states, log lines.
TEST(VertexBackendTest, RunCreatesPollsAndLogsLikeThePythonSdk) {
  auto transport = std::make_shared<ScriptedTransport>();
  transport->Push(Response(200, JobJson("JOB_STATE_PENDING").dump()));
  transport->Push(Response(200, JobJson("JOB_STATE_RUNNING").dump()));
  transport->Push(Response(200, JobJson("JOB_STATE_RUNNING").dump()));
  nlohmann::json failed = JobJson("JOB_STATE_FAILED");
  failed["error"] = {{"code", 3}, {"message", "The replica workerpool0-0 exited"}};
  transport->Push(Response(200, failed.dump()));
  std::ostringstream log;
  CustomJobOptions options;
  options.backend = JobBackendKind::kVertex;
  options.log_stream = &log;
  options.environment = std::map<std::string, std::string>{};
  options.vertex.project = "p";
  options.vertex.location = "us-central1";
  options.vertex.transport = transport;
  options.vertex.credentials = std::make_shared<auth::AccessTokenCredentials>("tok");
  options.vertex.initial_poll_interval = absl::Milliseconds(1);
  options.vertex.max_poll_interval = absl::Milliseconds(5);
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(testing::MakeJob("/bin/true", {{1, {}}}), options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  EXPECT_EQ(done->error->code, 3);
  EXPECT_EQ(job->resource_name(), kName);
  EXPECT_EQ(job->job_id(), "123");
  std::string text = log.str();
  EXPECT_THAT(text, HasSubstr("Creating CustomJob\nCustomJob created. Resource name: " +
                              std::string(kName)));
  EXPECT_THAT(text, HasSubstr("View Custom Job:\nhttps://console.cloud.google.com/vertex-ai/"
                              "locations/us-central1/training/123?project=p"));
  EXPECT_THAT(text, HasSubstr(std::string("CustomJob ") + kName +
                              " current state:\nJOB_STATE_RUNNING\nCustomJob " + kName +
                              " current state:\nJOB_STATE_FAILED\nJob failed with:\ncode: 3"));
  // RUNNING was seen twice but logged once.
  EXPECT_EQ(text.find("JOB_STATE_RUNNING"), text.rfind("JOB_STATE_RUNNING"));
}

TEST(VertexBackendTest, CancelAsksTheServiceAndWaitsForCancelled) {
  auto transport = std::make_shared<ScriptedTransport>();
  std::atomic<bool> cancelled{false};
  transport->SetHandler([&](const RecordedRequest& request) -> absl::StatusOr<http::HttpResponse> {
    if (request.method == "POST" && request.url.ends_with(":cancel")) {
      cancelled = true;
      return Response(200, "{}");
    }
    if (request.method == "POST") return Response(200, JobJson("JOB_STATE_QUEUED").dump());
    return Response(200, JobJson(cancelled ? "JOB_STATE_CANCELLED" : "JOB_STATE_RUNNING").dump());
  });
  CustomJobOptions options;
  options.backend = JobBackendKind::kVertex;
  options.environment = std::map<std::string, std::string>{};
  options.vertex.project = "p";
  options.vertex.location = "us-central1";
  options.vertex.transport = transport;
  options.vertex.credentials = std::make_shared<auth::AccessTokenCredentials>("tok");
  options.vertex.initial_poll_interval = absl::Seconds(30);  // only Cancel() makes it poll
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(testing::MakeJob("/bin/true", {{1, {}}}), options);
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());
  job->Cancel();
  absl::StatusOr<jobspec::CustomJob> done = job->Wait();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kCancelled);
}

TEST(VertexBackendTest, CreateWithoutProjectIsInvalid) {
  CustomJobOptions options;
  options.backend = JobBackendKind::kVertex;
  options.vertex.location = "us-central1";
  options.vertex.credentials = std::make_shared<auth::AccessTokenCredentials>("tok");
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(testing::MakeJob("/bin/true", {{1, {}}}), options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("project"));
}

// Issue 19: Vertex AI assigns the job id, so a caller's job_id is refused
// (it was silently dropped), by the same rule `trainpkg run --job-id` uses.
TEST(VertexBackendTest, CallersJobIdIsRefusedNamingTheField) {
  auto transport = std::make_shared<http::testing::ScriptedTransport>();
  CustomJobOptions options;
  options.backend = JobBackendKind::kVertex;
  options.environment = std::map<std::string, std::string>{};
  options.vertex.project = "p";
  options.vertex.location = "us-central1";
  options.vertex.transport = transport;
  options.vertex.credentials = std::make_shared<auth::AccessTokenCredentials>("tok");
  options.job_id = "my_job";
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(testing::MakeJob("/bin/true", {{1, {}}}), options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(),
              HasSubstr("job_id: \"my_job\": Vertex AI assigns the job id"));
  EXPECT_THAT(transport->requests(), ::testing::IsEmpty());
}

// Finding 18 of issue 16: the location becomes part of the host name.
TEST(VertexResourceIdsTest, RegionsAndProjectsOfTheirDocumentedForm) {
  for (const char* region : {"us-central1", "europe-west4", "local", "l1", "local-1"}) {
    EXPECT_THAT(ValidateVertexLocation(region), IsOk()) << region;
  }
  for (const char* region : {"", "127.0.0.1:18944/x#", "US-CENTRAL1", "us central1", "a.b",
                             "x@evil.example", "us-central1/"}) {
    absl::Status status = ValidateVertexLocation(region);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << region;
    EXPECT_THAT(status.message(), HasSubstr("lowercase letters, digits and '-'"));
  }
  EXPECT_FALSE(ValidateVertexLocation(std::string(kMaxLocationLength + 1, 'a')).ok());
  EXPECT_THAT(ValidateVertexLocation("\x1b[2J").message(), HasSubstr("\"\\x1b[2J\""));

  for (const char* project :
       {"my-project-123", "p", "demo", "123456789012", "example.com:my-proj"}) {
    EXPECT_THAT(ValidateVertexProject(project), IsOk()) << project;
  }
  for (const char* project : {"", "p/../../v1", "My-Project", "1abc", "proj-", "a?b", "p#", ":p",
                              "example.com:", "-x.com:p", "abcdefghijklmnopqrstuvwxyz12345"}) {
    EXPECT_EQ(ValidateVertexProject(project).code(), absl::StatusCode::kInvalidArgument) << project;
  }
}

TEST(VertexBackendTest, RegionNamingAnotherHostIsRefusedBeforeAnyRequest) {
  auto transport = std::make_shared<http::testing::ScriptedTransport>();
  VertexBackendOptions vertex;
  vertex.project = "p";
  vertex.location = "127.0.0.1:18944/x#";
  vertex.transport = transport;
  vertex.credentials = std::make_shared<auth::AccessTokenCredentials>("tok");
  absl::StatusOr<std::shared_ptr<VertexClient>> client =
      MakeVertexClient(vertex, base::MapEnvironment());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(client.status().message(), HasSubstr("vertex backend: location \"127.0.0.1:18944"));

  CustomJobOptions options;
  options.backend = JobBackendKind::kVertex;
  options.environment = std::map<std::string, std::string>{};
  options.vertex = vertex;
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(testing::MakeJob("/bin/true", {{1, {}}}), options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  options.vertex.location = "us-central1";
  options.vertex.project = "p/../../evil";
  job = CustomJob::Create(testing::MakeJob("/bin/true", {{1, {}}}), options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(transport->requests(), ::testing::IsEmpty());
}

}  // namespace
}  // namespace trainpkg::sdk::vertex
