// The digits sample's GlobalBatchSource: how a global batch is split among
// replicas when it does not divide evenly, and what it refuses.
#include "samples/digits_multiworker/global_batch_source.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::samples {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// n elements of one feature each; element i has feature i and label i.
std::shared_ptr<const data::Dataset> Counting(int n) {
  std::vector<float> x;
  std::vector<int32_t> y;
  for (int i = 0; i < n; ++i) {
    x.push_back(static_cast<float>(i));
    y.push_back(i);
  }
  auto dataset = data::Dataset::Create({1}, std::move(x), std::move(y));
  EXPECT_THAT(dataset, IsOk());
  return std::make_shared<const data::Dataset>(*std::move(dataset));
}

// Every batch of one epoch, as the labels (= element indices) it holds.
std::vector<std::vector<int32_t>> Epoch(train::BatchSource& source, int epoch) {
  EXPECT_THAT(source.StartEpoch(epoch), IsOk());
  std::vector<std::vector<int32_t>> batches;
  train::Batch batch;
  while (true) {
    absl::StatusOr<bool> more = source.Next(batch);
    EXPECT_THAT(more, IsOk());
    if (!more.ok() || !*more) break;
    batches.push_back(batch.labels);
  }
  return batches;
}

std::unique_ptr<GlobalBatchSource> Source(int n, int64_t global_batch, int64_t rank,
                                          bool training) {
  GlobalBatchOptions options;
  options.global_batch_size = global_batch;
  options.rank = rank;
  options.world_size = 3;
  options.training = training;
  options.seed = 9;
  auto source = GlobalBatchSource::Create(Counting(n), options);
  EXPECT_THAT(source, IsOk());
  return source.ok() ? *std::move(source) : nullptr;
}

TEST(GlobalBatchSourceTest, UnevenGlobalBatchGivesTheFirstRanksOneMore) {
  // 140 elements, global batch 64 on 3 replicas: 2 full global batches
  // (the remainder of 12 dropped), sliced 22/21/21.
  std::vector<std::vector<std::vector<int32_t>>> ranks;
  for (int64_t r = 0; r < 3; ++r) {
    auto source = Source(140, 64, r, true);
    ASSERT_NE(source, nullptr);
    EXPECT_EQ(source->num_batches(), 2);
    ranks.push_back(Epoch(*source, 1));
  }
  for (size_t b = 0; b < 2; ++b) {
    ASSERT_EQ(ranks[0].size(), 2u);
    ASSERT_EQ(ranks[1].size(), 2u);
    ASSERT_EQ(ranks[2].size(), 2u);
    EXPECT_EQ(ranks[0][b].size(), 22u);
    EXPECT_EQ(ranks[1][b].size(), 21u);
    EXPECT_EQ(ranks[2][b].size(), 21u);
  }
  // Together the slices are each global batch once: 128 distinct elements.
  std::vector<int32_t> all;
  for (const auto& rank : ranks) {
    for (const auto& batch : rank) all.insert(all.end(), batch.begin(), batch.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  EXPECT_EQ(all.size(), 128u);
}

TEST(GlobalBatchSourceTest, EvaluationKeepsThePartialLastBatchSplitTheSameWay) {
  // 10 elements in global batches of 8: [0, 8) as 3/3/2, then [8, 10) as
  // 1/1/0 (rank 2 has no slice of it and skips it).
  EXPECT_THAT(Epoch(*Source(10, 8, 0, false), 0),
              ElementsAre(ElementsAre(0, 1, 2), ElementsAre(8)));
  EXPECT_THAT(Epoch(*Source(10, 8, 1, false), 0),
              ElementsAre(ElementsAre(3, 4, 5), ElementsAre(9)));
  auto last = Source(10, 8, 2, false);
  EXPECT_EQ(last->num_batches(), 1);
  EXPECT_THAT(Epoch(*last, 0), ElementsAre(ElementsAre(6, 7)));
}

TEST(GlobalBatchSourceTest, GlobalBatchSmallerThanTheReplicasIsRefused) {
  GlobalBatchOptions options;
  options.global_batch_size = 2;
  options.world_size = 3;
  auto source = GlobalBatchSource::Create(Counting(10), options);
  ASSERT_FALSE(source.ok());
  EXPECT_EQ(source.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(source.status().message()), HasSubstr("use at least 3"));
}

}  // namespace
}  // namespace trainpkg::samples
