// The env jobspec::MakeClusterEnv gives each replica resolves to the roles
// Vertex documents, through TF_CONFIG and through CLUSTER_SPEC alike.
#include "gtest/gtest.h"
#include "jobspec/cluster_env.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/cluster_spec_resolver.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::runtime {
namespace {

jobspec::ClusterEnvRequest Job(std::vector<int64_t> replicas, jobspec::ReplicaRef replica) {
  jobspec::ClusterEnvRequest request;
  for (size_t pool = 0; pool < replicas.size(); ++pool) {
    jobspec::WorkerPoolSpec spec;
    spec.replica_count = replicas[pool];
    spec.container_spec.emplace().image_uri = "local:trainer";
    request.spec.worker_pool_specs.push_back(spec);
    request.addresses.emplace_back();
    for (int64_t i = 0; i < replicas[pool]; ++i) {
      request.addresses.back().push_back("workerpool" + std::to_string(pool) + "-" +
                                         std::to_string(i) + ":2222");
    }
  }
  request.job_id = "1";
  request.trial_id = "2";
  request.replica = replica;
  return request;
}

struct Expected {
  jobspec::ReplicaRef replica;
  std::string task_type;
  int64_t rank;
  bool is_chief;
};

TEST(VertexEnvTest, ChiefWorkersPsAndEvaluator) {
  const Expected kCases[] = {
      {{0, 0}, "chief", 0, true}, {{1, 0}, "worker", 1, false},     {{1, 1}, "worker", 2, false},
      {{2, 0}, "ps", -1, false},  {{3, 0}, "evaluator", -1, false},
  };
  for (const Expected& expected : kCases) {
    SCOPED_TRACE(expected.replica.Name());
    auto env = jobspec::MakeClusterEnv(Job({1, 2, 1, 1}, expected.replica));
    ASSERT_THAT(env, IsOk());
    base::MapEnvironment process(*env);

    absl::StatusOr<ClusterInfo> info = ResolveClusterInfo(process);
    ASSERT_THAT(info, IsOk());
    EXPECT_EQ(info->source, "TF_CONFIG");
    EXPECT_EQ(info->task_type, expected.task_type);
    EXPECT_EQ(info->task_index, expected.replica.index);
    EXPECT_EQ(info->rank, expected.rank);
    EXPECT_EQ(info->world_size, 3);
    EXPECT_EQ(info->is_chief, expected.is_chief);
    EXPECT_EQ(info->coordinator_address, "workerpool0-0:2222");
    EXPECT_EQ(info->trial_id, "2");

    absl::StatusOr<std::optional<ClusterInfo>> from_spec = ResolveFromClusterSpec(process);
    ASSERT_THAT(from_spec, IsOk());
    EXPECT_EQ((*from_spec)->rank, info->rank);
    EXPECT_EQ((*from_spec)->task_type, info->task_type);
    EXPECT_EQ((*from_spec)->worker_addresses, info->worker_addresses);
  }
}

TEST(VertexEnvTest, SingleReplicaResolvesFromClusterSpec) {
  auto env = jobspec::MakeClusterEnv(Job({1}, {0, 0}));
  ASSERT_THAT(env, IsOk());
  absl::StatusOr<ClusterInfo> info = ResolveClusterInfo(base::MapEnvironment(*env));
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->source, "CLUSTER_SPEC");
  EXPECT_EQ(info->task_type, "chief");
  EXPECT_EQ(info->rank, 0);
  EXPECT_EQ(info->world_size, 1);
  EXPECT_TRUE(info->is_chief);
}

}  // namespace
}  // namespace trainpkg::runtime
