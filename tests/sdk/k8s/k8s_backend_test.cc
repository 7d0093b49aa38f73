// The kubeconfig reader, the workload states, the API client's paths and
// errors, and the Kubernetes backend of sdk::CustomJob, against a scripted
// transport.
#include "sdk/k8s/internal/k8s_backend.h"

#include <chrono>
#include <sstream>
#include <thread>

#include "absl/strings/escaping.h"
#include "base/environment.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/custom_job.h"
#include "sdk/job_client.h"
#include "sdk/job_store.h"
#include "sdk/k8s/k8s_client.h"
#include "sdk/k8s/k8s_job_record.h"
#include "sdk/k8s/kubeconfig.h"
#include "sdk/k8s/pod_logs.h"
#include "sdk/k8s/workload_state.h"
#include "tests/http/scripted_transport.h"
#include "tests/sdk/k8s/k8s_test_jobs.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::k8s {
namespace {

using http::testing::RecordedRequest;
using http::testing::Response;
using http::testing::ScriptedTransport;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kKubeconfig[] = R"(
apiVersion: v1
kind: Config
current-context: dev
contexts:
- name: dev
  context: {cluster: c1, user: alice, namespace: training}
- name: ops
  context: {cluster: c1, user: bob}
- name: plugin
  context: {cluster: c1, user: gke}
clusters:
- name: c1
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Q0EtUEVN
users:
- name: alice
  user: {token: t0k3n}
- name: bob
  user: {client-certificate: certs/bob.crt, client-key-data: S0VZ}
- name: gke
  user:
    exec: {command: gke-gcloud-auth-plugin}
)";

// A test with a scratch directory dir_, removed afterwards.
class ScratchTest : public ::testing::Test {
 protected:
  ::trainpkg::testing::TempDir scratch_;
  const std::filesystem::path dir_ = scratch_.path();
};

using KubeconfigTest = ScratchTest;

TEST_F(KubeconfigTest, CurrentContextWithTokenAndInlineCa) {
  absl::StatusOr<ClusterAccess> access = ParseKubeconfig(kKubeconfig, dir_, "");
  ASSERT_THAT(access, IsOk());
  EXPECT_EQ(access->context, "dev");
  EXPECT_EQ(access->server, "https://127.0.0.1:6443");
  EXPECT_EQ(access->ca_pem, "CA-PEM");
  EXPECT_EQ(access->token, "t0k3n");
  EXPECT_EQ(access->kubernetes_namespace, "training");
}

TEST_F(KubeconfigTest, NamedContextWithClientCertificateFileRelativeToTheConfig) {
  std::filesystem::create_directories(dir_ / "certs");
  ASSERT_THAT(base::WriteFileAtomic(dir_ / "certs/bob.crt", "CERT"), IsOk());
  ASSERT_THAT(base::WriteFileAtomic(dir_ / "config", kKubeconfig), IsOk());
  absl::StatusOr<ClusterAccess> access = LoadKubeconfig(dir_ / "config", "ops");
  ASSERT_THAT(access, IsOk());
  EXPECT_EQ(access->client_cert_pem, "CERT");
  EXPECT_EQ(access->client_key_pem, "KEY");
  EXPECT_EQ(access->token, "");
  EXPECT_EQ(access->kubernetes_namespace, "");
}

