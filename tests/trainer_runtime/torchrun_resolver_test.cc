#include "trainer_runtime/torchrun_resolver.h"

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::runtime {
namespace {

using Vars = std::map<std::string, std::string>;

base::MapEnvironment Torchrun(std::string rank) {
  return base::MapEnvironment(Vars{{"RANK", std::move(rank)},
                                   {"WORLD_SIZE", "4"},
                                   {"MASTER_ADDR", "node-a"},
                                   {"MASTER_PORT", "29500"},
                                   {"LOCAL_RANK", "1"}});
}

TEST(TorchrunResolverTest, UnsetIsAbsent) {
  base::MapEnvironment env(Vars{{"WORLD_SIZE", "4"}});
  EXPECT_FALSE(ResolveFromTorchrun(env)->has_value());
}

TEST(TorchrunResolverTest, EveryProcessIsAWorkerAndRankZeroIsChief) {
  absl::StatusOr<std::optional<ClusterInfo>> info = ResolveFromTorchrun(Torchrun("3"));
  ASSERT_THAT(info, IsOk());
  const ClusterInfo& got = **info;
  EXPECT_EQ(got.source, "torchrun");
  EXPECT_EQ(got.task_type, "worker");
  EXPECT_EQ(got.task_index, 3);
  EXPECT_EQ(got.rank, 3);
  EXPECT_EQ(got.world_size, 4);
  EXPECT_FALSE(got.is_chief);
  EXPECT_EQ(got.local_rank, 1);
  EXPECT_EQ(got.coordinator_address, "node-a:29500");
  EXPECT_TRUE(got.worker_addresses.empty());

  EXPECT_TRUE((*ResolveFromTorchrun(Torchrun("0")))->is_chief);
}

TEST(TorchrunResolverTest, LocalRankDefaultsToZeroAndIpv6IsBracketed) {
  base::MapEnvironment env(
      {{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_ADDR", "fe80::1"}, {"MASTER_PORT", "1"}});
  ClusterInfo info = **ResolveFromTorchrun(env);
  EXPECT_EQ(info.local_rank, 0);
  EXPECT_EQ(info.coordinator_address, "[fe80::1]:1");
}

std::string Error(base::MapEnvironment env) {
  absl::StatusOr<std::optional<ClusterInfo>> info = ResolveFromTorchrun(env);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(info.status().message());
}

TEST(TorchrunResolverTest, MalformedNamesTheVariable) {
  EXPECT_EQ(Error(base::MapEnvironment(Vars{{"RANK", "0"}})),
            "WORLD_SIZE: not set (RANK is set, so the torchrun variables are expected)");
  base::MapEnvironment env = Torchrun("x");
  EXPECT_EQ(Error(env), "RANK: expected an integer >= 0, got \"x\"");
  env = Torchrun("-1");
  EXPECT_EQ(Error(env), "RANK: expected an integer >= 0, got \"-1\"");
  env = Torchrun("4");
  EXPECT_EQ(Error(env), "RANK: 4 is not below WORLD_SIZE 4");
  env = Torchrun("0");
  env.Set("WORLD_SIZE", "0");
  EXPECT_EQ(Error(env), "WORLD_SIZE: expected an integer >= 1, got \"0\"");
  env = Torchrun("0");
  env.Set("MASTER_PORT", "70000");
  EXPECT_EQ(Error(env), "MASTER_PORT: expected an integer from 1 to 65535, got \"70000\"");
  env = Torchrun("0");
  env.Set("MASTER_ADDR", "");
  EXPECT_EQ(Error(env),
            "MASTER_ADDR: not set (RANK is set, so the torchrun variables are expected)");
  env = Torchrun("0");
  env.Set("LOCAL_RANK", "1 ");
  EXPECT_EQ(Error(env), "LOCAL_RANK: expected an integer >= 0, got \"1 \"");
}

}  // namespace
}  // namespace trainpkg::runtime
