// ReLU and Flatten: values, gradients, shapes.
#include "gtest/gtest.h"
#include "tests/trainer_runtime/nn/gradient_check.h"
#include "trainer_runtime/nn/flatten.h"
#include "trainer_runtime/nn/relu.h"

namespace trainpkg::nn {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::RandomTensor;

TEST(ReLUTest, ZeroesNegatives) {
  ReLU relu;
  const Tensor input = *Tensor::FromValues({1, 4}, {-1, 0, 2, -0.5f});
  Tensor output({1, 4});
  relu.Forward(input, true, &output);
  EXPECT_EQ(std::vector<float>(output.values().begin(), output.values().end()),
            (std::vector<float>{0, 0, 2, 0}));
}

TEST(ReLUTest, GradientsMatchFiniteDifferences) {
  ReLU relu;
  // Values are at least 0.1 from the kink, more than the 0.01 step.
  ExpectGradientsMatchFiniteDifferences(relu, RandomTensor({3, 2, 2, 3}, 5));
}

TEST(ReLUTest, NeedsABatchDimension) {
  EXPECT_EQ(ReLU("r").OutputShape({}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(FlattenTest, KeepsBatchAndOrder) {
  Flatten flatten;
  EXPECT_EQ(*flatten.OutputShape({2, 3, 4, 5}), (Shape{2, 60}));
  EXPECT_EQ(*flatten.OutputShape({7}), (Shape{7, 1}));
  ExpectGradientsMatchFiniteDifferences(flatten, RandomTensor({2, 3, 2, 2}, 6));
}

}  // namespace
}  // namespace trainpkg::nn
