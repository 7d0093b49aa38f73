// MaxPool2D and GlobalAveragePooling2D: values, tie handling, gradients.
// Max pooling is checked on inputs whose values differ by >= 0.05, so the
// +-0.01 probes never change a window's maximum.
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/nn/gradient_check.h"
#include "trainer_runtime/nn/global_average_pooling2d.h"
#include "trainer_runtime/nn/max_pool2d.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::nn {
namespace {

using testing::DistinctTensor;
using testing::ExpectGradientsMatchFiniteDifferences;
using testing::RandomTensor;

std::vector<float> Values(const Tensor& t) { return {t.values().begin(), t.values().end()}; }

TEST(MaxPool2DTest, TakesWindowMaxima) {
  auto pool = MaxPool2D::Create(2, 2);
  ASSERT_THAT(pool, IsOk());
  // One 4x4 channel.
  const Tensor input =
      *Tensor::FromValues({1, 4, 4, 1}, {1, 2, 5, 6, 3, 4, 7, 8, -1, -2, 0, 0, -3, -4, 0, 9});
  Tensor output(*(*pool)->OutputShape(input.shape()));
  ASSERT_EQ(output.shape(), (Shape{1, 2, 2, 1}));
  (*pool)->Forward(input, true, &output);
  EXPECT_EQ(Values(output), (std::vector<float>{4, 8, -1, 9}));
}

TEST(MaxPool2DTest, SamePaddingIgnoresThePadding) {
  auto pool = MaxPool2D::Create(2, 2, {.padding = Padding::kSame});
  ASSERT_THAT(pool, IsOk());
  const Tensor input = *Tensor::FromValues({1, 3, 3, 1}, {-1, -2, -3, -4, -5, -6, -7, -8, -9});
  Tensor output(*(*pool)->OutputShape(input.shape()));
  ASSERT_EQ(output.shape(), (Shape{1, 2, 2, 1}));
  (*pool)->Forward(input, true, &output);
  EXPECT_EQ(Values(output), (std::vector<float>{-1, -3, -7, -9}));
}

TEST(MaxPool2DTest, TiesSendTheGradientToTheFirstPosition) {
  auto pool = MaxPool2D::Create(2, 2, {.stride_height = 1, .stride_width = 1});
  ASSERT_THAT(pool, IsOk());
  // Two channels: all equal, and a tie between the bottom two of each window.
  const Tensor input = *Tensor::FromValues({1, 2, 3, 2}, {1, 0, 1, 0, 1, 0, 1, 2, 1, 2, 1, 2});
  Tensor output(*(*pool)->OutputShape(input.shape()));
  (*pool)->Forward(input, true, &output);
  const Tensor output_grad = *Tensor::FromValues({1, 1, 2, 2}, {1, 10, 100, 1000});
  Tensor input_grad(input.shape());
  (*pool)->Backward(input, output, output_grad, &input_grad);
  // Channel 0: window (0,0) -> position (0,0); window (0,1) -> (0,1).
  // Channel 1: window (0,0) -> (1,0); window (0,1) -> (1,1).
  EXPECT_EQ(Values(input_grad), (std::vector<float>{1, 0, 100, 0, 0, 0, 0, 10, 0, 1000, 0, 0}));
}

TEST(MaxPool2DTest, GradientsMatchFiniteDifferences) {
  struct Case {
    int64_t pool, stride;
    Padding padding;
    Shape input;
  };
  for (const Case& c :
       {Case{2, 2, Padding::kValid, {2, 4, 4, 2}}, Case{3, 2, Padding::kSame, {2, 5, 5, 2}},
        Case{2, 1, Padding::kValid, {1, 4, 3, 3}}, Case{3, 3, Padding::kSame, {1, 4, 5, 1}}}) {
    SCOPED_TRACE(ShapeToString(c.input));
    auto pool = MaxPool2D::Create(
        c.pool, c.pool,
        {.stride_height = c.stride, .stride_width = c.stride, .padding = c.padding});
    ASSERT_THAT(pool, IsOk());
    ExpectGradientsMatchFiniteDifferences(**pool, DistinctTensor(c.input, 31));
  }
}

TEST(MaxPool2DTest, RejectsBadInputs) {
  EXPECT_FALSE(MaxPool2D::Create(0, 2).ok());
  auto pool = MaxPool2D::Create(3, 3, {.name = "p"});
  ASSERT_THAT(pool, IsOk());
  EXPECT_EQ(std::string((*pool)->OutputShape({1, 2, 2, 1}).status().message()),
            "p: input [1, 2, 2, 1] is smaller than the 3x3 window with 'valid' padding");
}

TEST(GlobalAveragePooling2DTest, AveragesEachChannel) {
  GlobalAveragePooling2D pool;
  const Tensor input = *Tensor::FromValues({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
  Tensor output(*pool.OutputShape(input.shape()));
  ASSERT_EQ(output.shape(), (Shape{1, 2}));
  pool.Forward(input, true, &output);
  EXPECT_EQ(Values(output), (std::vector<float>{2.5f, 25}));
  EXPECT_FALSE(pool.OutputShape({1, 4, 2}).ok());
}

TEST(GlobalAveragePooling2DTest, GradientsMatchFiniteDifferences) {
  GlobalAveragePooling2D pool;
  ExpectGradientsMatchFiniteDifferences(pool, RandomTensor({2, 3, 2, 3}, 32));
}

}  // namespace
}  // namespace trainpkg::nn
