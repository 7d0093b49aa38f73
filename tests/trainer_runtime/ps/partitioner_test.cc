#include "trainer_runtime/ps/partitioner.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/ps/shard_plan.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::ps {
namespace {

using ::testing::ElementsAre;

TEST(PartitionerTest, FixedShardsCapsAtTheFirstDimension) {
  auto p = FixedShardsPartitioner(4);
  ASSERT_THAT(p, IsOk());
  EXPECT_EQ((*p)->NumShards({10, 3}, 4), 4);
  EXPECT_EQ((*p)->NumShards({2, 3}, 4), 2);
  EXPECT_EQ((*p)->NumShards({}, 4), 1);
  EXPECT_EQ((*p)->NumShards({0, 5}, 4), 1);
  EXPECT_FALSE(FixedShardsPartitioner(0).ok());
}

TEST(PartitionerTest, MinSizeKeepsEveryShardAtLeastMinBytes) {
  // 100 x 10 floats = 4000 bytes; 1000-byte minimum -> at most 4 shards.
  auto p = MinSizePartitioner(1000, 8);
  ASSERT_THAT(p, IsOk());
  EXPECT_EQ((*p)->NumShards({100, 10}, 4), 4);
  // Capped by max_shards.
  auto capped = MinSizePartitioner(1000, 3);
  EXPECT_EQ((*capped)->NumShards({100, 10}, 4), 3);
  // Smaller than one minimum shard: not split.
  EXPECT_EQ((*p)->NumShards({10, 10}, 4), 1);
  // Never more shards than rows.
  EXPECT_EQ((*p)->NumShards({2, 1000}, 4), 2);
  // TF's defaults (256 KiB, 1 shard) never split.
  auto defaults = MinSizePartitioner();
  EXPECT_EQ((*defaults)->NumShards({100000, 100}, 4), 1);
  EXPECT_FALSE(MinSizePartitioner(0, 1).ok());
  EXPECT_FALSE(MinSizePartitioner(10, 0).ok());
}

TEST(PartitionerTest, MaxSizeKeepsEveryShardAtMostMaxBytes) {
  // Rows of 10 floats (40 bytes); 1000 bytes -> 25 rows per shard.
  auto p = MaxSizePartitioner(1000);
  ASSERT_THAT(p, IsOk());
  EXPECT_EQ((*p)->NumShards({100, 10}, 4), 4);
  EXPECT_EQ((*p)->NumShards({101, 10}, 4), 5);
  EXPECT_EQ((*p)->NumShards({25, 10}, 4), 1);
  // A row larger than the maximum: one row per shard.
  EXPECT_EQ((*p)->NumShards({3, 1000}, 4), 3);
  auto capped = MaxSizePartitioner(1000, 2);
  EXPECT_EQ((*capped)->NumShards({100, 10}, 4), 2);
  EXPECT_FALSE(MaxSizePartitioner(0).ok());
  EXPECT_FALSE(MaxSizePartitioner(10, -1).ok());
}

TEST(PartitionerTest, RowsAreDealtAsArraySplit) {
  EXPECT_THAT(ShardRows(10, 3), ElementsAre(4, 3, 3));
  EXPECT_THAT(ShardRows(9, 3), ElementsAre(3, 3, 3));
  EXPECT_THAT(ShardRows(2, 3), ElementsAre(1, 1, 0));
}

TEST(ShardPlanTest, RoundRobinOverVariablesWithoutPartitioner) {
  auto plan = ShardPlan::Create({{"a", {4, 2}}, {"b", {2}}, {"c", {3, 3}}}, nullptr, 2);
  ASSERT_THAT(plan, IsOk());
  ASSERT_EQ(plan->shards().size(), 3u);
  EXPECT_EQ(plan->shards()[0].ps, 0);
  EXPECT_EQ(plan->shards()[1].ps, 1);
  EXPECT_EQ(plan->shards()[2].ps, 0);
  EXPECT_THAT(plan->ShardsOn(0), ElementsAre(0, 2));
  EXPECT_THAT(plan->ShardsOn(1), ElementsAre(1));
  EXPECT_EQ(plan->shards()[2].name, "c");
  EXPECT_EQ(plan->num_elements(), 8 + 2 + 9);
}

TEST(ShardPlanTest, PartitionedShardsAreContiguousRangesDealtRoundRobin) {
  // "big" is 10 x 4 floats = 160 bytes; max 48 bytes -> 3 rows per shard,
  // 4 shards of 3, 3, 2, 2 rows.
  auto partitioner = MaxSizePartitioner(48);
  auto plan = ShardPlan::Create({{"small", {2}}, {"big", {10, 4}}}, partitioner->get(), 2);
  ASSERT_THAT(plan, IsOk());
  // "small" is 8 bytes: one shard.
  ASSERT_EQ(plan->shards().size(), 5u);
  const auto& s = plan->shards();
  EXPECT_EQ(s[1].name, "big/part_0");
  EXPECT_EQ(s[4].name, "big/part_3");
  std::vector<int64_t> offsets, sizes;
  std::vector<int> ps;
  for (size_t i = 1; i < s.size(); ++i) {
    offsets.push_back(s[i].offset);
    sizes.push_back(s[i].size);
    ps.push_back(s[i].ps);
  }
  EXPECT_THAT(offsets, ElementsAre(0, 12, 24, 32));
  EXPECT_THAT(sizes, ElementsAre(12, 12, 8, 8));
  EXPECT_THAT(ps, ElementsAre(1, 0, 1, 0));
}

TEST(ShardPlanTest, RejectsBadInput) {
  EXPECT_FALSE(ShardPlan::Create({{"a", {2}}}, nullptr, 0).ok());
  EXPECT_FALSE(ShardPlan::Create({}, nullptr, 1).ok());
  EXPECT_FALSE(ShardPlan::Create({{"a", {2}}, {"a", {3}}}, nullptr, 1).ok());
  EXPECT_FALSE(ShardPlan::Create({{"a", {-1}}}, nullptr, 1).ok());
}

}  // namespace
}  // namespace trainpkg::ps
