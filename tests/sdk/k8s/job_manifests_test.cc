// Rendering CustomJobs as JobSet / TFJob / PyTorchJob manifests: golden
// files (testdata/, rewritten with TRAINPKG_UPDATE_GOLDEN=1), the env every
// replica gets, and what a cluster cannot run. validate_manifests.cjs checks
// the same golden files against the Kubernetes and CRD schemas.
#include "sdk/k8s/job_manifests.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/cluster_env.h"
#include "sdk/k8s/internal/pod_template.h"
#include "tests/sdk/k8s/k8s_test_jobs.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::k8s {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::filesystem::path Golden(std::string_view name) {
  return std::filesystem::path(K8S_TESTDATA_DIR) / (std::string(name) + ".json");
}

void ExpectGolden(WorkloadKind kind) {
  absl::StatusOr<JobManifests> manifests = RenderJobManifests(testing::GoldenRequest(kind));
  ASSERT_THAT(manifests, IsOk());
  const std::string rendered = manifests->List().dump(2) + "\n";
  const std::filesystem::path path = Golden(WorkloadKindName(kind));
  if (std::getenv("TRAINPKG_UPDATE_GOLDEN") != nullptr) {
    ASSERT_THAT(base::WriteFileAtomic(path, rendered), IsOk());
  }
  absl::StatusOr<std::string> golden = base::ReadFile(path);
  ASSERT_THAT(golden, IsOk());
  EXPECT_EQ(rendered, *golden) << "rendered manifests differ from " << path
                               << "; rerun with TRAINPKG_UPDATE_GOLDEN=1 if intended";
}

TEST(JobManifestsTest, JobSetMatchesGolden) { ExpectGolden(WorkloadKind::kJobSet); }
TEST(JobManifestsTest, TfJobMatchesGolden) { ExpectGolden(WorkloadKind::kTFJob); }
TEST(JobManifestsTest, PyTorchJobMatchesGolden) { ExpectGolden(WorkloadKind::kPyTorchJob); }

// The env of replica `index` as the kubelet would expand it, the Job's
// index across the JobSet being `global_index`.
std::map<std::string, std::string> Expand(const json& env, int64_t index,
                                          int64_t global_index = -1) {
  std::map<std::string, std::string> out;
  for (const json& var : env) {
    if (!var.contains("value")) continue;
    std::string value = var["value"];
    value = absl::StrReplaceAll(value, {{"$(TRAINPKG_REPLICA_INDEX)", std::to_string(index)},
                                        {"$(TRAINPKG_GLOBAL_INDEX)", std::to_string(global_index)}});
    out[var["name"]] = absl::StrReplaceAll(value, {{"$$", "$"}});
  }
  return out;
}

// Every replica of every pool of a JobSet, its env expanded, gets exactly
// MakeClusterEnv's variables (with the pods' DNS names) and containerSpec.env.
void ExpectVertexEnvOnEveryJobSetReplica(const RenderRequest& request) {
  absl::StatusOr<JobManifests> manifests = RenderJobManifests(request);
  ASSERT_THAT(manifests, IsOk());
  const json& jobs = manifests->workload["spec"]["replicatedJobs"];
  ASSERT_EQ(jobs.size(), 4u);
  jobspec::ClusterEnvRequest cluster;
  cluster.spec = request.job.job_spec;
  cluster.job_id = "digits-1";
  cluster.job_secret = request.job_secret;
  cluster.pytorch_master_port = kPyTorchMasterPort;
  for (int p = 0; p < 4; ++p) {
    std::vector<std::string> addresses;
    for (int64_t i = 0; i < request.job.job_spec.worker_pool_specs[p].replica_count; ++i) {
      addresses.push_back(absl::StrCat("digits-1-workerpool", p, "-", i, "-0.digits-1:2222"));
    }
    cluster.addresses.push_back(addresses);
  }
  int64_t global_index = 0;
  for (int p = 0; p < 4; ++p) {
    const json& container = jobs[p]["template"]["spec"]["template"]["spec"]["containers"][0];
    for (int64_t i = 0; i < request.job.job_spec.worker_pool_specs[p].replica_count;
         ++i, ++global_index) {
      cluster.replica = {.pool = p, .index = i};
      absl::StatusOr<std::map<std::string, std::string>> want = jobspec::MakeClusterEnv(cluster);
      ASSERT_THAT(want, IsOk());
      (*want)["DATA"] = "/data/digits.csv";
      (*want)["WHERE"] = "$(HOSTNAME)";  // containerSpec.env: the kubelet expands it, as Vertex
      EXPECT_EQ(Expand(container["env"], i, global_index), *want)
          << "pool " << p << " replica " << i;
    }
  }
}

