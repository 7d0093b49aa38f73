#include "trainer_runtime/cluster_info.h"

#include "base/environment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/cluster_env.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const TfCluster kVertexCluster = {
    {"chief", {"c0:2222"}},
    {"worker", {"w0:2222", "w1:2222"}},
    {"ps", {"p0:2222"}},
};

ClusterInfo MustResolve(const TfCluster& cluster, std::string_view type, int64_t index) {
  absl::StatusOr<ClusterInfo> info = ClusterInfoFromTfCluster(cluster, type, index);
  EXPECT_THAT(info, IsOk());
  return info.value_or(ClusterInfo{});
}

TEST(ClusterInfoFromTfClusterTest, ChiefIsRankZeroAndWorkersFollow) {
  ClusterInfo chief = MustResolve(kVertexCluster, "chief", 0);
  EXPECT_EQ(chief.rank, 0);
  EXPECT_EQ(chief.world_size, 3);
  EXPECT_TRUE(chief.is_chief);
  EXPECT_EQ(chief.coordinator_address, "c0:2222");
  EXPECT_THAT(chief.worker_addresses, ElementsAre("c0:2222", "w0:2222", "w1:2222"));
  EXPECT_THAT(chief.ps_addresses, ElementsAre("p0:2222"));

  ClusterInfo worker1 = MustResolve(kVertexCluster, "worker", 1);
  EXPECT_EQ(worker1.task_type, "worker");
  EXPECT_EQ(worker1.task_index, 1);
  EXPECT_EQ(worker1.rank, 2);
  EXPECT_EQ(worker1.world_size, 3);
  EXPECT_FALSE(worker1.is_chief);
  EXPECT_EQ(worker1.coordinator_address, "c0:2222");
  EXPECT_EQ(worker1.local_rank, 0);
}

TEST(ClusterInfoFromTfClusterTest, PsAndEvaluatorAreOutsideTheCollective) {
  for (std::string_view type : {"ps", "evaluator"}) {
    ClusterInfo info = MustResolve(kVertexCluster, type, 0);
    EXPECT_EQ(info.rank, -1) << type;
    EXPECT_FALSE(info.in_collective()) << type;
    EXPECT_EQ(info.world_size, 3) << type;
    EXPECT_FALSE(info.is_chief) << type;
    EXPECT_EQ(info.coordinator_address, "c0:2222") << type;
  }
}

TEST(ClusterInfoFromTfClusterTest, WithoutChiefWorkerZeroIsChief) {
  TfCluster cluster = {{"worker", {"w0:1", "w1:1", "w2:1"}}};
  ClusterInfo worker0 = MustResolve(cluster, "worker", 0);
  EXPECT_EQ(worker0.rank, 0);
  EXPECT_TRUE(worker0.is_chief);
  EXPECT_EQ(worker0.world_size, 3);
  ClusterInfo worker2 = MustResolve(cluster, "worker", 2);
  EXPECT_EQ(worker2.rank, 2);
  EXPECT_FALSE(worker2.is_chief);
  EXPECT_EQ(worker2.coordinator_address, "w0:1");
}

TEST(ClusterInfoFromTfClusterTest, LocalRankCountsLowerRanksOnTheSameHost) {
  TfCluster cluster = {{"chief", {"localhost:2000"}},
                       {"worker", {"localhost:2001", "other:2000", "localhost:2002"}},
                       {"ps", {"localhost:2003"}}};
  EXPECT_EQ(MustResolve(cluster, "chief", 0).local_rank, 0);
  EXPECT_EQ(MustResolve(cluster, "worker", 0).local_rank, 1);
  EXPECT_EQ(MustResolve(cluster, "worker", 1).local_rank, 0);
  EXPECT_EQ(MustResolve(cluster, "worker", 2).local_rank, 2);
  EXPECT_EQ(MustResolve(cluster, "ps", 0).local_rank, 0);
  TfCluster ipv6 = {{"worker", {"[::1]:1", "[::1]:2"}}};
  EXPECT_EQ(MustResolve(ipv6, "worker", 1).local_rank, 1);
}

