// Vertex jobs in the local job store: vertex.json, the record the Vertex
// backend of sdk::CustomJob keeps, and refresh / cancel of a recorded job,
// against a scripted transport.
#include "sdk/vertex/vertex_job_record.h"

#include <atomic>

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "nlohmann/json.hpp"
#include "sdk/cli/job_view.h"
#include "sdk/custom_job.h"
#include "sdk/job_client.h"
#include "sdk/vertex/internal/vertex_job_recorder.h"
#include "tests/http/scripted_transport.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::vertex {
namespace {

using http::testing::RecordedRequest;
using http::testing::Response;
using http::testing::ScriptedTransport;
using jobspec::JobState;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kEndpoint[] = "https://us-central1-aiplatform.googleapis.com";
constexpr char kName[] = "projects/p/locations/us-central1/customJobs/123";

nlohmann::json JobJson(const char* state) {
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {}}});
  job.name = kName;
  nlohmann::json json = jobspec::CustomJobToJson(job);
  json["state"] = state;
  return json;
}

VertexJobRecord Where() {
  return {.endpoint = kEndpoint, .project = "p", .location = "us-central1", .name = ""};
}

std::vector<JobState> States(const JobStore& store, const std::string& id) {
  absl::StatusOr<std::vector<HistoryEntry>> history = store.ReadHistory(id);
  EXPECT_THAT(history, IsOk());
  std::vector<JobState> states;
  if (history.ok()) {
    for (const HistoryEntry& entry : *history) states.push_back(entry.state);
  }
  return states;
}

TEST(VertexJobRecordTest, FormatsAndParses) {
  VertexJobRecord record = Where();
  record.name = kName;
  absl::StatusOr<VertexJobRecord> parsed = ParseVertexJobRecord(FormatVertexJobRecord(record));
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, record);
  EXPECT_THAT(FormatVertexJobRecord(record), HasSubstr("\"name\": \"" + std::string(kName)));

  EXPECT_EQ(ParseVertexJobRecord("[]").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseVertexJobRecord("{").status().code(), absl::StatusCode::kInvalidArgument);
  absl::Status missing =
      ParseVertexJobRecord(R"({"endpoint":"e","project":"p","location":"l"})").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.message(), HasSubstr("name"));
  EXPECT_THAT(ParseVertexJobRecord(R"({"endpoint":"e","project":1,"location":"l","name":"n"})")
                  .status()
                  .message(),
              HasSubstr("project"));
}