TEST(JobManifestsTest, EveryJobSetReplicaGetsExactlyTheVertexEnvWithPodDnsAddresses) {
  RenderRequest request = testing::GoldenRequest(WorkloadKind::kJobSet);
  ExpectVertexEnvOnEveryJobSetReplica(request);
  absl::StatusOr<JobManifests> manifests = RenderJobManifests(request);
  ASSERT_THAT(manifests, IsOk());
  const json& jobs = manifests->workload["spec"]["replicatedJobs"];
  // Pools of several replicas read the index from JobSet's label.
  EXPECT_EQ(jobs[1]["template"]["spec"]["template"]["spec"]["containers"][0]["env"][0],
            json::parse(R"({"name":"TRAINPKG_REPLICA_INDEX","valueFrom":{"fieldRef":
                {"fieldPath":"metadata.labels['jobset.sigs.k8s.io/job-index']"}}})"));
  // The workers' RANK (1 + i) counts with the Job's index across the JobSet.
  const json& workers = jobs[1]["template"]["spec"]["template"]["spec"]["containers"][0]["env"];
  EXPECT_EQ(workers[1], json::parse(R"({"name":"TRAINPKG_GLOBAL_INDEX","valueFrom":{"fieldRef":
                {"fieldPath":"metadata.labels['jobset.sigs.k8s.io/job-global-index']"}}})"));
  EXPECT_THAT(workers.dump(), HasSubstr(R"j({"name":"RANK","value":"$(TRAINPKG_GLOBAL_INDEX)"})j"));
}

// Ranks 1..12 and replica indexes past one digit ("11" starts with the
// offset's "1") still template as one count.
TEST(JobManifestsTest, TwelveWorkersCountPastOneDigit) {
  RenderRequest request = testing::GoldenRequest(WorkloadKind::kJobSet);
  request.job.job_spec.worker_pool_specs[1].replica_count = 12;
  ExpectVertexEnvOnEveryJobSetReplica(request);
}

// Without a secret given, each render makes a new one, the same for every
// replica of the job.
TEST(JobManifestsTest, EveryReplicaGetsTheJobsOneFreshSecret) {
  RenderRequest request = testing::GoldenRequest(WorkloadKind::kJobSet);
  request.job_secret.clear();
  std::set<std::string> secrets;
  for (int render = 0; render < 2; ++render) {
    absl::StatusOr<JobManifests> manifests = RenderJobManifests(request);
    ASSERT_THAT(manifests, IsOk());
    std::set<std::string> in_job;
    for (const json& job : manifests->workload["spec"]["replicatedJobs"]) {
      const json& env = job["template"]["spec"]["template"]["spec"]["containers"][0]["env"];
      in_job.insert(Expand(env, 0)["TRAINPKG_JOB_SECRET"]);
    }
    ASSERT_EQ(in_job.size(), 1u);
    EXPECT_EQ(in_job.begin()->size(), 64u);
    secrets.insert(*in_job.begin());
  }
  EXPECT_EQ(secrets.size(), 2u);
}