TEST_F(KubeconfigTest, ErrorsNameTheField) {
  EXPECT_EQ(ParseKubeconfig(kKubeconfig, dir_, "plugin").status().code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_THAT(ParseKubeconfig(kKubeconfig, dir_, "nope").status().message(),
              HasSubstr("contexts: no entry named \"nope\""));
  EXPECT_THAT(ParseKubeconfig(kKubeconfig, dir_, "ops").status().message(),
              HasSubstr("users[bob].user.client-certificate"));
  base::MapEnvironment env(
      std::map<std::string, std::string>{{"KUBECONFIG", "/a/one:/b/two"}, {"HOME", "/home/u"}});
  EXPECT_EQ(KubeconfigPath(env).value(), "/a/one");
  EXPECT_EQ(
      KubeconfigPath(base::MapEnvironment(std::map<std::string, std::string>{{"HOME", "/home/u"}}))
          .value(),
      "/home/u/.kube/config");
}

TEST(WorkloadStateTest, JobSetConditionsAndCounts) {
  auto state = [](const char* status) {
    return ReadWorkloadState(WorkloadKind::kJobSet, json{{"status", json::parse(status)}});
  };
  EXPECT_EQ(state("{}").state, jobspec::JobState::kPending);
  EXPECT_EQ(state(R"({"replicatedJobsStatus":[{"name":"workerpool0","active":1}]})").state,
            jobspec::JobState::kRunning);
  EXPECT_EQ(state(R"({"terminalState":"Completed"})").state, jobspec::JobState::kSucceeded);
  WorkloadState failed = state(
      R"({"conditions":[{"type":"Failed","status":"True","reason":"FailedJobs","message":"jobset failed due to job failure"}]})");
  EXPECT_EQ(failed.state, jobspec::JobState::kFailed);
  ASSERT_TRUE(failed.error.has_value());
  EXPECT_EQ(failed.error->code, 3);
  EXPECT_EQ(failed.error->message, "jobset failed due to job failure");
}

// The API server's reply is outside input: counts of another type (a string,
// an object, a list entry that is no object) are not counts, never a thrown
// json::type_error that ends trainpkg.
TEST(WorkloadStateTest, JobSetCountsOfAnotherTypeAreNotCounts) {
  auto state = [](const char* status) {
    return ReadWorkloadState(WorkloadKind::kJobSet, json{{"status", json::parse(status)}});
  };
  EXPECT_EQ(state(R"({"replicatedJobsStatus":[1, "x", null, {"active":"2"}, {"ready":{"n":1}},
                                             {"succeeded":[1]}, {"active":-1}]})")
                .state,
            jobspec::JobState::kPending);
  EXPECT_EQ(state(R"({"replicatedJobsStatus":[[], {"active":"2"}, {"ready":1}]})").state,
            jobspec::JobState::kRunning);
}

TEST(WorkloadStateTest, KubeflowLastTrueConditionWins) {
  auto state = [](const char* status) {
    return ReadWorkloadState(WorkloadKind::kTFJob, json{{"status", json::parse(status)}});
  };
  EXPECT_EQ(state("{}").state, jobspec::JobState::kQueued);
  EXPECT_EQ(state(R"({"conditions":[{"type":"Created","status":"True"},
                                    {"type":"Running","status":"True"}]})")
                .state,
            jobspec::JobState::kRunning);
  EXPECT_EQ(state(R"({"conditions":[{"type":"Running","status":"False"},
                                    {"type":"Succeeded","status":"True"}]})")
                .state,
            jobspec::JobState::kSucceeded);
  WorkloadState late = state(R"({"conditions":[{"type":"Failed","status":"True",
      "reason":"DeadlineExceeded","message":"TFJob digits-1 has failed because it has reached the specified deadline"}]})");
  ASSERT_TRUE(late.error.has_value());
  EXPECT_EQ(late.error->code, 4);
}

TEST(K8sClientTest, PathsAndKubernetesStatusErrors) {
  EXPECT_EQ(CollectionPath({.api_version = "v1", .kind = "Secret", .kubernetes_namespace = "n"}),
            "/api/v1/namespaces/n/secrets");
  EXPECT_EQ(CollectionPath({.api_version = "jobset.x-k8s.io/v1alpha2",
                            .kind = "JobSet",
                            .kubernetes_namespace = "n"}),
            "/apis/jobset.x-k8s.io/v1alpha2/namespaces/n/jobsets");
  absl::Status exists = StatusFromKubernetesReply(
      409,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"jobsets.jobset.x-k8s.io \"d\" already exists","reason":"AlreadyExists","code":409})",
      "creating JobSet n/d");
  EXPECT_EQ(exists.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(exists.message(),
            "creating JobSet n/d: HTTP 409 AlreadyExists: jobsets.jobset.x-k8s.io \"d\" already "
            "exists");
  EXPECT_EQ(StatusFromKubernetesReply(403, "forbidden", "x").code(),
            absl::StatusCode::kPermissionDenied);
}

// A scripted API server: answers by method and path, records the rest.
class FakeApiServer {
 public:
  // refuse_delete: DELETE answers 403, and the workload completes only after that refusal.
  explicit FakeApiServer(std::vector<json> workload_states, bool refuse_delete = false)
      : states_(std::move(workload_states)), refuse_delete_(refuse_delete) {
    transport_->SetHandler([this](const RecordedRequest& r) { return Answer(r); });
  }
  std::shared_ptr<ScriptedTransport> transport() { return transport_; }

