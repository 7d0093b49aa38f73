#include "trainer_runtime/cuda/gpu_devices.h"

#include "gtest/gtest.h"

namespace trainpkg::runtime {
namespace {

TEST(GpuDevicesTest, BuildFlagMatchesConfiguration) {
#ifdef TRAINPKG_HAVE_CUDA
  EXPECT_TRUE(BuiltWithCuda());
#else
  EXPECT_TRUE(!BuiltWithCuda());
  auto gpus = ListGpus();
  ASSERT_FALSE(gpus.ok());
  EXPECT_EQ(gpus.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(gpus.status().message().find("without CUDA"), std::string::npos);
#endif
}

TEST(GpuDevicesTest, EveryVisibleGpuRunsTheSelfTest) {
  auto gpus = ListGpus();
  if (!gpus.ok()) GTEST_SKIP() << "no usable CUDA device: " << gpus.status().message();
  if (gpus->empty()) GTEST_SKIP() << "CUDA works but no GPU is visible";
  for (const GpuInfo& gpu : *gpus) {
    EXPECT_FALSE(gpu.name.empty());
    EXPECT_GT(gpu.total_memory_bytes, 0u);
    EXPECT_GE(gpu.compute_capability_major, 3);
    EXPECT_TRUE(SelfTestGpu(gpu.index).ok()) << gpu.index;
  }
  EXPECT_EQ(SelfTestGpu(static_cast<int>(gpus->size())).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trainpkg::runtime
