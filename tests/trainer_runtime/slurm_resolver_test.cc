#include "trainer_runtime/slurm_resolver.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::runtime {
namespace {

using Vars = std::map<std::string, std::string>;

using ::testing::ElementsAre;

// Five tasks: two on node01, two on node02, one on gpu7.
base::MapEnvironment Step(std::string procid) {
  return base::MapEnvironment(Vars{{"SLURM_PROCID", std::move(procid)},
                                   {"SLURM_STEP_NUM_TASKS", "5"},
                                   {"SLURM_STEP_NODELIST", "node[01-02],gpu7"},
                                   {"SLURM_STEP_TASKS_PER_NODE", "2(x2),1"}});
}

TEST(SlurmResolverTest, UnsetIsAbsent) {
  base::MapEnvironment env(Vars{{"SLURM_STEP_NUM_TASKS", "5"}});
  EXPECT_FALSE(ResolveFromSlurm(env)->has_value());
}

TEST(SlurmResolverTest, BlockDistributionOverTheNodeList) {
  absl::StatusOr<std::optional<ClusterInfo>> info = ResolveFromSlurm(Step("3"));
  ASSERT_THAT(info, IsOk());
  const ClusterInfo& got = **info;
  EXPECT_EQ(got.source, "slurm");
  EXPECT_EQ(got.task_type, "worker");
  EXPECT_EQ(got.task_index, 3);
  EXPECT_EQ(got.rank, 3);
  EXPECT_EQ(got.world_size, 5);
  EXPECT_FALSE(got.is_chief);
  EXPECT_EQ(got.local_rank, 1);
  EXPECT_EQ(got.coordinator_address, "node01:8888");
  EXPECT_THAT(got.worker_addresses,
              ElementsAre("node01:8888", "node01:8889", "node02:8888", "node02:8889", "gpu7:8888"));

  ClusterInfo first = **ResolveFromSlurm(Step("0"));
  EXPECT_TRUE(first.is_chief);
  EXPECT_EQ(first.local_rank, 0);
  EXPECT_EQ((*ResolveFromSlurm(Step("4")))->local_rank, 0);
}

std::string Error(const base::MapEnvironment& env) {
  absl::StatusOr<std::optional<ClusterInfo>> info = ResolveFromSlurm(env);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(info.status().message());
}

TEST(SlurmResolverTest, MalformedNamesTheVariable) {
  EXPECT_EQ(Error(base::MapEnvironment(Vars{{"SLURM_PROCID", "0"}})),
            "SLURM_STEP_NUM_TASKS: not set (SLURM_PROCID is set; not inside an srun step?)");
  base::MapEnvironment env = Step("5");
  EXPECT_EQ(Error(env), "SLURM_PROCID: 5 is not below SLURM_STEP_NUM_TASKS 5");
  env = Step("one");
  EXPECT_EQ(Error(env), "SLURM_PROCID: expected an integer >= 0, got \"one\"");
  env = Step("0");
  env.Set("SLURM_STEP_NODELIST", "node[01-02");
  EXPECT_EQ(Error(env), "SLURM_STEP_NODELIST: \"node[01-02\": unbalanced '['");
  env = Step("0");
  env.Set("SLURM_STEP_TASKS_PER_NODE", "2(x2)");
  EXPECT_EQ(Error(env), "SLURM_STEP_TASKS_PER_NODE: 2 nodes, but SLURM_STEP_NODELIST has 3");
  env = Step("0");
  env.Set("SLURM_STEP_TASKS_PER_NODE", "2(x3)");
  EXPECT_EQ(Error(env), "SLURM_STEP_TASKS_PER_NODE: 6 tasks in all, but SLURM_STEP_NUM_TASKS is 5");
  env = Step("0");
  env.Set("SLURM_STEP_TASKS_PER_NODE", "2(x2),z");
  EXPECT_EQ(Error(env), "SLURM_STEP_TASKS_PER_NODE: \"z\": expected N or N(xM)");
}

}  // namespace
}  // namespace trainpkg::runtime