std::string Error(const TfCluster& cluster, std::string_view type, int64_t index) {
  absl::StatusOr<ClusterInfo> info = ClusterInfoFromTfCluster(cluster, type, index);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(info.status().message());
}

TEST(ClusterInfoFromTfClusterTest, RejectsTasksThatDoNotFit) {
  EXPECT_EQ(Error(kVertexCluster, "master", 0),
            "task.type: unknown task type \"master\" (expected chief, worker, ps or evaluator)");
  EXPECT_EQ(Error(kVertexCluster, "worker", 2),
            "task.index: 2 is out of range for cluster.worker (2 addresses)");
  EXPECT_EQ(Error({{"worker", {"w:1"}}}, "chief", 0),
            "task.type: \"chief\" is not a key of cluster");
  EXPECT_EQ(Error({{"chief", {"a:1", "b:1"}}}, "chief", 0),
            "cluster.chief: 2 addresses; a cluster has at most one chief");
  EXPECT_EQ(Error({{"ps", {"p:1"}}}, "ps", 0), "cluster: has neither a chief nor a worker");
  EXPECT_EQ(Error({{"worker", {"w:1"}}, {"evaluator", {"e:1"}}}, "evaluator", 1),
            "task.index: 1 is out of range for cluster.evaluator (1 addresses)");
}

TEST(ResolveClusterInfoTest, NothingSetIsASingleChief) {
  base::MapEnvironment env;
  env.Set("CLOUD_ML_TRIAL_ID", "4");
  absl::StatusOr<ClusterInfo> info = ResolveClusterInfo(env);
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->source, "single");
  EXPECT_EQ(info->task_type, "chief");
  EXPECT_EQ(info->rank, 0);
  EXPECT_EQ(info->world_size, 1);
  EXPECT_TRUE(info->is_chief);
  EXPECT_EQ(info->coordinator_address, "");
  EXPECT_TRUE(info->worker_addresses.empty());
  EXPECT_EQ(info->trial_id, "4");
}

constexpr char kTfConfig[] =
    R"({"cluster":{"chief":["c:1"],"worker":["w:1"]},"task":{"type":"worker","index":0}})";
constexpr char kClusterSpec[] = R"({"cluster":{"workerpool0":["c:1"],"workerpool1":["w:1"]},)"
                                R"("task":{"type":"workerpool0","index":0}})";

base::MapEnvironment AllLaunchers() {
  return base::MapEnvironment({
      {"TF_CONFIG", kTfConfig},
      {"CLUSTER_SPEC", kClusterSpec},
      {"RANK", "1"},
      {"WORLD_SIZE", "2"},
      {"MASTER_ADDR", "m"},
      {"MASTER_PORT", "29500"},
      {"SLURM_PROCID", "0"},
      {"SLURM_STEP_NUM_TASKS", "1"},
      {"SLURM_STEP_NODELIST", "n1"},
      {"SLURM_STEP_TASKS_PER_NODE", "1"},
  });
}

std::string SourceOf(const base::Environment& env) {
  absl::StatusOr<ClusterInfo> info = ResolveClusterInfo(env);
  EXPECT_THAT(info, IsOk());
  return info.ok() ? info->source : "";
}

TEST(ResolveClusterInfoTest, PrecedenceIsTfConfigClusterSpecTorchrunSlurm) {
  base::MapEnvironment env = AllLaunchers();
  EXPECT_EQ(SourceOf(env), "TF_CONFIG");
  env.Set("TF_CONFIG", "");  // empty counts as unset
  EXPECT_EQ(SourceOf(env), "CLUSTER_SPEC");
  env.Set("CLUSTER_SPEC", "");
  EXPECT_EQ(SourceOf(env), "torchrun");
  env.Set("RANK", "");
  EXPECT_EQ(SourceOf(env), "slurm");
  env.Set("SLURM_PROCID", "");
  EXPECT_EQ(SourceOf(env), "single");
}