 private:
  absl::StatusOr<http::HttpResponse> Answer(const RecordedRequest& r) {
    const std::string base = "https://127.0.0.1:6443";
    std::string path = r.url.substr(base.size());
    if (r.method == "POST") {
      json object = json::parse(r.body);
      object["metadata"]["uid"] = "uid-" + object["kind"].get<std::string>();
      return Response(201, object.dump());
    }
    if (r.method == "DELETE" && refuse_delete_) {
      delete_refused_ = true;
      return Response(403, R"({"kind":"Status","reason":"Forbidden","message":"cannot delete"})");
    }
    if (r.method == "DELETE") {
      deleted_ = true;
      return Response(200, R"({"kind":"Status","status":"Success"})");
    }
    if (path.starts_with("/apis/jobset.x-k8s.io/v1alpha2/namespaces/training/jobsets/")) {
      if (deleted_) {
        return Response(404, R"({"kind":"Status","reason":"NotFound","message":"gone"})");
      }
      json state = states_[std::min(polls_++, states_.size() - 1)];
      if (delete_refused_) state = json{{"terminalState", "Completed"}};
      return Response(200, json{{"metadata", {{"name", "digits-1"}}}, {"status", state}}.dump());
    }
    if (path.starts_with("/api/v1/namespaces/training/pods?")) {
      return Response(200, R"({"items":[
          {"metadata":{"name":"digits-1-workerpool1-1-0-fghij",
                       "labels":{"trainpkg.dev/pool":"workerpool1","jobset.sigs.k8s.io/job-index":"1"}},
           "spec":{"containers":[{"name":"trainer"}]}},
          {"metadata":{"name":"digits-1-workerpool0-0-0-abcde",
                       "labels":{"trainpkg.dev/pool":"workerpool0","jobset.sigs.k8s.io/job-index":"0"}},
           "spec":{"containers":[{"name":"trainer"}]}}]})");
    }
    if (path.starts_with("/api/v1/namespaces/training/pods/digits-1-workerpool0-0-0-abcde/log")) {
      return Response(200, "epoch 1 loss 0.5\nepoch 2 loss 0.2\n");
    }
    if (path.starts_with("/api/v1/namespaces/training/pods/digits-1-workerpool1-1-0-fghij/log")) {
      return Response(200, "worker 1 done\n");
    }
    return Response(404, R"({"kind":"Status","reason":"NotFound","message":"no route"})");
  }

  std::shared_ptr<ScriptedTransport> transport_ = std::make_shared<ScriptedTransport>();
  std::vector<json> states_;
  size_t polls_ = 0;
  bool deleted_ = false;
  bool refuse_delete_ = false;
  bool delete_refused_ = false;
};

internal::K8sBackendConfig BackendConfig(std::shared_ptr<ScriptedTransport> transport,
                                         sdk::internal::LineStream* log) {
  RenderRequest request = testing::GoldenRequest(WorkloadKind::kJobSet);
  internal::K8sBackendConfig config{
      .client = std::make_shared<K8sClient>(K8sClientOptions{
          .server = "https://127.0.0.1:6443", .transport = transport, .token = "t0k3n"}),
      .options = {},
      .manifests = RenderJobManifests(request).value(),
      .job = request.job,
      .log = log,
      .stream_pod_logs = true};
  config.options.initial_poll_interval = absl::Milliseconds(1);
  config.options.max_poll_interval = absl::Milliseconds(5);
  return config;
}

