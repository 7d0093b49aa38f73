#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/nn/mean_metric.h"
#include "trainer_runtime/nn/sparse_categorical_accuracy.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::nn {
namespace {

TEST(SparseCategoricalAccuracyTest, CountsArgmaxHitsAcrossBatches) {
  SparseCategoricalAccuracy accuracy;
  EXPECT_EQ(accuracy.Result(), 0.0);
  const Tensor batch1 = *Tensor::FromValues({2, 3}, {0.1f, 0.7f, 0.2f, 1, 1, 0});
  const std::vector<int32_t> labels1 = {1, 1};  // a tie goes to index 0: a miss
  ASSERT_THAT(accuracy.Update(batch1, labels1), IsOk());
  const Tensor batch2 = *Tensor::FromValues({1, 3}, {0, 0, 5});
  const std::vector<int32_t> labels2 = {2};
  ASSERT_THAT(accuracy.Update(batch2, labels2), IsOk());
  EXPECT_EQ(accuracy.correct(), 2);
  EXPECT_EQ(accuracy.total(), 3);
  EXPECT_DOUBLE_EQ(accuracy.Result(), 2.0 / 3.0);
  accuracy.Reset();
  EXPECT_EQ(accuracy.total(), 0);
}

TEST(SparseCategoricalAccuracyTest, RejectsMismatchedLabels) {
  SparseCategoricalAccuracy accuracy;
  const std::vector<int32_t> labels = {1};
  EXPECT_EQ(accuracy.Update(Tensor({2, 3}), labels).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(accuracy.total(), 0);
}

TEST(MeanMetricTest, WeightedMean) {
  MeanMetric mean;
  EXPECT_EQ(mean.Result(), 0.0);
  mean.Update(1.0, 64);
  mean.Update(4.0, 32);
  EXPECT_DOUBLE_EQ(mean.Result(), 2.0);
  EXPECT_DOUBLE_EQ(mean.total_weight(), 96.0);
  mean.Reset();
  EXPECT_EQ(mean.Result(), 0.0);
}

}  // namespace
}  // namespace trainpkg::nn
