// Sequential: naming, shape errors, gradient order, buffer reuse, and a
// small network learning XOR deterministically.
#include "trainer_runtime/nn/sequential.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/nn/gradient_check.h"
#include "trainer_runtime/nn/adam.h"
#include "trainer_runtime/nn/dense.h"
#include "trainer_runtime/nn/relu.h"
#include "trainer_runtime/nn/sgd.h"
#include "trainer_runtime/nn/sparse_categorical_accuracy.h"
#include "trainer_runtime/nn/sparse_softmax_cross_entropy.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::nn {
namespace {

Sequential Mlp(int64_t inputs, int64_t hidden, int64_t classes) {
  Sequential model;
  EXPECT_THAT(model.Add(Dense::Create(inputs, hidden)), IsOk());
  EXPECT_THAT(model.Add(std::make_unique<ReLU>()), IsOk());
  EXPECT_THAT(model.Add(Dense::Create(hidden, hidden)), IsOk());
  EXPECT_THAT(model.Add(std::make_unique<ReLU>()), IsOk());
  EXPECT_THAT(model.Add(Dense::Create(hidden, classes)), IsOk());
  return model;
}

std::vector<std::string> Names(const std::vector<Parameter*>& params) {
  std::vector<std::string> names;
  for (const Parameter* p : params) names.push_back(p->name);
  return names;
}

TEST(SequentialTest, NamesLayersAndParametersLikeKeras) {
  Sequential model = Mlp(2, 4, 3);
  EXPECT_EQ(model.layer(0).name(), "dense");
  EXPECT_EQ(model.layer(1).name(), "re_lu");
  EXPECT_EQ(model.layer(2).name(), "dense_1");
  EXPECT_EQ(model.layer(4).name(), "dense_2");
  EXPECT_EQ(Names(model.parameters()),
            (std::vector<std::string>{"dense/kernel", "dense/bias", "dense_1/kernel",
                                      "dense_1/bias", "dense_2/kernel", "dense_2/bias"}));
  EXPECT_EQ(model.CountParameters(), 2 * 4 + 4 + 4 * 4 + 4 + 4 * 3 + 3);
}

TEST(SequentialTest, RejectsDuplicateNamesAndFailedFactories) {
  Sequential model;
  ASSERT_THAT(model.Add(Dense::Create(2, 2, {.name = "a"})), IsOk());
  EXPECT_EQ(model.Add(Dense::Create(2, 2, {.name = "a"})).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model.Add(Dense::Create(2, 0)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model.num_layers(), 1u);
}

TEST(SequentialTest, ShapeErrorsNameTheLayer) {
  Sequential model = Mlp(2, 4, 3);
  auto output = model.Forward(Tensor({8, 5}), true);
  EXPECT_EQ(output.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(output.status().message()), "dense: expects input [batch, 2], got [8, 5]");
  EXPECT_EQ(model.Backward(Tensor({8, 3})).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Sequential().Forward(Tensor({1, 1}), true).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(SequentialTest, BackwardRejectsAWrongGradientShape) {
  Sequential model = Mlp(2, 4, 3);
  ASSERT_THAT(model.Forward(Tensor({8, 2}), true), IsOk());
  EXPECT_EQ(model.Backward(Tensor({8, 2})).code(), absl::StatusCode::kInvalidArgument);
}

TEST(SequentialTest, GradientsBecomeReadyInReverseRegistrationOrder) {
  Sequential model = Mlp(2, 4, 3);
  model.InitializeParameters(1);
  ASSERT_THAT(model.Forward(testing::RandomTensor({5, 2}, 2), true), IsOk());
  std::vector<Parameter*> ready;
  ASSERT_TRUE(
      model.Backward(testing::RandomTensor({5, 3}, 3), [&](Parameter& p) { ready.push_back(&p); })
          .ok());
  std::vector<Parameter*> expected(model.parameters().rbegin(), model.parameters().rend());
  EXPECT_EQ(ready, expected);
}

TEST(SequentialTest, ModelGradientMatchesFiniteDifferences) {
  // The whole stack, as one function of its first-layer kernel. The step is
  // 1e-3, so a hidden pre-activation moves by at most 1e-3 and (for this
  // seed) none crosses ReLU's kink, which would show as an error of O(0.01);
  // the float loss (~1.5, ulp 1.2e-7) adds < 1e-4.
  Sequential model = Mlp(3, 5, 4);
  model.InitializeParameters(4);
  const Tensor batch = testing::RandomTensor({6, 3}, 5);
  const std::vector<int32_t> labels = {0, 1, 2, 3, 0, 1};
  Tensor logits_grad;
  auto loss = [&](Tensor* grad) {
    const Tensor* logits = *model.Forward(batch, true);
    return static_cast<double>(*SparseSoftmaxCrossEntropy(*logits, labels, grad));
  };
  loss(&logits_grad);
  ASSERT_THAT(model.Backward(logits_grad), IsOk());
  Parameter& kernel = *model.parameters()[0];
  const Tensor analytic = kernel.grad;
  for (int64_t i = 0; i < kernel.value.num_elements(); ++i) {
    const float saved = kernel.value.data()[i];
    kernel.value.data()[i] = saved + 1e-3f;
    const double plus = loss(nullptr);
    kernel.value.data()[i] = saved - 1e-3f;
    const double minus = loss(nullptr);
    kernel.value.data()[i] = saved;
    EXPECT_NEAR(analytic.data()[i], (plus - minus) / 2e-3, 1e-3) << i;
  }
}

// The XOR points, each repeated, labels 0/1.
struct Xor {
  Tensor inputs = *Tensor::FromValues({4, 2}, {0, 0, 0, 1, 1, 0, 1, 1});
  std::vector<int32_t> labels = {0, 1, 1, 0};
};

// Trains a 2-16-16-2 MLP with Adam for `steps` full-batch steps.
Sequential TrainXor(uint64_t seed, int steps) {
  Xor data;
  Sequential model = Mlp(2, 16, 2);
  model.InitializeParameters(seed);
  auto adam = Adam::Create({.learning_rate = 0.05f});
  Tensor logits_grad;
  for (int step = 0; step < steps; ++step) {
    const Tensor* logits = *model.Forward(data.inputs, true);
    EXPECT_THAT(SparseSoftmaxCrossEntropy(*logits, data.labels, &logits_grad), IsOk());
    EXPECT_THAT(model.Backward(logits_grad), IsOk());
    EXPECT_THAT((*adam)->Apply(model.parameters()), IsOk());
  }
  return model;
}

TEST(SequentialTest, MlpLearnsXor) {
  Xor data;
  Sequential model = TrainXor(/*seed=*/1, /*steps=*/200);
  const Tensor* logits = *model.Forward(data.inputs, false);
  SparseCategoricalAccuracy accuracy;
  ASSERT_THAT(accuracy.Update(*logits, data.labels), IsOk());
  EXPECT_EQ(accuracy.Result(), 1.0);
  EXPECT_LT(*SparseSoftmaxCrossEntropy(*logits, data.labels), 0.05f);
}

TEST(SequentialTest, SameSeedGivesBitIdenticalWeights) {
  Sequential a = TrainXor(7, 50);
  Sequential b = TrainXor(7, 50);
  Sequential c = TrainXor(8, 50);
  bool differs_from_c = false;
  for (size_t i = 0; i < a.parameters().size(); ++i) {
    const Tensor& va = a.parameters()[i]->value;
    const Tensor& vb = b.parameters()[i]->value;
    const Tensor& vc = c.parameters()[i]->value;
    EXPECT_EQ(std::memcmp(va.data(), vb.data(), sizeof(float) * va.num_elements()), 0) << i;
    differs_from_c |= std::memcmp(va.data(), vc.data(), sizeof(float) * va.num_elements()) != 0;
  }
  EXPECT_TRUE(differs_from_c);
}

TEST(SequentialTest, StepsReuseTheirBuffers) {
  Sequential model = Mlp(2, 8, 2);
  model.InitializeParameters(1);
  const Tensor batch({4, 2});
  const float* first = (*model.Forward(batch, true))->data();
  const float* second = (*model.Forward(batch, true))->data();
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace trainpkg::nn
