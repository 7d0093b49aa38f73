// Sparse softmax cross-entropy and binary cross-entropy: values against
// closed forms, gradients against central differences (smooth functions:
// truncation error ~ step^2 / 6 * |f'''| < 1e-4 at step 1e-2, plus float
// rounding, well inside the 1e-3 tolerance), stability, errors.
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/nn/gradient_check.h"
#include "trainer_runtime/nn/binary_cross_entropy.h"
#include "trainer_runtime/nn/sparse_softmax_cross_entropy.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::nn {
namespace {

using testing::RandomTensor;

template <typename Loss>
void ExpectLossGradientMatches(const Tensor& logits, Loss loss) {
  Tensor grad;
  ASSERT_THAT(loss(logits, &grad), IsOk());
  ASSERT_EQ(grad.shape(), logits.shape());
  const float step = 1e-2f;
  Tensor probe = logits;
  for (int64_t i = 0; i < probe.num_elements(); ++i) {
    const float saved = probe.data()[i];
    probe.data()[i] = saved + step;
    const double plus = *loss(probe, nullptr);
    probe.data()[i] = saved - step;
    const double minus = *loss(probe, nullptr);
    probe.data()[i] = saved;
    EXPECT_NEAR(grad.data()[i], (plus - minus) / (2.0 * step), 1e-3) << "logit " << i;
  }
}

TEST(SparseSoftmaxCrossEntropyTest, MatchesClosedForm) {
  const Tensor logits = *Tensor::FromValues({2, 3}, {1, 2, 3, 0, 0, 0});
  const std::vector<int32_t> labels = {2, 1};
  const double row0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 3.0;
  const double row1 = std::log(3.0);
  EXPECT_NEAR(*SparseSoftmaxCrossEntropy(logits, labels), (row0 + row1) / 2, 1e-6);
}

TEST(SparseSoftmaxCrossEntropyTest, GradientMatchesFiniteDifferences) {
  const std::vector<int32_t> labels = {0, 3, 1, 3};
  ExpectLossGradientMatches(RandomTensor({4, 5}, 11, 0.0f, 3.0f),
                            [&](const Tensor& logits, Tensor* grad) {
                              return SparseSoftmaxCrossEntropy(logits, labels, grad);
                            });
}

TEST(SparseSoftmaxCrossEntropyTest, StableForHugeLogits) {
  const Tensor logits = *Tensor::FromValues({1, 3}, {1000, -1000, 999});
  Tensor grad;
  const std::vector<int32_t> labels = {2};
  auto loss = SparseSoftmaxCrossEntropy(logits, labels, &grad);
  ASSERT_THAT(loss, IsOk());
  EXPECT_NEAR(*loss, 1.0 + std::log1p(std::exp(-1.0)), 1e-5);
  for (float g : grad.values()) EXPECT_TRUE(std::isfinite(g));
}

TEST(SparseSoftmaxCrossEntropyTest, RejectsBadLabels) {
  const Tensor logits({2, 3});
  const std::vector<int32_t> out_of_range = {0, 3};
  auto loss = SparseSoftmaxCrossEntropy(logits, out_of_range);
  EXPECT_EQ(loss.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(loss.status().message()),
            "sparse softmax cross-entropy: label 3 at index 1 is outside [0, 3)");
  const std::vector<int32_t> too_few = {0};
  EXPECT_FALSE(SparseSoftmaxCrossEntropy(logits, too_few).ok());
  EXPECT_FALSE(SparseSoftmaxCrossEntropy(Tensor({6}), too_few).ok());
}

TEST(BinaryCrossEntropyTest, MatchesClosedForm) {
  const Tensor logits = *Tensor::FromValues({2, 1}, {0.5f, -2});
  const std::vector<float> targets = {1, 0};
  auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  const double expected = (-std::log(sigmoid(0.5)) - std::log(1.0 - sigmoid(-2.0))) / 2;
  EXPECT_NEAR(*BinaryCrossEntropy(logits, targets), expected, 1e-6);
}

TEST(BinaryCrossEntropyTest, GradientMatchesFiniteDifferences) {
  const std::vector<float> targets = {1, 0, 0.25f, 1, 0, 0.5f};
  ExpectLossGradientMatches(RandomTensor({6, 1}, 12, 0.0f, 4.0f),
                            [&](const Tensor& logits, Tensor* grad) {
                              return BinaryCrossEntropy(logits, targets, grad);
                            });
}

TEST(BinaryCrossEntropyTest, StableForHugeLogits) {
  const Tensor logits = *Tensor::FromValues({2, 1}, {100, -100});
  const std::vector<float> targets = {0, 1};
  Tensor grad;
  EXPECT_NEAR(*BinaryCrossEntropy(logits, targets, &grad), 100.0, 1e-4);
  EXPECT_NEAR(grad.data()[0], 0.5f, 1e-6);
  EXPECT_NEAR(grad.data()[1], -0.5f, 1e-6);
}

TEST(BinaryCrossEntropyTest, RejectsBadTargets) {
  const Tensor logits({2, 1});
  const std::vector<float> bad = {0, 1.5f};
  auto loss = BinaryCrossEntropy(logits, bad);
  EXPECT_EQ(loss.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(loss.status().message()),
            "binary cross-entropy: target 1.5 at index 1 is outside [0, 1]");
  const std::vector<float> too_many = {0, 1, 1};
  EXPECT_FALSE(BinaryCrossEntropy(logits, too_many).ok());
}

}  // namespace
}  // namespace trainpkg::nn