TEST(ResolveClusterInfoTest, MalformedFirstLauncherIsAnErrorNotAFallThrough) {
  base::MapEnvironment env = AllLaunchers();
  env.Set("TF_CONFIG", R"({"cluster":{"worker":["w:1"]},"task":{"type":"worker","index":5}})");
  absl::StatusOr<ClusterInfo> info = ResolveClusterInfo(env);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(info.status().message()),
              HasSubstr("TF_CONFIG: task.index: 5 is out of range"));
}

TEST(ResolveClusterInfoTest, JobSecretComesFromTheEnvironmentWhateverTheLauncher) {
  const std::string secret(64, 'f');
  base::MapEnvironment env = AllLaunchers();
  env.Set("TRAINPKG_JOB_SECRET", secret);
  absl::StatusOr<ClusterInfo> info = ResolveClusterInfo(env);
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->job_secret, secret);
  base::MapEnvironment single;
  single.Set("TRAINPKG_JOB_SECRET", secret);
  EXPECT_EQ(ResolveClusterInfo(single)->job_secret, secret);
  EXPECT_EQ(ResolveClusterInfo(base::MapEnvironment())->job_secret, "");
}

TEST(ResolveClusterInfoTest, WeakJobSecretIsAnError) {
  base::MapEnvironment env;
  env.Set("TRAINPKG_JOB_SECRET", "password");
  absl::StatusOr<ClusterInfo> info = ResolveClusterInfo(env);
  EXPECT_TRUE(absl::IsInvalidArgument(info.status())) << info.status();
  EXPECT_THAT(std::string(info.status().message()), HasSubstr("TRAINPKG_JOB_SECRET: 8 characters"));
}

// A PyTorch trainer (env://) and a trainer of ours see the same rank and
// world size in every replica MakeClusterEnv describes: the PyTorch
// variables alone and CLUSTER_SPEC alone resolve alike.
TEST(ResolveClusterInfoTest, PyTorchVariablesAgreeWithClusterSpecOnEveryReplica) {
  jobspec::ClusterEnvRequest request;
  for (int64_t replicas : {1, 3}) {
    jobspec::WorkerPoolSpec pool;
    pool.replica_count = replicas;
    request.spec.worker_pool_specs.push_back(pool);
  }
  request.job_id = "7";
  request.addresses = {{"10.0.0.1:2222"}, {"10.0.0.2:2222", "10.0.0.3:2222", "10.0.0.4:2222"}};
  request.pytorch_master_port = 29500;
  for (int64_t index = -1; index < 3; ++index) {
    request.replica = index < 0 ? jobspec::ReplicaRef{.pool = 0, .index = 0}
                                : jobspec::ReplicaRef{.pool = 1, .index = index};
    absl::StatusOr<std::map<std::string, std::string>> env = jobspec::MakeClusterEnv(request);
    ASSERT_THAT(env, IsOk());
    base::MapEnvironment torch, vertex;
    for (const char* name : {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK"}) {
      torch.Set(name, env->at(name));
    }
    vertex.Set("CLUSTER_SPEC", env->at("CLUSTER_SPEC"));
    absl::StatusOr<ClusterInfo> from_torch = ResolveClusterInfo(torch);
    absl::StatusOr<ClusterInfo> from_vertex = ResolveClusterInfo(vertex);
    ASSERT_THAT(from_torch, IsOk());
    ASSERT_THAT(from_vertex, IsOk());
    SCOPED_TRACE(request.replica.Name());
    EXPECT_EQ(from_torch->source, "torchrun");
    EXPECT_EQ(from_torch->rank, from_vertex->rank);
    EXPECT_EQ(from_torch->world_size, from_vertex->world_size);
    EXPECT_EQ(from_torch->is_chief, from_vertex->is_chief);
    EXPECT_EQ(from_torch->coordinator_address, "10.0.0.1:29500");
  }
}

}  // namespace
}  // namespace trainpkg::runtime
