#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <set>
#include <vector>

#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/data/batcher.h"
#include "trainer_runtime/data/dataset.h"
#include "trainer_runtime/data/in_memory_source.h"
#include "trainer_runtime/data/prefetcher.h"
#include "trainer_runtime/data/shuffle.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::data {
namespace {

using ::testing::ElementsAre;

// n elements of shape [2]: features (i, -i), label i.
std::shared_ptr<const Dataset> Counting(int n) {
  std::vector<float> x;
  std::vector<int32_t> y;
  for (int i = 0; i < n; ++i) {
    x.push_back(static_cast<float>(i));
    x.push_back(static_cast<float>(-i));
    y.push_back(i);
  }
  return std::make_shared<const Dataset>(Dataset::Create({2}, std::move(x), std::move(y)).value());
}

// Every label the pipeline produces, batch by batch.
std::vector<std::vector<int32_t>> Drain(Batcher& batcher) {
  std::vector<std::vector<int32_t>> out;
  Batch batch;
  while (batcher.Next(&batch).value()) out.push_back(batch.labels);
  return out;
}

TEST(ShuffleTest, KnownSequenceAndDeterminism) {
  // Pinned (recorded from this implementation): the order for a seed must
  // never change between versions or machines, since resumed and multi-worker
  // runs depend on it.
  const std::vector<int64_t> a = ShuffledIndices(10, 42);
  EXPECT_THAT(a, ElementsAre(1, 7, 9, 0, 3, 8, 4, 2, 5, 6));
  EXPECT_EQ(a, ShuffledIndices(10, 42));
  EXPECT_NE(a, ShuffledIndices(10, 43));
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> identity(10);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(sorted, identity);
  EXPECT_NE(a, identity);
}

TEST(ShuffleTest, UniformBelowIsInRangeAndCoversIt) {
  nn::Rng rng(7);
  std::set<uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = UniformBelow(rng, 6);
    ASSERT_LT(v, 6u);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_EQ(UniformBelow(rng, 1), 0u);
}

TEST(SplitTest, SizesDisjointAndSeeded) {
  auto ds = Counting(11);
  auto split = SplitTrainTest(*ds, 0.2, 5);
  ASSERT_THAT(split, IsOk());
  EXPECT_EQ(split->test.size(), 3);  // ceil(2.2)
  EXPECT_EQ(split->train.size(), 8);
  std::set<int32_t> all(split->train.labels().begin(), split->train.labels().end());
  all.insert(split->test.labels().begin(), split->test.labels().end());
  EXPECT_EQ(all.size(), 11u);
  auto again = SplitTrainTest(*ds, 0.2, 5).value();
  EXPECT_TRUE(std::equal(again.test.labels().begin(), again.test.labels().end(),
                         split->test.labels().begin()));
  EXPECT_FALSE(SplitTrainTest(*ds, 1.0, 0).ok());
  EXPECT_FALSE(SplitTrainTest(*Counting(1), 0.5, 0).ok());
}

TEST(BatcherTest, RemainderKeptOrDropped) {
  Batcher keep(std::make_unique<InMemorySource>(Counting(7), InMemorySource::Options{}),
               {.batch_size = 3, .drop_remainder = false});
  EXPECT_THAT(Drain(keep), ElementsAre(ElementsAre(0, 1, 2), ElementsAre(3, 4, 5), ElementsAre(6)));
  Batcher drop(std::make_unique<InMemorySource>(Counting(7), InMemorySource::Options{}),
               {.batch_size = 3, .drop_remainder = true});
  EXPECT_THAT(Drain(drop), ElementsAre(ElementsAre(0, 1, 2), ElementsAre(3, 4, 5)));
}

TEST(BatcherTest, FeaturesFollowLabelsAndShapeShrinksForLastBatch) {
  Batcher batcher(std::make_unique<InMemorySource>(Counting(5), InMemorySource::Options{}),
                  {.batch_size = 4});
  Batch batch;
  ASSERT_TRUE(batcher.Next(&batch).value());
  EXPECT_EQ(batch.features.shape(), nn::Shape({4, 2}));
  const float* first_storage = batch.features.data();
  ASSERT_TRUE(batcher.Next(&batch).value());
  EXPECT_EQ(batch.features.shape(), nn::Shape({1, 2}));
  EXPECT_EQ(batch.features.data(), first_storage);  // buffer reused
  EXPECT_THAT(batch.features.values(), ElementsAre(4.0f, -4.0f));
  EXPECT_FALSE(batcher.Next(&batch).value());
  EXPECT_FALSE(batcher.Next(&batch).value());
}

TEST(BatcherTest, ShuffledEpochsAreSeededPermutations) {
  auto run = [](uint64_t seed) {
    InMemorySource::Options options;
    options.shuffle = true;
    options.seed = seed;
    options.epochs = 2;
    Batcher b(std::make_unique<InMemorySource>(Counting(10), options), {.batch_size = 10});
    return Drain(b);
  };
  const auto a = run(1);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a, run(1));
  EXPECT_NE(a, run(2));
  EXPECT_NE(a[0], a[1]);  // each epoch its own order
  std::vector<int32_t> sorted = a[1];
  std::sort(sorted.begin(), sorted.end());
  EXPECT_THAT(sorted, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  // One source per epoch (first_epoch) gives the same order as one source of two epochs.
  InMemorySource::Options second;
  second.shuffle = true;
  second.seed = 1;
  second.first_epoch = 1;
  Batcher only_second(std::make_unique<InMemorySource>(Counting(10), second), {.batch_size = 10});
  EXPECT_THAT(Drain(only_second), ElementsAre(a[1]));
}

TEST(BatcherTest, RepeatCrossesEpochBoundaries) {
  InMemorySource::Options options;
  options.epochs = 2;
  Batcher b(std::make_unique<InMemorySource>(Counting(3), options), {.batch_size = 4});
  EXPECT_THAT(Drain(b), ElementsAre(ElementsAre(0, 1, 2, 0), ElementsAre(1, 2)));
}

// A source that yields `good` elements, then fails.
class FailingSource final : public ElementSource {
 public:
  explicit FailingSource(int good) : good_(good) {}
  const nn::Shape& element_shape() const override { return shape_; }
  absl::StatusOr<int64_t> Read(int64_t max, float* features, int32_t* labels) override {
    if (given_ == good_) return absl::DataLossError("disk on fire");
    const int64_t n = std::min<int64_t>(max, good_ - given_);
    for (int64_t i = 0; i < n; ++i) {
      features[i] = 1.0f;
      labels[i] = given_ + static_cast<int32_t>(i);
    }
    given_ += static_cast<int>(n);
    return n;
  }

