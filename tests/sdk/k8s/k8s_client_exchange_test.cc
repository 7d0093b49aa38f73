// The Kubernetes client over real TLS (libcurl) against a recorded-exchange
// HTTPS server on 127.0.0.1: kubeconfig with client certificate and CA data,
// kubeconfig with a bearer token and a CA file, and the failures a wrong
// trust root or a missing client certificate give. The exchanges are in
// testdata/api_exchanges.json (written by hand, not captured from a cluster).
#include <unistd.h>

#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/auth/credential.h"
#include "sdk/custom_job.h"
#include "sdk/k8s/k8s_client_factory.h"
#include "sdk/k8s/kubeconfig.h"
#include "tests/registry/run_tool.h"
#include "tests/sdk/k8s/k8s_test_jobs.h"
#include "tests/sdk/k8s/recorded_api_server.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::k8s {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const ObjectRef kJobSet{.api_version = "jobset.x-k8s.io/v1alpha2",
                        .kind = "JobSet",
                        .kubernetes_namespace = "training",
                        .name = "digits-1"};

json Exchanges(const char* name) {
  absl::StatusOr<std::string> text =
      base::ReadFile(std::filesystem::path(K8S_TESTDATA_DIR) / "api_exchanges.json");
  EXPECT_THAT(text, IsOk());
  return json::parse(*text)[name];
}

class K8sExchangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("k8s_exchange_", ::getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    server_.Stop();
    std::filesystem::remove_all(dir_);
  }

  void StartServer(const char* exchanges, bool require_client_certificate) {
    absl::Status started =
        server_.Start({.dir = dir_ / "pki",
                       .exchanges = Exchanges(exchanges),
                       .require_client_certificate = require_client_certificate});
    ASSERT_THAT(started, IsOk());
  }

  std::string Data(const std::filesystem::path& path) {
    return absl::Base64Escape(base::ReadFile(path).value());
  }

  // A kubeconfig whose one context reaches the server with `user` (YAML flow mapping).
  std::filesystem::path Kubeconfig(const std::string& cluster_extra, const std::string& user) {
    std::string text = absl::StrCat(
        "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
        "contexts:\n- name: test\n  context: {cluster: test, user: test, namespace: training}\n"
        "clusters:\n- name: test\n  cluster: {server: '",
        server_.server(), "', ", cluster_extra, "}\nusers:\n- name: test\n  user: ", user, "\n");
    std::filesystem::path path = dir_ / "kubeconfig";
    EXPECT_THAT(base::WriteFileAtomic(path, text), IsOk());
    return path;
  }

  std::filesystem::path dir_;
  testing::RecordedApiServer server_;
};