TEST(K8sBackendTest, CreatesWorkloadThenOwnedObjectsPollsAndWritesPodLogs) {
  FakeApiServer server(std::vector<json>{
      json::parse(R"({"replicatedJobsStatus":[{"name":"workerpool0","active":1}]})"),
      json::parse(R"({"terminalState":"Completed",
                            "conditions":[{"type":"Completed","status":"True"}]})")});
  std::ostringstream out;
  sdk::internal::LineStream log(&out);
  internal::K8sBackend backend(BackendConfig(server.transport(), &log));
  ASSERT_THAT(backend.Start(), IsOk());
  backend.Wait();
  absl::StatusOr<jobspec::CustomJob> done = backend.Result();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  EXPECT_EQ(done->name, "namespaces/training/jobsets/digits-1");

  const std::vector<RecordedRequest>& requests = server.transport()->requests();
  ASSERT_GE(requests.size(), 5u);
  EXPECT_EQ(requests[0].url,
            "https://127.0.0.1:6443/apis/jobset.x-k8s.io/v1alpha2/namespaces/training/jobsets");
  EXPECT_EQ(requests[0].headers.Get("Authorization"), "Bearer t0k3n");
  EXPECT_EQ(requests[1].url, "https://127.0.0.1:6443/api/v1/namespaces/training/secrets");
  json owner = json::parse(requests[1].body)["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["uid"], "uid-JobSet");
  EXPECT_EQ(owner["kind"], "JobSet");
  EXPECT_EQ(requests[2].url, "https://127.0.0.1:6443/api/v1/namespaces/training/services");
  EXPECT_THAT(requests[requests.size() - 3].url,  // then one log per pod
              HasSubstr("/pods?labelSelector=trainpkg.dev%2Fjob%3Ddigits-1"));
  EXPECT_THAT(requests.back().url, HasSubstr("/log?container=trainer"));
  EXPECT_THAT(out.str(), HasSubstr("JobSet created. Resource name: "
                                   "namespaces/training/jobsets/digits-1"));
  EXPECT_THAT(out.str(), HasSubstr("JOB_STATE_RUNNING"));
  EXPECT_THAT(out.str(), HasSubstr("[digits-1-workerpool0-0-0-abcde] epoch 2 loss 0.2\n"
                                   "[digits-1-workerpool1-1-0-fghij] worker 1 done\n"));
  EXPECT_THAT(out.str(), HasSubstr("CustomJob run completed."));
}

TEST(K8sBackendTest, CancelDeletesTheWorkloadAndEndsCancelled) {
  FakeApiServer server(std::vector<json>{json::object()});
  internal::K8sBackend backend(BackendConfig(server.transport(), nullptr));
  ASSERT_THAT(backend.Start(), IsOk());
  backend.Cancel(/*immediately=*/false);
  backend.Wait();
  absl::StatusOr<jobspec::CustomJob> done = backend.Result();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kCancelled);
  bool deleted = false;
  for (const RecordedRequest& r : server.transport()->requests()) {
    if (r.method == "DELETE") {
      deleted = true;
      EXPECT_THAT(r.url, HasSubstr("/jobsets/digits-1?propagationPolicy=Background"));
    }
  }
  EXPECT_TRUE(deleted);
}

TEST(K8sBackendTest, RefusedDeleteIsReportedAndTheJobIsFollowedToItsEnd) {
  FakeApiServer server(std::vector<json>{json::parse(
                           R"({"replicatedJobsStatus":[{"name":"workerpool0","active":1}]})")},
                       /*refuse_delete=*/true);
  std::ostringstream out;
  sdk::internal::LineStream log(&out);
  internal::K8sBackend backend(BackendConfig(server.transport(), &log));
  ASSERT_THAT(backend.Start(), IsOk());
  backend.Cancel(/*immediately=*/false);
  backend.Wait();
  absl::StatusOr<jobspec::CustomJob> done = backend.Result();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  EXPECT_THAT(out.str(), HasSubstr("Cancelling namespaces/training/jobsets/digits-1 failed: "));
  EXPECT_THAT(out.str(), HasSubstr("cannot delete; the job goes on."));
}

TEST(K8sBackendTest, CreateErrorIsTheServersAndNothingIsLeftBehind) {
  auto transport = std::make_shared<ScriptedTransport>();
  transport->Push(Response(
      404,
      R"({"kind":"Status","reason":"NotFound","message":"the server could not find the requested resource"})"));
  internal::K8sBackend backend(BackendConfig(transport, nullptr));
  absl::Status status = backend.Start();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("creating JobSet training/digits-1: HTTP 404 NotFound"));
  EXPECT_EQ(transport->requests().size(), 1u);
}

// CustomJob options for job digits-1 on `server` through kubeconfig `config`.
CustomJobOptions K8sOptions(const std::filesystem::path& config, FakeApiServer& server) {
  CustomJobOptions options;
  options.backend = JobBackendKind::kK8s;
  options.k8s.kubeconfig = config;
  options.k8s.transport = server.transport();
  options.k8s.keychain = std::make_shared<registry::AnonymousKeychain>();
  options.k8s.initial_poll_interval = absl::Milliseconds(1);
  options.job_id = "digits-1";
  return options;
}