 private:
  nn::Shape shape_{1};
  int good_;
  int given_ = 0;
};

TEST(PrefetcherTest, DeliversAllBatchesInOrder) {
  Prefetcher prefetch(std::make_unique<Batcher>(
                          std::make_unique<InMemorySource>(Counting(10), InMemorySource::Options{}),
                          BatchOptions{.batch_size = 3}),
                      2);
  std::vector<int32_t> labels;
  Batch batch;
  while (prefetch.Next(&batch).value())
    labels.insert(labels.end(), batch.labels.begin(), batch.labels.end());
  EXPECT_THAT(labels, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_FALSE(prefetch.Next(&batch).value());
}

TEST(PrefetcherTest, ErrorPropagatesAfterGoodBatches) {
  Prefetcher prefetch(
      std::make_unique<Batcher>(std::make_unique<FailingSource>(4), BatchOptions{.batch_size = 2}),
      3);
  Batch batch;
  ASSERT_TRUE(prefetch.Next(&batch).value());
  EXPECT_THAT(batch.labels, ElementsAre(0, 1));
  ASSERT_TRUE(prefetch.Next(&batch).value());
  EXPECT_THAT(batch.labels, ElementsAre(2, 3));
  auto failed = prefetch.Next(&batch);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(), "disk on fire");
  EXPECT_FALSE(prefetch.Next(&batch).ok());
}

TEST(PrefetcherTest, EarlyDestructionJoinsTheThread) {
  // An endless stream: the producer fills its buffer and waits; the
  // destructor must wake and join it.
  InMemorySource::Options forever;
  forever.epochs = -1;
  auto prefetch = std::make_unique<Prefetcher>(
      std::make_unique<Batcher>(std::make_unique<InMemorySource>(Counting(5), forever),
                                BatchOptions{.batch_size = 2}),
      2);
  Batch batch;
  ASSERT_TRUE(prefetch->Next(&batch).value());
  prefetch.reset();
  // Destroyed before the first Next, too.
  Prefetcher untouched(
      std::make_unique<Batcher>(std::make_unique<InMemorySource>(Counting(5), forever),
                                BatchOptions{.batch_size = 2}),
      1);
}

}  // namespace
}  // namespace trainpkg::data
