#include "trainer_runtime/nn/dense.h"

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/nn/gradient_check.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::nn {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::RandomTensor;

TEST(DenseTest, ComputesInputTimesKernelPlusBias) {
  auto dense = Dense::Create(2, 3);
  ASSERT_THAT(dense, IsOk());
  (*dense)->kernel().value = *Tensor::FromValues({2, 3}, {1, 2, 3, 4, 5, 6});
  (*dense)->bias().value = *Tensor::FromValues({3}, {0.5f, -0.5f, 1});
  const Tensor input = *Tensor::FromValues({2, 2}, {1, 0, 1, 1});
  Tensor output({2, 3});
  (*dense)->Forward(input, false, &output);
  EXPECT_EQ(std::vector<float>(output.values().begin(), output.values().end()),
            (std::vector<float>{1.5f, 1.5f, 4, 5.5f, 6.5f, 10}));
}

TEST(DenseTest, GradientsMatchFiniteDifferences) {
  auto dense = Dense::Create(4, 3, {.name = "d"});
  ASSERT_THAT(dense, IsOk());
  Rng rng(1);
  (*dense)->InitializeParameters(rng);
  (*dense)->bias().value = RandomTensor({3}, 2);
  ExpectGradientsMatchFiniteDifferences(**dense, RandomTensor({5, 4}, 3));
}

TEST(DenseTest, WithoutBiasHasOnlyAKernel) {
  auto dense = Dense::Create(4, 3, {.use_bias = false});
  ASSERT_THAT(dense, IsOk());
  ASSERT_EQ((*dense)->parameters().size(), 1u);
  Rng rng(1);
  (*dense)->InitializeParameters(rng);
  ExpectGradientsMatchFiniteDifferences(**dense, RandomTensor({2, 4}, 3));
}

TEST(DenseTest, RejectsBadSizesAndInputs) {
  EXPECT_EQ(Dense::Create(0, 3).status().code(), absl::StatusCode::kInvalidArgument);
  auto dense = Dense::Create(4, 3, {.name = "hidden"});
  ASSERT_THAT(dense, IsOk());
  auto shape = (*dense)->OutputShape({8, 5});
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(shape.status().message()), "hidden: expects input [batch, 4], got [8, 5]");
  EXPECT_EQ(*(*dense)->OutputShape({8, 4}), (Shape{8, 3}));
}

}  // namespace
}  // namespace trainpkg::nn
