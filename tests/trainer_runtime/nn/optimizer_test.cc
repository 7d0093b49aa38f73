// Optimizer steps against values computed by hand (in double, from the
// formulas in sgd.h, adam.h and adagrad.h) for w0 = 1, lr 0.1 and gradients
// 0.5, -1, 0.25.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/nn/adagrad.h"
#include "trainer_runtime/nn/adam.h"
#include "trainer_runtime/nn/sgd.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::nn {
namespace {

constexpr float kGradients[] = {0.5f, -1.0f, 0.25f};

// Runs the three steps and returns w after each.
std::vector<float> Steps(Optimizer& optimizer) {
  Parameter p("w", {1});
  p.value.data()[0] = 1.0f;
  std::vector<Parameter*> params = {&p};
  std::vector<float> trajectory;
  for (float g : kGradients) {
    p.grad.data()[0] = g;
    EXPECT_THAT(optimizer.Apply(params), IsOk());
    trajectory.push_back(p.value.data()[0]);
  }
  return trajectory;
}

void ExpectTrajectory(const std::vector<float>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-6) << i;  // float rounding, 3 steps
}

TEST(SgdTest, PlainStep) {
  auto sgd = Sgd::Create({.learning_rate = 0.1f});
  ASSERT_THAT(sgd, IsOk());
  ExpectTrajectory(Steps(**sgd), {0.95, 1.05, 1.025});
}

TEST(SgdTest, Momentum) {
  // b: 0.5, -0.55, -0.245;  w -= 0.1 b.
  auto sgd = Sgd::Create({.learning_rate = 0.1f, .momentum = 0.9f});
  ASSERT_THAT(sgd, IsOk());
  ExpectTrajectory(Steps(**sgd), {0.95, 1.005, 1.0295});
}

TEST(SgdTest, NesterovMomentum) {
  // b: 0.5, -0.55, -0.245; direction g + 0.9 b: 0.95, -1.495, 0.0295.
  auto sgd = Sgd::Create({.learning_rate = 0.1f, .momentum = 0.9f, .nesterov = true});
  ASSERT_THAT(sgd, IsOk());
  ExpectTrajectory(Steps(**sgd), {0.905, 1.0545, 1.05155});
}

TEST(AdamTest, BiasCorrectedSteps) {
  // t=1: m 0.05, v 2.5e-4, m^ 0.5, v^ 0.25 -> w = 1 - 0.1 * 0.5 / (0.5 + 1e-8).
  // t=2: m -0.055, v 1.24975e-3, m^ -0.28947, v^ 0.62519 -> +0.036610.
  auto adam = Adam::Create({.learning_rate = 0.1f});
  ASSERT_THAT(adam, IsOk());
  ExpectTrajectory(Steps(**adam), {0.900000002, 0.9366103542405654, 0.9502794203389762});
  EXPECT_EQ((*adam)->iterations(), 3);
}

TEST(AdagradTest, AccumulatesSquares) {
  // sum: 0.35, 1.35, 1.4125; w -= 0.1 g / sqrt(sum).
  auto adagrad = Adagrad::Create({.learning_rate = 0.1f, .initial_accumulator_value = 0.1f});
  ASSERT_THAT(adagrad, IsOk());
  ExpectTrajectory(Steps(**adagrad), {0.9154845745414341, 1.0015508711164136, 0.9805157130226});
}

TEST(OptimizerTest, LearningRateChangesBetweenSteps) {
  auto sgd = Sgd::Create({.learning_rate = 0.1f});
  ASSERT_THAT(sgd, IsOk());
  Parameter p("w", {1});
  std::vector<Parameter*> params = {&p};
  p.grad.data()[0] = 1.0f;
  ASSERT_THAT((*sgd)->Apply(params), IsOk());
  (*sgd)->set_learning_rate(0.5f);
  ASSERT_THAT((*sgd)->Apply(params), IsOk());
  EXPECT_FLOAT_EQ(p.value.data()[0], -0.6f);
  EXPECT_EQ((*sgd)->learning_rate(), 0.5f);
}

TEST(OptimizerTest, RejectsAChangedParameterList) {
  auto adam = Adam::Create();
  ASSERT_THAT(adam, IsOk());
  Parameter a("a", {2});
  Parameter b("b", {3});
  std::vector<Parameter*> first = {&a};
  ASSERT_THAT((*adam)->Apply(first), IsOk());
  std::vector<Parameter*> longer = {&a, &b};
  EXPECT_EQ((*adam)->Apply(longer).code(), absl::StatusCode::kFailedPrecondition);
  std::vector<Parameter*> resized = {&b};
  EXPECT_EQ((*adam)->Apply(resized).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ((*adam)->iterations(), 1);
}

// Found by fuzz_ps_messages under UBSan: a parameter server restored to
// INT64_MAX iterations overflowed the step number on the next Apply.
TEST(OptimizerTest, RefusesToStepPastTheLargestIterationCount) {
  auto adam = Adam::Create();
  ASSERT_THAT(adam, IsOk());
  Parameter w("w", {1});
  w.value.data()[0] = 1.0f;
  w.grad.data()[0] = 0.5f;
  ASSERT_THAT((*adam)->RestoreState(std::numeric_limits<int64_t>::max(), {{0.0f, 0.0f}}), IsOk());
  std::vector<Parameter*> params = {&w};
  absl::Status status = (*adam)->Apply(params);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_EQ(std::string(status.message()),
            "optimizer: 9223372036854775807 iterations already, the most it can count; nothing "
            "updated");
  EXPECT_EQ((*adam)->iterations(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(w.value.data()[0], 1.0f);
}

TEST(OptimizerTest, RejectsBadOptions) {
  EXPECT_FALSE(Sgd::Create({.learning_rate = -1.0f}).ok());
  EXPECT_FALSE(Sgd::Create({.nesterov = true}).ok());
  EXPECT_FALSE(Adam::Create({.beta_1 = 1.0f}).ok());
  EXPECT_FALSE(Adagrad::Create({.epsilon = -1.0f}).ok());
}

}  // namespace
}  // namespace trainpkg::nn
