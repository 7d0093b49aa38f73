// Tensor storage, the Rng's cross-machine sequence and the initialisers.
#include "trainer_runtime/nn/tensor.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/nn/initializer.h"
#include "trainer_runtime/nn/rng.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::nn {
namespace {

TEST(TensorTest, ZerosOfShape) {
  Tensor t({2, 3});
  EXPECT_EQ(t.rank(), 2);
  EXPECT_EQ(t.num_elements(), 6);
  EXPECT_EQ(t.device(), Device::kCpu);
  for (float v : t.values()) EXPECT_EQ(v, 0.0f);
}

TEST(TensorTest, FromValuesChecksTheCount) {
  auto t = Tensor::FromValues({2, 2}, {1, 2, 3});
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(t.status().message()), "tensor shape [2, 2] needs 4 values, got 3");
  EXPECT_FALSE(Tensor::FromValues({-1}, {}).ok());
}

TEST(TensorTest, ResizeKeepsTheAllocationWhenItFits) {
  Tensor t({4, 4});
  const float* before = t.data();
  t.Resize({2, 4});
  EXPECT_EQ(t.shape(), (Shape{2, 4}));
  EXPECT_EQ(t.num_elements(), 8);
  t.Resize({4, 4});
  EXPECT_EQ(t.data(), before);
}

TEST(RngTest, SequenceIsFixedByTheStandard) {
  // The C++ standard fixes mt19937_64's 10000th output for the default seed.
  Rng rng(5489u);
  uint64_t value = 0;
  for (int i = 0; i < 10000; ++i) value = rng.Next();
  EXPECT_EQ(value, 9981545732273789042ull);
}

TEST(RngTest, UniformMappingIsExact) {
  Rng a(42);
  Rng b(42);
  for (int i = 0; i < 1000; ++i) {
    const float u = a.Uniform01();
    EXPECT_EQ(u, static_cast<float>(b.Next() >> 40) / 16777216.0f);
    EXPECT_GE(u, 0.0f);
    EXPECT_LT(u, 1.0f);
  }
}

TEST(InitializerTest, GlorotAndHeLimits) {
  Tensor kernel({3, 3, 4, 8});  // fan_in 36, fan_out 72
  Rng rng(3);
  Initialize(Initializer::kGlorotUniform, rng, kernel);
  const float glorot = std::sqrt(6.0f / 108.0f);
  float largest = 0.0f;
  for (float v : kernel.values()) largest = std::max(largest, std::abs(v));
  EXPECT_LE(largest, glorot);
  EXPECT_GT(largest, 0.9f * glorot);
  Initialize(Initializer::kHeUniform, rng, kernel);
  const float he = std::sqrt(6.0f / 36.0f);
  largest = 0.0f;
  for (float v : kernel.values()) largest = std::max(largest, std::abs(v));
  EXPECT_LE(largest, he);
  EXPECT_GT(largest, 0.9f * he);
  Initialize(Initializer::kZeros, rng, kernel);
  for (float v : kernel.values()) EXPECT_EQ(v, 0.0f);
}

TEST(TensorTest, CopiesAndMovesKeepValues) {
  Tensor a = *Tensor::FromValues({2, 2}, {1, 2, 3, 4});
  Tensor b = a;
  a.Fill(0.0f);
  EXPECT_EQ(std::vector<float>(b.values().begin(), b.values().end()),
            (std::vector<float>{1, 2, 3, 4}));
  Tensor c = std::move(b);
  EXPECT_EQ(c.num_elements(), 4);
  std::vector<float> host(4);
  c.CopyToHost(host);
  EXPECT_EQ(host, (std::vector<float>{1, 2, 3, 4}));
  auto same = c.To(Device::kCpu);
  ASSERT_THAT(same, IsOk());
  EXPECT_EQ(same->shape(), (Shape{2, 2}));
}

// Without a GPU (or without CUDA in the build) a GPU tensor is refused with
// the reason; with one it holds zeros. tests/gpu/ covers the kernels.
TEST(TensorTest, GpuTensorIsMadeOrRefusedWithAReason) {
  absl::StatusOr<Tensor> gpu = Tensor::Zeros({3}, Device::kCuda);
  if (!gpu.ok()) {
    EXPECT_EQ(gpu.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(std::string(gpu.status().message()).find("a [3] tensor on the GPU: "),
              std::string::npos)
        << gpu.status();
    EXPECT_EQ(Tensor({2}).To(Device::kCuda).status().code(), absl::StatusCode::kFailedPrecondition);
    return;
  }
  EXPECT_EQ(gpu->device(), Device::kCuda);
  std::vector<float> host(3, 1.0f);
  gpu->CopyToHost(host);
  EXPECT_EQ(host, std::vector<float>(3, 0.0f));
}

TEST(InitializerTest, SameSeedSameWeights) {
  Tensor a({5, 7});
  Tensor b({5, 7});
  Rng ra(9);
  Rng rb(9);
  Initialize(Initializer::kGlorotUniform, ra, a);
  Initialize(Initializer::kGlorotUniform, rb, b);
  EXPECT_EQ(std::vector<float>(a.values().begin(), a.values().end()),
            std::vector<float>(b.values().begin(), b.values().end()));
}

}  // namespace
}  // namespace trainpkg::nn
