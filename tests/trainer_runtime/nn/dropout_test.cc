#include "trainer_runtime/nn/dropout.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/nn/gradient_check.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::nn {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::RandomTensor;

TEST(DropoutTest, InferencePassesThrough) {
  auto dropout = Dropout::Create(0.5f);
  ASSERT_THAT(dropout, IsOk());
  const Tensor input = RandomTensor({4, 8}, 41);
  Tensor output(input.shape());
  (*dropout)->Forward(input, /*training=*/false, &output);
  EXPECT_EQ(std::vector<float>(output.values().begin(), output.values().end()),
            std::vector<float>(input.values().begin(), input.values().end()));
}

TEST(DropoutTest, TrainingKeepsAboutOneMinusRateAndScales) {
  auto dropout = Dropout::Create(0.25f, {.seed = 3});
  ASSERT_THAT(dropout, IsOk());
  Tensor input({100, 100});
  input.Fill(1.0f);
  Tensor output(input.shape());
  (*dropout)->Forward(input, true, &output);
  int kept = 0;
  for (float v : output.values()) {
    if (v != 0.0f) {
      EXPECT_FLOAT_EQ(v, 1.0f / 0.75f);
      ++kept;
    }
  }
  // Binomial(10000, 0.75): standard deviation 43.
  EXPECT_NEAR(kept, 7500, 200);
}

TEST(DropoutTest, SameSeedSameMask) {
  auto a = Dropout::Create(0.5f, {.seed = 9});
  auto b = Dropout::Create(0.5f, {.seed = 9});
  const Tensor input = RandomTensor({8, 8}, 42);
  Tensor out_a(input.shape());
  Tensor out_b(input.shape());
  (*a)->Forward(input, true, &out_a);
  (*b)->Forward(input, true, &out_b);
  EXPECT_EQ(std::vector<float>(out_a.values().begin(), out_a.values().end()),
            std::vector<float>(out_b.values().begin(), out_b.values().end()));
}

TEST(DropoutTest, GradientsMatchFiniteDifferences) {
  auto dropout = Dropout::Create(0.4f);
  ASSERT_THAT(dropout, IsOk());
  Dropout& layer = **dropout;
  // Replays one mask for every probe.
  ExpectGradientsMatchFiniteDifferences(layer, RandomTensor({3, 5}, 43),
                                        {.before_forward = [&layer] { layer.Reseed(5); }});
  ExpectGradientsMatchFiniteDifferences(layer, RandomTensor({3, 5}, 44), {.training = false});
}

TEST(DropoutTest, RestoredRngStateContinuesTheMaskSequence) {
  auto original = Dropout::Create(0.5f, {.seed = 9});
  auto restored = Dropout::Create(0.5f, {.seed = 10});
  const Tensor input = RandomTensor({8, 8}, 45);
  Tensor out_a(input.shape());
  Tensor out_b(input.shape());
  (*original)->Forward(input, true, &out_a);  // advance past the seed
  ASSERT_THAT((*restored)->RestoreRngState((*original)->RngState()), IsOk());
  (*original)->Forward(input, true, &out_a);
  (*restored)->Forward(input, true, &out_b);
  EXPECT_EQ(std::vector<float>(out_a.values().begin(), out_a.values().end()),
            std::vector<float>(out_b.values().begin(), out_b.values().end()));
}

TEST(DropoutTest, RngStateOfTheWrongSizeIsRefusedAndChangesNothing) {
  auto dropout = Dropout::Create(0.5f, {.name = "drop", .seed = 9});
  const std::vector<uint64_t> before = (*dropout)->RngState();
  const std::vector<uint64_t> short_state = {1, 2, 3};
  absl::Status status = (*dropout)->RestoreRngState(short_state);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("drop: 3 numbers are not a generator state"),
            std::string::npos)
      << status;
  EXPECT_EQ((*dropout)->RngState(), before);
}

TEST(DropoutTest, RejectsBadRates) {
  EXPECT_FALSE(Dropout::Create(1.0f).ok());
  EXPECT_FALSE(Dropout::Create(-0.1f).ok());
}

}  // namespace
}  // namespace trainpkg::nn