TEST_F(KubeconfigTest, CustomJobOnK8sRendersAtCreateAndRunsThroughTheBackend) {
  ASSERT_THAT(base::WriteFileAtomic(dir_ / "config", kKubeconfig), IsOk());
  FakeApiServer server(std::vector<json>{json::parse(R"({"terminalState":"Completed"})")});
  CustomJobOptions options = K8sOptions(dir_ / "config", server);
  options.environment = std::map<std::string, std::string>{};  // no HOME: no job store
  absl::StatusOr<CustomJob> job = CustomJob::Create(testing::FourPoolJob(), options);
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->resource_name(), "namespaces/training/jobsets/digits-1");
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  EXPECT_EQ(server.transport()->requests()[0].headers.Get("Authorization"), "Bearer t0k3n");

  EXPECT_TRUE(JobStore(dir_ / "home").ListJobIds()->empty());  // not asked to record it

  options.job_id = "Not_A_Dns_Label";
  EXPECT_THAT(CustomJob::Create(testing::FourPoolJob(), options).status().message(),
              HasSubstr("DNS-1035"));
}

TEST(K8sJobRecordTest, RoundTripsAndNamesTheBadField) {
  K8sJobRecord record{.kubeconfig = "/home/u/.kube/config",
                      .context = "dev",
                      .workload = {.api_version = "kubeflow.org/v1",
                                   .kind = "TFJob",
                                   .kubernetes_namespace = "training",
                                   .name = "digits-1"}};
  absl::StatusOr<K8sJobRecord> back = ParseK8sJobRecord(FormatK8sJobRecord(record));
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(*back, record);
  EXPECT_THAT(FormatK8sJobRecord(record), HasSubstr(R"("namespace": "training")"));
  json text = json::parse(FormatK8sJobRecord(record));
  text.erase("context");
  EXPECT_EQ(ParseK8sJobRecord(text.dump()).status().message(),
            "context: a non-empty string is required");
  text = json::parse(FormatK8sJobRecord(record));
  text["kind"] = "Deployment";
  EXPECT_THAT(ParseK8sJobRecord(text.dump()).status().message(),
              HasSubstr("\"Deployment\" is not JobSet, TFJob or PyTorchJob"));
}

