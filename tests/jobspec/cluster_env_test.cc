#include "jobspec/cluster_env.h"

#include <string>

#include "base/environment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/job_secret.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::jobspec {
namespace {

using ::testing::HasSubstr;

WorkerPoolSpec Pool(int64_t replicas) {
  WorkerPoolSpec pool;
  pool.machine_spec.emplace().machine_type = "n1-standard-4";
  pool.container_spec.emplace().image_uri = "us-docker.pkg.dev/p/r/trainer:1";
  pool.replica_count = replicas;
  return pool;
}

// 1 chief, 2 workers, 1 parameter server, 1 evaluator.
ClusterEnvRequest FullJob(ReplicaRef replica) {
  ClusterEnvRequest request;
  request.spec.worker_pool_specs = {Pool(1), Pool(2), Pool(1), Pool(1)};
  request.spec.base_output_directory = "gs://bucket/run7/";
  request.job_id = "1234";
  request.project_id = "987654321";
  request.addresses = {
      {"chief-0:2222"}, {"worker-0:2222", "worker-1:2222"}, {"ps-0:2222"}, {"evaluator-0:2222"}};
  request.replica = replica;
  return request;
}

// The `job` value as MakeClusterEnv embeds it.
std::string JobJson(const ClusterEnvRequest& request) {
  return CustomJobSpecToJson(request.spec).dump();
}

std::map<std::string, std::string> EnvFor(const ClusterEnvRequest& request) {
  auto env = MakeClusterEnv(request);
  EXPECT_THAT(env, IsOk());
  return env.ok() ? *env : std::map<std::string, std::string>{};
}

constexpr char kFullClusterSpecCluster[] =
    R"({"cluster":{"workerpool0":["chief-0:2222"],"workerpool1":["worker-0:2222","worker-1:2222"],)"
    R"("workerpool2":["ps-0:2222"],"workerpool3":["evaluator-0:2222"]},"environment":"cloud",)";
constexpr char kFullTfConfigCluster[] =
    R"({"cluster":{"chief":["chief-0:2222"],"worker":["worker-0:2222","worker-1:2222"],)"
    R"("ps":["ps-0:2222"]},)";

TEST(MakeClusterEnvTest, ChiefOfFullJob) {
  ClusterEnvRequest request = FullJob({.pool = 0, .index = 0});
  auto env = EnvFor(request);
  EXPECT_EQ(env["CLUSTER_SPEC"], std::string(kFullClusterSpecCluster) +
                                     R"("task":{"type":"workerpool0","index":0},"job":)" +
                                     JobJson(request) + "}");
  EXPECT_EQ(env["TF_CONFIG"], std::string(kFullTfConfigCluster) +
                                  R"("task":{"type":"chief","index":0},"job":)" + JobJson(request) +
                                  R"(,"environment":"cloud"})");
}

TEST(MakeClusterEnvTest, SecondWorkerOfFullJob) {
  ClusterEnvRequest request = FullJob({.pool = 1, .index = 1});
  auto env = EnvFor(request);
  EXPECT_EQ(env["CLUSTER_SPEC"], std::string(kFullClusterSpecCluster) +
                                     R"("task":{"type":"workerpool1","index":1},"job":)" +
                                     JobJson(request) + "}");
  EXPECT_EQ(env["TF_CONFIG"], std::string(kFullTfConfigCluster) +
                                  R"("task":{"type":"worker","index":1},"job":)" +
                                  JobJson(request) + R"(,"environment":"cloud"})");
}

TEST(MakeClusterEnvTest, ParameterServerOfFullJob) {
  ClusterEnvRequest request = FullJob({.pool = 2, .index = 0});
  auto env = EnvFor(request);
  EXPECT_EQ(env["TF_CONFIG"], std::string(kFullTfConfigCluster) +
                                  R"("task":{"type":"ps","index":0},"job":)" + JobJson(request) +
                                  R"(,"environment":"cloud"})");
}

TEST(MakeClusterEnvTest, EvaluatorIsATaskButNeverInTfConfigCluster) {
  ClusterEnvRequest request = FullJob({.pool = 3, .index = 0});
  auto env = EnvFor(request);
  EXPECT_EQ(env["CLUSTER_SPEC"], std::string(kFullClusterSpecCluster) +
                                     R"("task":{"type":"workerpool3","index":0},"job":)" +
                                     JobJson(request) + "}");
  EXPECT_EQ(env["TF_CONFIG"], std::string(kFullTfConfigCluster) +
                                  R"("task":{"type":"evaluator","index":0},"job":)" +
                                  JobJson(request) + R"(,"environment":"cloud"})");
}

TEST(MakeClusterEnvTest, OutputDirsAndIds) {
  auto env = EnvFor(FullJob({.pool = 1, .index = 0}));
  EXPECT_EQ(env["AIP_MODEL_DIR"], "gs://bucket/run7/model/");
  EXPECT_EQ(env["AIP_CHECKPOINT_DIR"], "gs://bucket/run7/checkpoints/");
  EXPECT_EQ(env["AIP_TENSORBOARD_LOG_DIR"], "gs://bucket/run7/logs/");
  EXPECT_EQ(env["CLOUD_ML_JOB_ID"], "1234");
  EXPECT_EQ(env["CLOUD_ML_PROJECT_ID"], "987654321");
  EXPECT_FALSE(env.contains("CLOUD_ML_TRIAL_ID"));
  EXPECT_EQ(env.size(), 7u);
}

TEST(MakeClusterEnvTest, SingleReplicaHasNoTfConfig) {
  ClusterEnvRequest request;
  request.spec.worker_pool_specs = {Pool(1)};
  request.job_id = "42";
  request.addresses = {{"localhost:2222"}};
  auto env = EnvFor(request);
  EXPECT_EQ(env["CLUSTER_SPEC"],
            R"({"cluster":{"workerpool0":["localhost:2222"]},"environment":"cloud",)"
            R"("task":{"type":"workerpool0","index":0},"job":)" +
                JobJson(request) + "}");
  EXPECT_FALSE(env.contains("TF_CONFIG"));
  EXPECT_FALSE(env.contains("AIP_MODEL_DIR"));
  EXPECT_FALSE(env.contains("CLOUD_ML_PROJECT_ID"));
  EXPECT_EQ(env["CLOUD_ML_JOB_ID"], "42");
}

TEST(MakeClusterEnvTest, TrialGetsItsOwnDirsAndTaskTrial) {
  ClusterEnvRequest request = FullJob({.pool = 1, .index = 0});
  request.spec.base_output_directory = "/tmp/hp";  // no trailing slash
  request.trial_id = "3";
  auto env = EnvFor(request);
  EXPECT_EQ(env["AIP_MODEL_DIR"], "/tmp/hp/3/model/");
  EXPECT_EQ(env["AIP_CHECKPOINT_DIR"], "/tmp/hp/3/checkpoints/");
  EXPECT_EQ(env["AIP_TENSORBOARD_LOG_DIR"], "/tmp/hp/3/logs/");
  EXPECT_EQ(env["CLOUD_ML_TRIAL_ID"], "3");
  EXPECT_THAT(env["CLUSTER_SPEC"],
              HasSubstr(R"("task":{"type":"workerpool1","index":0,"trial":"3"},"job":)"));
  EXPECT_THAT(env["TF_CONFIG"],
              HasSubstr(R"("task":{"type":"worker","index":0,"trial":"3"},"job":)"));
}

TEST(MakeClusterEnvTest, PlaceholderAndEmptyPoolsAreLeftOut) {
  ClusterEnvRequest request;
  request.spec.worker_pool_specs = {Pool(1), WorkerPoolSpec{}, Pool(0), Pool(1)};
  request.addresses = {{"chief-0:2222"}, {}, {}, {"evaluator-0:2222"}};
  request.replica = {.pool = 0, .index = 0};
  auto env = EnvFor(request);
  EXPECT_THAT(env["CLUSTER_SPEC"], HasSubstr(R"({"cluster":{"workerpool0":["chief-0:2222"],)"
                                             R"("workerpool3":["evaluator-0:2222"]},)"));
  // Two replicas in total, so TF_CONFIG is set, but the evaluator stays out of it.
  EXPECT_THAT(env["TF_CONFIG"], HasSubstr(R"({"cluster":{"chief":["chief-0:2222"]},"task":)"));
}

TEST(MakeClusterEnvTest, RejectsRequestsThatDoNotMatchTheSpec) {
  ClusterEnvRequest request = FullJob({.pool = 1, .index = 2});
  EXPECT_THAT(std::string(MakeClusterEnv(request).status().message()),
              HasSubstr("replica workerpool1-2 is not part of the job"));

  request = FullJob({.pool = 4, .index = 0});
  EXPECT_EQ(MakeClusterEnv(request).status().code(), absl::StatusCode::kInvalidArgument);

  request = FullJob({.pool = 0, .index = 0});
  request.addresses[1].pop_back();
  EXPECT_THAT(std::string(MakeClusterEnv(request).status().message()),
              HasSubstr("addresses[1]: 1 addresses for a pool of 2"));

  request = FullJob({.pool = 0, .index = 0});
  request.addresses.pop_back();
  EXPECT_THAT(std::string(MakeClusterEnv(request).status().message()),
              HasSubstr("addresses: 3 pools given, the spec has 4"));

  request = FullJob({.pool = 0, .index = 0});
  request.spec.worker_pool_specs.push_back(Pool(1));
  request.addresses.push_back({"x:1"});
  EXPECT_THAT(std::string(MakeClusterEnv(request).status().message()), HasSubstr("at most 4"));
}

TEST(OutputDirsForTest, AppendsSlashOnce) {
  OutputDirs with = OutputDirsFor("gs://b/x/", "");
  OutputDirs without = OutputDirsFor("gs://b/x", "");
  EXPECT_EQ(with.model_dir, "gs://b/x/model/");
  EXPECT_EQ(without.model_dir, "gs://b/x/model/");
  EXPECT_EQ(without.checkpoint_dir, "gs://b/x/checkpoints/");
  EXPECT_EQ(without.tensorboard_log_dir, "gs://b/x/logs/");
  EXPECT_EQ(OutputDirsFor("file:///out", "12").model_dir, "file:///out/12/model/");
  EXPECT_EQ(OutputDirsFor("", "12").model_dir, "");
}

TEST(ParseClusterEnvTest, GeneratedVariablesRoundTrip) {
  for (ReplicaRef replica :
       {ReplicaRef{0, 0}, ReplicaRef{1, 1}, ReplicaRef{2, 0}, ReplicaRef{3, 0}}) {
    ClusterEnvRequest request = FullJob(replica);
    request.trial_id = "5";
    auto env = EnvFor(request);

    auto spec = ParseClusterSpec(env["CLUSTER_SPEC"]);
    ASSERT_THAT(spec, IsOk());
    EXPECT_EQ(spec->task_type, "workerpool" + std::to_string(replica.pool));
    EXPECT_EQ(spec->task_index, replica.index);
    EXPECT_EQ(spec->trial, "5");
    EXPECT_EQ(spec->environment, "cloud");
    EXPECT_EQ(spec->cluster.at("workerpool1"), request.addresses[1]);
    EXPECT_EQ(spec->job, CustomJobSpecToJson(request.spec));
    EXPECT_EQ(FormatClusterSpec(*spec), env["CLUSTER_SPEC"]);

    auto tf = ParseTfConfig(env["TF_CONFIG"]);
    ASSERT_THAT(tf, IsOk());
    EXPECT_EQ(tf->task_type, TfTaskTypeForPool(replica.pool));
    EXPECT_EQ(tf->cluster.size(), 3u);
    EXPECT_FALSE(tf->cluster.contains("evaluator"));
    EXPECT_EQ(FormatTfConfig(*tf), env["TF_CONFIG"]);
  }
}

TEST(ParseClusterEnvTest, AcceptsJobAsStringAndMissingOptionalKeys) {
  auto spec = ParseClusterSpec(
      R"({"cluster":{"workerpool0":["a:1"]},"task":{"type":"workerpool0","index":0},)"
      R"("job":"{\"workerPoolSpecs\":[{\"replicaCount\":\"1\"}]}"})");
  ASSERT_THAT(spec, IsOk());
  EXPECT_EQ(spec->job["workerPoolSpecs"][0]["replicaCount"], "1");
  EXPECT_EQ(spec->environment, "");
  EXPECT_EQ(spec->trial, "");

  auto tf =
      ParseTfConfig(R"({"cluster":{"worker":["a:1","b:1"]},"task":{"type":"worker","index":1,)"
                    R"("trial":7,"cloud":"ignored"},"rpc_layer":"grpc"})");
  ASSERT_THAT(tf, IsOk());
  EXPECT_EQ(tf->trial, "7");
  EXPECT_EQ(tf->rpc_layer, "grpc");
  EXPECT_TRUE(tf->job.is_null());
  EXPECT_EQ(FormatTfConfig(*tf),
            R"({"cluster":{"worker":["a:1","b:1"]},"task":{"type":"worker","index":1,"trial":"7"},)"
            R"("rpc_layer":"grpc"})");
}

std::string TfConfigError(std::string_view text) {
  auto parsed = ParseTfConfig(text);
  EXPECT_FALSE(parsed.ok()) << text;
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << text;
  return std::string(parsed.status().message());
}

TEST(ParseClusterEnvTest, MalformedTfConfigNamesThePath) {
  constexpr char kCluster[] = R"("cluster":{"worker":["a:1"]})";
  auto with_task = [&](std::string_view task) {
    return std::string("{") + kCluster + R"(,"task":)" + std::string(task) + "}";
  };
  EXPECT_THAT(TfConfigError("{"), HasSubstr("TF_CONFIG: invalid JSON: parse error at line 1"));
  EXPECT_EQ(TfConfigError("[]"), "TF_CONFIG: expected a JSON object");
  EXPECT_EQ(TfConfigError(R"({"task":{"type":"worker","index":0}})"),
            "TF_CONFIG: cluster: missing");
  EXPECT_EQ(TfConfigError(R"({"cluster":[],"task":{}})"), "TF_CONFIG: cluster: expected an object");
  EXPECT_EQ(TfConfigError(R"({"cluster":{"worker":"a:1"}})"),
            R"(TF_CONFIG: cluster.worker: expected an array of "host:port")");
  EXPECT_EQ(TfConfigError(R"({"cluster":{"worker":["a:1",2]}})"),
            "TF_CONFIG: cluster.worker[1]: expected a string");
  EXPECT_EQ(TfConfigError(std::string("{") + kCluster + "}"), "TF_CONFIG: task: missing");
  EXPECT_EQ(TfConfigError(with_task(R"({"index":0})")), "TF_CONFIG: task.type: missing");
  EXPECT_EQ(TfConfigError(with_task(R"({"type":1,"index":0})")),
            "TF_CONFIG: task.type: expected a string");
  EXPECT_EQ(TfConfigError(with_task(R"({"type":"worker"})")), "TF_CONFIG: task.index: missing");
  for (std::string_view index : {"-1", "1.5", R"("0")", "null", "18446744073709551615"}) {
    EXPECT_EQ(TfConfigError(with_task(R"({"type":"worker","index":)" + std::string(index) + "}")),
              "TF_CONFIG: task.index: expected a non-negative integer")
        << index;
  }
  EXPECT_EQ(TfConfigError(with_task(R"({"type":"worker","index":0,"trial":[]})")),
            "TF_CONFIG: task.trial: expected a string");
  EXPECT_EQ(TfConfigError(with_task(R"({"type":"worker","index":0},"job":3)")),
            "TF_CONFIG: job: expected an object or a JSON string");
  EXPECT_THAT(TfConfigError(with_task(R"({"type":"worker","index":0},"job":"{")")),
              HasSubstr("TF_CONFIG: job: invalid JSON: "));
  EXPECT_EQ(TfConfigError(with_task(R"({"type":"worker","index":0},"job":"[1]")")),
            "TF_CONFIG: job: expected a JSON object");
  EXPECT_EQ(TfConfigError(with_task(R"({"type":"worker","index":0},"environment":1)")),
            "TF_CONFIG: environment: expected a string");
  EXPECT_EQ(TfConfigError(with_task(R"({"type":"worker","index":0},"rpc_layer":true)")),
            "TF_CONFIG: rpc_layer: expected a string");
}

TEST(ParseClusterEnvTest, MalformedClusterSpecNamesTheVariable) {
  auto parsed = ParseClusterSpec(R"({"cluster":{},"task":{"type":"workerpool0","index":-2}})");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "CLUSTER_SPEC: task.index: expected a non-negative integer");
  EXPECT_THAT(std::string(ParseClusterSpec("").status().message()),
              HasSubstr("CLUSTER_SPEC: invalid JSON"));
}

TEST(ReadVertexJobEnvTest, ReadsIdsAndDirs) {
  base::MapEnvironment env({{"CLOUD_ML_JOB_ID", "77"},
                            {"CLOUD_ML_TRIAL_ID", "2"},
                            {"AIP_MODEL_DIR", "/out/2/model/"},
                            {"AIP_TENSORBOARD_LOG_DIR", "/out/2/logs/"}});
  VertexJobEnv job = ReadVertexJobEnv(env);
  EXPECT_EQ(job.job_id, "77");
  EXPECT_EQ(job.trial_id, "2");
  EXPECT_EQ(job.project_id, "");
  EXPECT_EQ(job.dirs.model_dir, "/out/2/model/");
  EXPECT_EQ(job.dirs.checkpoint_dir, "");
  EXPECT_EQ(job.dirs.tensorboard_log_dir, "/out/2/logs/");
}

TEST(ClusterEnvNamesTest, PoolsAndReplicas) {
  EXPECT_EQ(TfTaskTypeForPool(0), "chief");
  EXPECT_EQ(TfTaskTypeForPool(1), "worker");
  EXPECT_EQ(TfTaskTypeForPool(2), "ps");
  EXPECT_EQ(TfTaskTypeForPool(3), "evaluator");
  EXPECT_EQ(TfTaskTypeForPool(4), "");
  EXPECT_EQ((ReplicaRef{.pool = 1, .index = 3}).Name(), "workerpool1-3");
}

TEST(JobSecretTest, MakeClusterEnvGivesEveryReplicaTheJobsSecret) {
  const std::string secret(64, 'c');
  for (ReplicaRef replica : {ReplicaRef{.pool = 0, .index = 0}, ReplicaRef{.pool = 1, .index = 1},
                             ReplicaRef{.pool = 2, .index = 0}}) {
    ClusterEnvRequest request = FullJob(replica);
    request.job_secret = secret;
    EXPECT_EQ(EnvFor(request)[kJobSecretEnv], secret) << replica.Name();
  }
  EXPECT_FALSE(EnvFor(FullJob({.pool = 0, .index = 0})).contains(kJobSecretEnv));
}

TEST(JobSecretTest, NewSecretsAreLongRandomAndValid) {
  absl::StatusOr<std::string> a = NewJobSecret();
  absl::StatusOr<std::string> b = NewJobSecret();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 64u);
  EXPECT_EQ(a->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(*a, *b);
  EXPECT_THAT(ValidateJobSecret(*a), IsOk());
}

TEST(JobSecretTest, ShortOrUnprintableSecretsAreRefusedWithoutEchoingThem) {
  absl::Status short_one = ValidateJobSecret("hunter2");
  EXPECT_TRUE(absl::IsInvalidArgument(short_one));
  EXPECT_THAT(std::string(short_one.message()),
              ::testing::HasSubstr("TRAINPKG_JOB_SECRET: 7 characters; a job secret has 32..1024"));
  EXPECT_THAT(std::string(short_one.message()), ::testing::Not(::testing::HasSubstr("hunter2")));
  EXPECT_FALSE(ValidateJobSecret(std::string(40, 'x') + " ").ok());
  EXPECT_FALSE(ValidateJobSecret(std::string(40, 'x') + "\n").ok());
  EXPECT_FALSE(ValidateJobSecret(std::string(2000, 'x')).ok());
}

TEST(JobSecretTest, AddJobSecretToPoolsKeepsASecretThePoolSets) {
  CustomJobSpec spec;
  spec.worker_pool_specs = {Pool(1), Pool(2), WorkerPoolSpec{}};
  spec.worker_pool_specs[1].container_spec->env.push_back({kJobSecretEnv, "mine"});
  AddJobSecretToPools(spec, "new");
  EXPECT_EQ(spec.worker_pool_specs[0].container_spec->env.back(), (EnvVar{kJobSecretEnv, "new"}));
  EXPECT_EQ(spec.worker_pool_specs[1].container_spec->env.size(), 1u);
  EXPECT_EQ(spec.worker_pool_specs[1].container_spec->env[0].value, "mine");
  EXPECT_FALSE(spec.worker_pool_specs[2].container_spec.has_value());
}

TEST(PyTorchEnvTest, ChiefAndWorkersGetRankWorldSizeAndTheChiefsMasterPort) {
  for (int64_t worker = -1; worker < 2; ++worker) {
    ReplicaRef replica = worker < 0 ? ReplicaRef{.pool = 0, .index = 0}
                                    : ReplicaRef{.pool = 1, .index = worker};
    ClusterEnvRequest request = FullJob(replica);
    request.pytorch_master_port = 23456;
    auto env = EnvFor(request);
    SCOPED_TRACE(replica.Name());
    EXPECT_EQ(env["MASTER_ADDR"], "chief-0");
    EXPECT_EQ(env["MASTER_PORT"], "23456");
    EXPECT_EQ(env["WORLD_SIZE"], "3");  // the chief and two workers
    EXPECT_EQ(env["RANK"], std::to_string(worker + 1));
  }
}

TEST(PyTorchEnvTest, ParameterServersAndEvaluatorsAreOutsideTheProcessGroup) {
  for (int pool : {2, 3}) {
    ClusterEnvRequest request = FullJob({.pool = pool, .index = 0});
    request.pytorch_master_port = 23456;
    auto env = EnvFor(request);
    for (const char* name : {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK"}) {
      EXPECT_FALSE(env.contains(name)) << "workerpool" << pool << " has " << name;
    }
    EXPECT_TRUE(env.contains("TF_CONFIG"));
  }
}

TEST(PyTorchEnvTest, ASingleReplicaIsRankZeroOfOne) {
  ClusterEnvRequest request;
  request.spec.worker_pool_specs = {Pool(1)};
  request.job_id = "1";
  request.addresses = {{"127.0.0.1:40001"}};
  request.replica = {.pool = 0, .index = 0};
  request.pytorch_master_port = 40002;
  auto env = EnvFor(request);
  EXPECT_EQ(env["MASTER_ADDR"], "127.0.0.1");
  EXPECT_EQ(env["MASTER_PORT"], "40002");
  EXPECT_EQ(env["WORLD_SIZE"], "1");
  EXPECT_EQ(env["RANK"], "0");
}

TEST(PyTorchEnvTest, AnIpv6ChiefIsGivenWithoutBrackets) {
  ClusterEnvRequest request = FullJob({.pool = 1, .index = 1});
  request.addresses[0] = {"[fd00::7]:2222"};
  request.pytorch_master_port = 23456;
  EXPECT_EQ(EnvFor(request)["MASTER_ADDR"], "fd00::7");
}

TEST(PyTorchEnvTest, NoMasterPortLeavesThemUnset) {
  auto env = EnvFor(FullJob({.pool = 1, .index = 0}));
  for (const char* name : {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK"}) {
    EXPECT_FALSE(env.contains(name)) << name;
  }
}

TEST(PyTorchEnvTest, TheChiefsClusterPortOrANonPortIsRefused) {
  ClusterEnvRequest request = FullJob({.pool = 0, .index = 0});
  request.pytorch_master_port = 2222;
  auto env = MakeClusterEnv(request);
  ASSERT_FALSE(env.ok());
  EXPECT_THAT(env.status().message(), HasSubstr("is the chief's cluster port (chief-0:2222)"));
  request.pytorch_master_port = 70000;
  env = MakeClusterEnv(request);
  ASSERT_FALSE(env.ok());
  EXPECT_THAT(env.status().message(), HasSubstr("70000 is not a TCP port (1..65535)"));
}

}  // namespace
}  // namespace trainpkg::jobspec
