// Conv2D: TensorFlow's output sizes and padding, values against a direct
// convolution, gradients against central differences for both paddings,
// several strides and a non-square kernel.
#include "trainer_runtime/nn/conv2d.h"

#include <string>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/nn/gradient_check.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::nn {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::RandomTensor;

struct Case {
  int64_t height, width, channels, filters, kernel_height, kernel_width, stride_height,
      stride_width;
  Padding padding;
};

std::string Name(const Case& c) {
  return fmt::format("{}x{}x{} k{}x{} s{}x{} {}", c.height, c.width, c.channels, c.kernel_height,
                     c.kernel_width, c.stride_height, c.stride_width,
                     c.padding == Padding::kSame ? "same" : "valid");
}

std::unique_ptr<Conv2D> Make(const Case& c) {
  auto conv = Conv2D::Create(
      c.channels, c.filters, c.kernel_height, c.kernel_width,
      {.stride_height = c.stride_height, .stride_width = c.stride_width, .padding = c.padding});
  EXPECT_THAT(conv, IsOk());
  Rng rng(21);
  (*conv)->InitializeParameters(rng);
  (*conv)->bias().value = RandomTensor({c.filters}, 22);
  return *std::move(conv);
}

// Both paddings; strides 1, 2 and mixed; odd sizes so 'same' pads unevenly.
const Case kCases[] = {
    {5, 5, 2, 3, 3, 3, 1, 1, Padding::kValid}, {5, 5, 2, 3, 3, 3, 1, 1, Padding::kSame},
    {6, 5, 2, 2, 3, 3, 2, 2, Padding::kValid}, {6, 5, 2, 2, 3, 3, 2, 2, Padding::kSame},
    {4, 5, 1, 2, 2, 3, 2, 1, Padding::kSame},  {4, 4, 3, 2, 2, 2, 2, 2, Padding::kSame},
};

TEST(Conv2DTest, OutputSizesFollowTensorFlow) {
  auto shape = [](int64_t in, int64_t k, int64_t s, Padding p) {
    return (*Make({in, in, 1, 1, k, k, s, s, p})->OutputShape({2, in, in, 1}))[1];
  };
  EXPECT_EQ(shape(5, 3, 1, Padding::kValid), 3);
  EXPECT_EQ(shape(5, 3, 1, Padding::kSame), 5);
  EXPECT_EQ(shape(5, 3, 2, Padding::kValid), 2);
  EXPECT_EQ(shape(5, 3, 2, Padding::kSame), 3);
  EXPECT_EQ(shape(6, 3, 2, Padding::kSame), 3);
  EXPECT_EQ(shape(6, 1, 4, Padding::kValid), 2);
}

TEST(Conv2DTest, MatchesADirectConvolution) {
  for (const Case& c : kCases) {
    auto conv = Make(c);
    const Tensor input = RandomTensor({2, c.height, c.width, c.channels}, 23);
    auto shape = conv->OutputShape(input.shape());
    ASSERT_THAT(shape, IsOk()) << Name(c);
    Tensor output(*shape);
    conv->Forward(input, true, &output);
    auto g = *ComputeWindowGeometry(input.shape(), c.kernel_height, c.kernel_width, c.stride_height,
                                    c.stride_width, c.padding);
    const float* w = conv->kernel().value.data();
    for (int64_t n = 0; n < 2; ++n) {
      for (int64_t oh = 0; oh < g.out_height; ++oh) {
        for (int64_t ow = 0; ow < g.out_width; ++ow) {
          for (int64_t f = 0; f < c.filters; ++f) {
            double sum = conv->bias().value.data()[f];
            for (int64_t kh = 0; kh < c.kernel_height; ++kh) {
              for (int64_t kw = 0; kw < c.kernel_width; ++kw) {
                const int64_t ih = oh * c.stride_height - g.pad_top + kh;
                const int64_t iw = ow * c.stride_width - g.pad_left + kw;
                if (ih < 0 || ih >= c.height || iw < 0 || iw >= c.width) continue;
                for (int64_t ch = 0; ch < c.channels; ++ch) {
                  sum += input.data()[((n * c.height + ih) * c.width + iw) * c.channels + ch] *
                         w[((kh * c.kernel_width + kw) * c.channels + ch) * c.filters + f];
                }
              }
            }
            const float actual =
                output.data()[((n * g.out_height + oh) * g.out_width + ow) * c.filters + f];
            EXPECT_NEAR(actual, sum, 1e-5) << Name(c);
          }
        }
      }
    }
  }
}

TEST(Conv2DTest, GradientsMatchFiniteDifferences) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(Name(c));
    auto conv = Make(c);
    ExpectGradientsMatchFiniteDifferences(*conv,
                                          RandomTensor({2, c.height, c.width, c.channels}, 24));
  }
}

TEST(Conv2DTest, RejectsBadInputs) {
  EXPECT_FALSE(Conv2D::Create(1, 1, 0, 3).ok());
  EXPECT_FALSE(Conv2D::Create(1, 1, 3, 3, {.stride_height = 0}).ok());
  auto conv = Conv2D::Create(2, 4, 3, 3, {.name = "c"});
  ASSERT_THAT(conv, IsOk());
  EXPECT_EQ(std::string((*conv)->OutputShape({1, 5, 5, 3}).status().message()),
            "c: expects input [batch, height, width, 2], got [1, 5, 5, 3]");
  EXPECT_EQ(std::string((*conv)->OutputShape({1, 2, 5, 2}).status().message()),
            "c: input [1, 2, 5, 2] is smaller than the 3x3 window with 'valid' padding");
  EXPECT_EQ(std::string((*conv)->OutputShape({1, 25, 2}).status().message()),
            "c: expects input [batch, height, width, channels], got [1, 25, 2]");
}

}  // namespace
}  // namespace trainpkg::nn