TEST_F(KubeconfigTest, CustomJobOnK8sIsRecordedInTheJobStoreWithoutCredentials) {
  ASSERT_THAT(base::WriteFileAtomic(dir_ / "config", kKubeconfig), IsOk());
  FakeApiServer server(std::vector<json>{
      json::parse(R"({"replicatedJobsStatus":[{"name":"workerpool0","active":1}]})"),
      json::parse(R"({"terminalState":"Completed"})")});
  CustomJobOptions options = K8sOptions(dir_ / "config", server);
  options.home = dir_ / "home";
  absl::StatusOr<CustomJob> job = CustomJob::Create(testing::FourPoolJob(), options);
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Run(), IsOk());

  JobClient client{JobStore(dir_ / "home")};
  absl::StatusOr<JobInfo> info = client.GetJob("digits-1");
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->backend, "k8s");
  EXPECT_EQ(info->job.state, jobspec::JobState::kSucceeded);
  EXPECT_EQ(info->job.name, "namespaces/training/jobsets/digits-1");
  EXPECT_TRUE(info->job.create_time.has_value());
  EXPECT_TRUE(info->job.end_time.has_value());
  ASSERT_TRUE(info->k8s.has_value());
  EXPECT_EQ(info->k8s->kubeconfig, (dir_ / "config").string());
  EXPECT_EQ(info->k8s->context, "dev");
  EXPECT_EQ(info->k8s->workload.kind, "JobSet");
  EXPECT_EQ(info->k8s->workload.kubernetes_namespace, "training");
  absl::StatusOr<std::vector<HistoryEntry>> history = client.store().ReadHistory("digits-1");
  ASSERT_THAT(history, IsOk());
  std::vector<jobspec::JobState> states;
  for (const HistoryEntry& entry : *history) states.push_back(entry.state);
  EXPECT_THAT(states,
              ::testing::ElementsAre(jobspec::JobState::kQueued, jobspec::JobState::kRunning,
                                     jobspec::JobState::kSucceeded));
  absl::StatusOr<std::string> record = base::ReadFile(K8sJobRecordFile(client.store(), "digits-1"));
  ASSERT_THAT(record, IsOk());
  EXPECT_THAT(*record, ::testing::Not(HasSubstr("t0k3n")));
  EXPECT_EQ(client.CancelJob("digits-1", absl::Seconds(1)).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

class RecordedK8sJobTest : public ScratchTest {
 protected:
  void SetUp() override {
    ASSERT_THAT(store_.CreateJobDir("digits-1"), IsOk());
    jobspec::CustomJob job = testing::FourPoolJob();
    job.name = "namespaces/training/jobsets/digits-1";
    job.state = jobspec::JobState::kPending;
    ASSERT_THAT(store_.WriteJob("digits-1", job), IsOk());
    ASSERT_TRUE(
        WriteK8sJobRecord(store_, "digits-1",
                          K8sJobRecord{.kubeconfig = "/nonexistent/config",
                                       .context = "dev",
                                       .workload = {.api_version = "jobset.x-k8s.io/v1alpha2",
                                                    .kind = "JobSet",
                                                    .kubernetes_namespace = "training",
                                                    .name = "digits-1"}})
            .ok());
  }
  K8sClient Client() {
    return K8sClient(K8sClientOptions{
        .server = "https://127.0.0.1:6443", .transport = server_.transport(), .token = "t0k3n"});
  }
  JobStore store_{dir_ / "home"};
  FakeApiServer server_{std::vector<json>{
      json::parse(R"({"replicatedJobsStatus":[{"name":"workerpool0","active":1}]})")}};
};

TEST_F(RecordedK8sJobTest, RefreshRecordsTheWorkloadsState) {
  K8sClient client = Client();
  absl::StatusOr<jobspec::CustomJob> job = RefreshRecordedK8sJob(store_, "digits-1", client);
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->state, jobspec::JobState::kRunning);
  EXPECT_EQ(store_.ReadJob("digits-1")->state, jobspec::JobState::kRunning);
  EXPECT_EQ(store_.ReadHistory("digits-1")->size(), 1u);
  EXPECT_EQ(RefreshRecordedK8sJob(store_, "nope", client).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(RecordedK8sJobTest, LogsArePrefixedByPodOrOneReplicasAlone) {
  K8sClient client = Client();
  std::ostringstream all;
  ASSERT_THAT(WriteRecordedK8sJobLogs(store_, "digits-1", client, "", all), IsOk());
  EXPECT_EQ(all.str(),
            "[digits-1-workerpool0-0-0-abcde] epoch 1 loss 0.5\n"
            "[digits-1-workerpool0-0-0-abcde] epoch 2 loss 0.2\n"
            "[digits-1-workerpool1-1-0-fghij] worker 1 done\n");
  std::ostringstream one;
  ASSERT_THAT(WriteRecordedK8sJobLogs(store_, "digits-1", client, "workerpool1-1", one), IsOk());
  EXPECT_EQ(one.str(), "worker 1 done\n");
  std::ostringstream none;
  absl::Status missing = WriteRecordedK8sJobLogs(store_, "digits-1", client, "workerpool3-0", none);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.message(), "JobSet training/digits-1 has no pod of replica workerpool3-0");
}

TEST_F(RecordedK8sJobTest, CancelDeletesTheWorkloadAndRecordsCancelled) {
  K8sClient client = Client();
  absl::StatusOr<jobspec::CustomJob> job =
      CancelRecordedK8sJob(store_, "digits-1", client, absl::Seconds(5), absl::Milliseconds(1));
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->state, jobspec::JobState::kCancelled);
  EXPECT_EQ(store_.ReadJob("digits-1")->state, jobspec::JobState::kCancelled);
  int deletes = 0;
  for (const RecordedRequest& r : server_.transport()->requests()) deletes += r.method == "DELETE";
  EXPECT_EQ(deletes, 1);
  // Terminal now: a second cancel or refresh leaves it as it is and asks nothing.
  const size_t asked = server_.transport()->requests().size();
  EXPECT_EQ(CancelRecordedK8sJob(store_, "digits-1", client, absl::Seconds(1))->state,
            jobspec::JobState::kCancelled);
  EXPECT_EQ(RefreshRecordedK8sJob(store_, "digits-1", client)->state,
            jobspec::JobState::kCancelled);
  EXPECT_EQ(server_.transport()->requests().size(), asked);
}

TEST(PodLogsTest, ReplicaOfPodReadsOurPoolLabelAndTheControllersIndex) {
  EXPECT_EQ(ReplicaOfPod(json::parse(
                R"({"metadata":{"labels":{"trainpkg.dev/pool":"workerpool1",
                                          "training.kubeflow.org/replica-index":"2"}}})")),
            "workerpool1-2");
  EXPECT_EQ(
      ReplicaOfPod(json::parse(R"({"metadata":{"labels":{"trainpkg.dev/pool":"workerpool0"}}})")),
      "workerpool0-0");
  EXPECT_EQ(ReplicaOfPod(json::parse(R"({"metadata":{"name":"x"}})")), "");
}

}  // namespace
}  // namespace trainpkg::sdk::k8s