TEST_F(K8sExchangeTest, JobSetRunsWithClientCertificateAndCaData) {
  StartServer("submit_and_watch_jobset", /*require_client_certificate=*/true);
  std::filesystem::path kubeconfig =
      Kubeconfig(absl::StrCat("certificate-authority-data: ", Data(server_.ca_crt())),
                 absl::StrCat("{client-certificate-data: ", Data(server_.client_crt()),
                              ", client-key-data: ", Data(server_.client_key()), "}"));
  CustomJobOptions options;
  options.backend = JobBackendKind::kK8s;
  options.k8s.kubeconfig = kubeconfig;
  options.k8s.keychain = std::make_shared<registry::AnonymousKeychain>();
  options.k8s.initial_poll_interval = absl::Milliseconds(1);
  options.k8s.max_poll_interval = absl::Milliseconds(10);
  options.job_id = "digits-1";
  options.environment = std::map<std::string, std::string>{};
  std::ostringstream out;
  options.log_stream = &out;
  absl::StatusOr<CustomJob> job = CustomJob::Create(testing::FourPoolJob(), options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  EXPECT_THAT(server_.mismatches(), IsEmpty());
  EXPECT_EQ(server_.answered(), Exchanges("submit_and_watch_jobset").size());
  EXPECT_THAT(out.str(), HasSubstr("[digits-1-workerpool0-0-0-x7k2p] epoch 2 accuracy 0.95\n"));
}

TEST_F(K8sExchangeTest, BearerTokenAndCaFileGetDeleteAndServerErrors) {
  StartServer("get_delete_and_errors", /*require_client_certificate=*/false);
  std::filesystem::path kubeconfig = Kubeconfig(
      absl::StrCat("certificate-authority: ", server_.ca_crt().string()), "{token: t0k3n}");
  absl::StatusOr<ClusterAccess> access = LoadKubeconfig(kubeconfig, "");
  ASSERT_THAT(access, IsOk());
  std::shared_ptr<K8sClient> client = MakeK8sClient(*access, nullptr);
  const ObjectRef& ref = kJobSet;
  absl::StatusOr<json> got = client->Get(ref);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ((*got)["metadata"]["name"], "digits-1");
  EXPECT_THAT(client->Delete(ref), IsOk());
  absl::Status missing = client->Get(ref).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("HTTP 404 NotFound: jobsets.jobset.x-k8s.io"));
  absl::StatusOr<JobManifests> tfjob = RenderJobManifests({.job = testing::FourPoolJob(),
                                                           .name = "digits-1",
                                                           .kubernetes_namespace = "training",
                                                           .kind = WorkloadKind::kTFJob});
  ASSERT_THAT(tfjob, IsOk());
  absl::Status forbidden = client->Create(tfjob->workload).status();
  EXPECT_EQ(forbidden.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(forbidden.message(),
              HasSubstr("creating TFJob training/digits-1: HTTP 403 Forbidden"));
  EXPECT_THAT(server_.mismatches(), IsEmpty());
  EXPECT_EQ(server_.answered(), 4u);
}

TEST_F(K8sExchangeTest, ServerCertificateNotSignedByTheKubeconfigCaIsRefused) {
  StartServer("get_delete_and_errors", /*require_client_certificate=*/false);
  // The client certificate is signed by the test CA but is no CA itself.
  std::filesystem::path kubeconfig = Kubeconfig(
      absl::StrCat("certificate-authority: ", server_.client_crt().string()), "{token: t0k3n}");
  std::shared_ptr<K8sClient> client =
      MakeK8sClient(LoadKubeconfig(kubeconfig, "").value(), nullptr);
  absl::Status status = client->Get(kJobSet).status();
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(http::TransportFailureOf(status), http::TransportFailure::kTlsVerify) << status;
  EXPECT_EQ(server_.answered(), 0u);
}

TEST_F(K8sExchangeTest, ServerRequiringAClientCertificateRefusesATokenOnlyUser) {
  StartServer("get_delete_and_errors", /*require_client_certificate=*/true);
  std::filesystem::path kubeconfig = Kubeconfig(
      absl::StrCat("certificate-authority-data: ", Data(server_.ca_crt())), "{token: t0k3n}");
  std::shared_ptr<K8sClient> client =
      MakeK8sClient(LoadKubeconfig(kubeconfig, "").value(), nullptr);
  absl::Status status = client->Get(kJobSet).status();
  EXPECT_FALSE(status.ok()) << "the server answered without a client certificate";
  EXPECT_EQ(server_.answered(), 0u);
}

// `trainpkg run --backend k8s` end to end: the real binary, the kubeconfig,
// TLS with a client certificate, the recorded server; then `trainpkg k8s
// render` and a job the cluster cannot run.
TEST_F(K8sExchangeTest, CliRunsAJobSetAndRendersWithoutACluster) {
  StartServer("submit_and_watch_jobset", /*require_client_certificate=*/true);
  std::filesystem::path kubeconfig =
      Kubeconfig(absl::StrCat("certificate-authority-data: ", Data(server_.ca_crt())),
                 absl::StrCat("{client-certificate-data: ", Data(server_.client_crt()),
                              ", client-key-data: ", Data(server_.client_key()), "}"));
  const std::string docker_config = absl::StrCat("DOCKER_CONFIG=", (dir_ / "docker").string());
  const std::string pool =
      "machine-type=n1-standard-4,replica-count=1,"
      "container-image-uri=localhost:5000/team/trainer:v1";
  const std::string workers =
      "machine-type=n1-standard-4,replica-count=2,container-image-uri=localhost:5000/team/"
      "trainer:v1";
  const std::string home = absl::StrCat("TRAINPKG_HOME=", (dir_ / "home").string());
  absl::StatusOr<std::string> run = registry::testing::RunTool(
      {"env", docker_config, home, TRAINPKG_PATH, "run", "--backend", "k8s", "--kubeconfig",
       kubeconfig.string(), "--job-id", "digits-1", "--worker-pool-spec", pool, workers});
  ASSERT_THAT(run, IsOk());
  EXPECT_THAT(*run,
              HasSubstr("JobSet created. Resource name: namespaces/training/jobsets/digits-1"));
  EXPECT_THAT(*run, HasSubstr("JOB_STATE_SUCCEEDED"));
  EXPECT_THAT(*run, HasSubstr("[digits-1-workerpool0-0-0-x7k2p] epoch 1 accuracy 0.91"));
  EXPECT_THAT(server_.mismatches(), IsEmpty());
  // Recorded in the job store, terminal, so describing it asks the cluster nothing.
  absl::StatusOr<std::string> jobs =
      registry::testing::RunTool({"env", home, TRAINPKG_PATH, "jobs", "list"});
  ASSERT_THAT(jobs, IsOk());
  EXPECT_THAT(*jobs, ::testing::ContainsRegex("digits-1 .* JOB_STATE_SUCCEEDED .* k8s"));
  absl::StatusOr<std::string> describe =
      registry::testing::RunTool({"env", home, TRAINPKG_PATH, "jobs", "describe", "digits-1"});
  ASSERT_THAT(describe, IsOk());
  EXPECT_THAT(*describe, HasSubstr("Kubernetes:\n  Workload: JobSet training/digits-1"));
  EXPECT_THAT(*describe, HasSubstr(absl::StrCat("Kubeconfig: ", kubeconfig.string())));

  absl::StatusOr<std::string> rendered = registry::testing::RunTool(
      {"env", docker_config, TRAINPKG_PATH, "k8s", "render", "--worker-pool-spec", pool, workers,
       "--job-id", "demo", "--namespace", "ml", "--k8s-kind", "tfjob"});
  ASSERT_THAT(rendered, IsOk());
  json list = json::parse(*rendered);
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(list["items"][0]["kind"], "TFJob");
  EXPECT_EQ(list["items"][0]["metadata"]["namespace"], "ml");
  EXPECT_EQ(list["items"][0]["spec"]["tfReplicaSpecs"]["Worker"]["replicas"], 2);

  absl::StatusOr<std::string> local = registry::testing::RunTool(
      {"env", TRAINPKG_PATH, "k8s", "render",
       "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=local:/bin/true"});
  EXPECT_FALSE(local.ok());
  EXPECT_THAT(local.status().message(), HasSubstr("a cluster cannot run"));

  absl::StatusOr<std::string> misplaced = registry::testing::RunTool(
      {"env", TRAINPKG_PATH, "run", "--namespace", "ml",
       "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=local:/bin/true"});
  EXPECT_FALSE(misplaced.ok());
  EXPECT_THAT(misplaced.status().message(),
              HasSubstr("--namespace: only applies with --backend k8s"));
}

}  // namespace
}  // namespace trainpkg::sdk::k8s