TEST(VertexJobRecordTest, StoreIdIsTheLastSegmentOfTheName) {
  EXPECT_EQ(VertexJobStoreId(kName).value_or(""), "123");
  EXPECT_EQ(VertexJobStoreId("").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(VertexJobStoreId("123").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(VertexJobStoreId("projects/p/").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(VertexJobStoreId("a/..").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(VertexJobRecordTest, ReadingALocalJobIsNotFoundAndABrokenRecordDataLoss) {
  testing::TempDir dir;
  JobStore store(dir.path());
  ASSERT_THAT(store.CreateJobDir("local1"), IsOk());
  EXPECT_EQ(ReadVertexJobRecord(store, "local1").status().code(), absl::StatusCode::kNotFound);
  ASSERT_THAT(base::WriteFileAtomic(VertexJobRecordFile(store, "local1"), "{}"), IsOk());
  absl::Status broken = ReadVertexJobRecord(store, "local1").status();
  EXPECT_EQ(broken.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(broken.message(), HasSubstr("vertex.json"));
}

TEST(VertexJobRecorderTest, RecordsOnFirstCallAndHistoryOnChanges) {
  testing::TempDir dir;
  JobStore store(dir.path());
  internal::VertexJobRecorder recorder(store, Where());
  EXPECT_TRUE(recorder.job_dir().empty());
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {}}});
  job.name = kName;
  job.state = JobState::kQueued;
  recorder.Record(job, JobState::kUnspecified);
  EXPECT_EQ(recorder.job_dir(), store.JobDir("123"));
  job.state = JobState::kRunning;
  recorder.Record(job, JobState::kQueued);
  job.state = JobState::kSucceeded;
  recorder.Record(job, JobState::kRunning);
  EXPECT_EQ(store.ReadJob("123").value_or(jobspec::CustomJob{}).state, JobState::kSucceeded);
  EXPECT_THAT(States(store, "123"),
              ::testing::ElementsAre(JobState::kQueued, JobState::kRunning, JobState::kSucceeded));
  VertexJobRecord expected = Where();
  expected.name = kName;
  EXPECT_EQ(ReadVertexJobRecord(store, "123").value_or(VertexJobRecord{}), expected);

  // The same job recorded again (another process) is fine; another job
  // under that id is left alone.
  internal::VertexJobRecorder again(store, Where());
  again.Record(job, JobState::kSucceeded);
  EXPECT_EQ(again.job_dir(), store.JobDir("123"));
  VertexJobRecord elsewhere = Where();
  elsewhere.endpoint = "http://127.0.0.1:1";
  internal::VertexJobRecorder other(store, elsewhere);
  job.state = JobState::kFailed;
  other.Record(job, JobState::kUnspecified);
  EXPECT_TRUE(other.job_dir().empty());
  EXPECT_EQ(store.ReadJob("123").value_or(jobspec::CustomJob{}).state, JobState::kSucceeded);
}

TEST(VertexJobRecordTest, CustomJobRecordsEveryStateItSees) {
  testing::TempDir dir;
  auto transport = std::make_shared<ScriptedTransport>();
  transport->Push(Response(200, JobJson("JOB_STATE_PENDING").dump()));
  transport->Push(Response(200, JobJson("JOB_STATE_RUNNING").dump()));
  transport->Push(Response(200, JobJson("JOB_STATE_RUNNING").dump()));
  transport->Push(Response(200, JobJson("JOB_STATE_SUCCEEDED").dump()));
  CustomJobOptions options;
  options.backend = JobBackendKind::kVertex;
  options.environment = std::map<std::string, std::string>{};
  options.home = dir.path();
  options.vertex.project = "p";
  options.vertex.location = "us-central1";
  options.vertex.transport = transport;
  options.vertex.credentials = std::make_shared<auth::AccessTokenCredentials>("secret-tok");
  options.vertex.initial_poll_interval = absl::Milliseconds(1);
  options.vertex.max_poll_interval = absl::Milliseconds(5);
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(testing::MakeJob("/bin/true", {{1, {}}}), options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  JobStore store(dir.path());
  EXPECT_EQ(job->job_dir(), store.JobDir("123"));
  EXPECT_THAT(States(store, "123"),
              ::testing::ElementsAre(JobState::kPending, JobState::kRunning, JobState::kSucceeded));
  EXPECT_EQ(base::ReadFile(store.JobFile("123")).value_or(""), jobspec::FormatCustomJobJson(*done));
  std::string record = base::ReadFile(VertexJobRecordFile(store, "123")).value_or("");
  EXPECT_THAT(record, HasSubstr(kEndpoint));
  EXPECT_THAT(record, Not(HasSubstr("secret-tok")));

  // JobClient lists it as a Vertex job and leaves cancelling to the service.
  JobClient client(store);
  absl::StatusOr<std::vector<JobInfo>> jobs = client.ListJobs();
  ASSERT_THAT(jobs, IsOk());
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].backend, "vertex");
  ASSERT_TRUE((*jobs)[0].vertex.has_value());
  EXPECT_EQ((*jobs)[0].vertex->name, kName);
  std::string table = cli::FormatJobTable(*jobs, absl::Now());
  EXPECT_THAT(table, HasSubstr("BACKEND"));
  EXPECT_THAT(table, HasSubstr("JOB_STATE_SUCCEEDED"));
  EXPECT_THAT(table, HasSubstr("vertex"));
  EXPECT_THAT(cli::FormatJobDescription((*jobs)[0], store), HasSubstr("Cloud Logging"));
  EXPECT_EQ(client.CancelJob("123", absl::Seconds(1)).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(VertexJobRecordTest, CancelAsksTheServiceAndRecordsUntilTerminal) {
  testing::TempDir dir;
  JobStore store(dir.path());
  internal::VertexJobRecorder recorder(store, Where());
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {}}});
  job.name = kName;
  job.state = JobState::kRunning;
  recorder.Record(job, JobState::kUnspecified);

  auto transport = std::make_shared<ScriptedTransport>();
  std::atomic<int> polls_after_cancel{-1};
  transport->SetHandler([&](const RecordedRequest& request) -> absl::StatusOr<http::HttpResponse> {
    if (request.method == "POST" && request.url.ends_with(std::string(kName) + ":cancel")) {
      polls_after_cancel = 0;
      return Response(200, "{}");
    }
    if (polls_after_cancel < 0) return Response(200, JobJson("JOB_STATE_RUNNING").dump());
    return Response(
        200,
        JobJson(++polls_after_cancel < 2 ? "JOB_STATE_CANCELLING" : "JOB_STATE_CANCELLED").dump());
  });
  VertexClient client({.endpoint = kEndpoint,
                       .transport = transport,
                       .credentials = std::make_shared<auth::AccessTokenCredentials>("tok"),
                       .clock = nullptr});
  absl::StatusOr<jobspec::CustomJob> done =
      CancelRecordedVertexJob(store, "123", client, absl::Seconds(10), absl::Milliseconds(1));
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, JobState::kCancelled);
  EXPECT_THAT(
      States(store, "123"),
      ::testing::ElementsAre(JobState::kRunning, JobState::kCancelling, JobState::kCancelled));
  // A terminal record is not sent again.
  const size_t requests = transport->requests().size();
  ASSERT_THAT(CancelRecordedVertexJob(store, "123", client, absl::Seconds(1)), IsOk());
  EXPECT_EQ(transport->requests().size(), requests);
  EXPECT_EQ(CancelRecordedVertexJob(store, "nope", client, absl::Seconds(1)).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace trainpkg::sdk::vertex