TEST(JobManifestsTest, TfJobLeavesTfConfigToTheOperatorAndAddressesItsServices) {
  absl::StatusOr<JobManifests> manifests =
      RenderJobManifests(testing::GoldenRequest(WorkloadKind::kTFJob));
  ASSERT_THAT(manifests, IsOk());
  EXPECT_FALSE(manifests->service.has_value());
  const json& worker = manifests->workload["spec"]["tfReplicaSpecs"]["Worker"];
  EXPECT_EQ(worker["replicas"], 3);
  std::map<std::string, std::string> env =
      Expand(worker["template"]["spec"]["containers"][0]["env"], 2);
  EXPECT_FALSE(env.contains("TF_CONFIG"));
  // PyTorch's variables are a JobSet's (a PyTorchJob's operator sets its own).
  EXPECT_FALSE(env.contains("RANK"));
  EXPECT_FALSE(env.contains("MASTER_ADDR"));
  absl::StatusOr<jobspec::ClusterSpecEnv> spec = jobspec::ParseClusterSpec(env["CLUSTER_SPEC"]);
  ASSERT_THAT(spec, IsOk());
  EXPECT_EQ(spec->task_type, "workerpool1");
  EXPECT_EQ(spec->task_index, 2);
  EXPECT_EQ(spec->cluster["workerpool1"],
            (std::vector<std::string>{"digits-1-worker-0:2222", "digits-1-worker-1:2222",
                                      "digits-1-worker-2:2222"}));
  EXPECT_EQ(spec->cluster["workerpool2"], std::vector<std::string>{"digits-1-ps-0:2222"});
}

TEST(JobManifestsTest, MachineSpecBecomesGpuLimitAndNodeSelectors) {
  RenderRequest request = testing::GoldenRequest(WorkloadKind::kJobSet);
  absl::StatusOr<JobManifests> manifests = RenderJobManifests(request);
  ASSERT_THAT(manifests, IsOk());
  const json& pod =
      manifests->workload["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
  EXPECT_EQ(pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "2");
  EXPECT_EQ(pod["nodeSelector"]["cloud.google.com/gke-accelerator"], "nvidia-tesla-t4");
  EXPECT_EQ(pod["nodeSelector"]["node.kubernetes.io/instance-type"], "n1-standard-8");
  EXPECT_EQ(pod["imagePullSecrets"][0]["name"], "digits-1-registry");

  request.node_selectors = false;
  manifests = RenderJobManifests(request);
  ASSERT_THAT(manifests, IsOk());
  const json& bare =
      manifests->workload["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
  EXPECT_FALSE(bare.contains("nodeSelector"));
  EXPECT_EQ(bare["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "2");
  EXPECT_EQ(internal::GkeAcceleratorLabel("NVIDIA_H100_80GB"), "nvidia-h100-80gb");
}

TEST(JobManifestsTest, PullSecretHoldsDockerConfigJsonForTheImagesRegistry) {
  absl::StatusOr<JobManifests> manifests =
      RenderJobManifests(testing::GoldenRequest(WorkloadKind::kJobSet));
  ASSERT_THAT(manifests, IsOk());
  ASSERT_TRUE(manifests->pull_secret.has_value());
  EXPECT_EQ((*manifests->pull_secret)["type"], "kubernetes.io/dockerconfigjson");
  std::string config;
  ASSERT_TRUE(absl::Base64Unescape(
      (*manifests->pull_secret)["data"][".dockerconfigjson"].get<std::string>(), &config));
  EXPECT_EQ(json::parse(config)["auths"]["localhost:5000"]["auth"],
            absl::Base64Escape("tester:s3cret"));

  RenderRequest anonymous = testing::GoldenRequest(WorkloadKind::kJobSet);
  anonymous.pull_credentials.clear();
  manifests = RenderJobManifests(anonymous);
  ASSERT_THAT(manifests, IsOk());
  EXPECT_FALSE(manifests->pull_secret.has_value());
  EXPECT_THAT(manifests->workload.dump(), ::testing::Not(HasSubstr("imagePullSecrets")));
}

// Finding 19 of issue 16: `trainpkg k8s render` leaves the Secret (and the
// passwords in it) out unless asked; the pods still name it.
TEST(JobManifestsTest, PullSecretCanBeLeftOutAndOnlyNamed) {
  RenderRequest request = testing::GoldenRequest(WorkloadKind::kJobSet);
  request.include_pull_secret = false;
  absl::StatusOr<JobManifests> manifests = RenderJobManifests(request);
  ASSERT_THAT(manifests, IsOk());
  EXPECT_FALSE(manifests->pull_secret.has_value());
  EXPECT_EQ(manifests->pull_secret_name, "digits-1-registry");
  const std::string all = manifests->List().dump();
  EXPECT_THAT(all, ::testing::Not(HasSubstr("dockerconfigjson")));
  EXPECT_THAT(all, ::testing::Not(HasSubstr(absl::Base64Escape("tester:s3cret"))));
  EXPECT_THAT(all, ::testing::Not(HasSubstr("s3cret")));
  const json& pod =
      manifests->workload["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
  EXPECT_EQ(pod["imagePullSecrets"][0]["name"], "digits-1-registry");
  EXPECT_EQ(manifests->Objects().size(), 2u);  // Service, JobSet

  request.include_pull_secret = true;  // what the k8s backend sends to the API server
  manifests = RenderJobManifests(request);
  ASSERT_THAT(manifests, IsOk());
  EXPECT_TRUE(manifests->pull_secret.has_value());
  EXPECT_EQ(manifests->pull_secret_name, "digits-1-registry");
}

TEST(JobManifestsTest, CredentialsAreCollectedPerRegistryFromTheKeychain) {
  registry::StaticKeychain keychain({.username = "u", .password = "p"});
  jobspec::CustomJob job = testing::FourPoolJob();
  job.job_spec.worker_pool_specs[1].container_spec->image_uri = "gcr.io/proj/trainer:v2";
  absl::StatusOr<RegistryCredentials> credentials =
      CollectRegistryCredentials(job.job_spec, keychain);
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->size(), 2u);
  EXPECT_TRUE(credentials->contains("gcr.io"));

  registry::StaticKeychain token_only({.identity_token = "refresh"});
  credentials = CollectRegistryCredentials(job.job_spec, token_only);
  ASSERT_THAT(credentials, IsOk());
  absl::StatusOr<std::optional<json>> secret = MakeImagePullSecret("s", "ns", *credentials);
  EXPECT_EQ(secret.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(JobManifestsTest, RefusesWhatAClusterCannotRun) {
  auto error = [](RenderRequest request) { return RenderJobManifests(request).status(); };
  RenderRequest local = testing::GoldenRequest(WorkloadKind::kJobSet);
  local.job.job_spec.worker_pool_specs[1].container_spec->image_uri = "local:/bin/true";
  EXPECT_THAT(error(local).message(), HasSubstr("workerPoolSpecs[1].containerSpec.imageUri"));
  RenderRequest layout = testing::GoldenRequest(WorkloadKind::kJobSet);
  layout.job.job_spec.worker_pool_specs[1].container_spec->image_uri = "oci:/tmp/layout:1";
  EXPECT_THAT(error(layout).message(),
              AllOf(HasSubstr("workerPoolSpecs[1].containerSpec.imageUri"),
                    HasSubstr("an oci-layout on this host, which a cluster cannot pull")));

  RenderRequest bad_name = testing::GoldenRequest(WorkloadKind::kJobSet);
  bad_name.name = "Digits_1";
  EXPECT_THAT(error(bad_name).message(), HasSubstr("DNS-1035"));

  RenderRequest long_name = testing::GoldenRequest(WorkloadKind::kJobSet);
  long_name.name = std::string(50, 'a');
  EXPECT_THAT(error(long_name).message(), HasSubstr("too long"));

  RenderRequest pytorch_ps = testing::GoldenRequest(WorkloadKind::kPyTorchJob);
  pytorch_ps.job = testing::FourPoolJob(true);
  EXPECT_THAT(error(pytorch_ps).message(), HasSubstr("workerPoolSpecs[2]"));

  RenderRequest tpu = testing::GoldenRequest(WorkloadKind::kJobSet);
  tpu.job.job_spec.worker_pool_specs[0].machine_spec->accelerator_type = "TPU_V3";
  EXPECT_THAT(error(tpu).message(), HasSubstr("machineSpec.acceleratorType"));

  RenderRequest python = testing::GoldenRequest(WorkloadKind::kJobSet);
  python.job.job_spec.worker_pool_specs[0].container_spec.reset();
  python.job.job_spec.worker_pool_specs[0].python_package_spec.emplace();
  python.job.job_spec.worker_pool_specs[0].python_package_spec->python_module = "m";
  EXPECT_EQ(error(python).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace trainpkg::sdk::k8s
