// NCCL communicator: one rank per visible GPU, as threads of one process.
// Skipped, saying why, where no GPU is usable.
#include "trainer_runtime/collectives/cuda/nccl_communicator.h"

#include <cuda_runtime.h>

#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "trainer_runtime/coordination/coordination_client.h"
#include "trainer_runtime/coordination/coordination_server.h"
#include "trainer_runtime/coordination/rank_names.h"
#include "trainer_runtime/cuda/gpu_devices.h"

namespace trainpkg::collectives {
namespace {

TEST(NcclCommunicatorTest, AllReduceBroadcastAllGatherOnEveryGpu) {
  auto gpus = runtime::ListGpus();
  if (!gpus.ok()) GTEST_SKIP() << "no usable GPU: " << gpus.status().message();
  if (gpus->empty()) GTEST_SKIP() << "no GPU visible to this process";
  const int n = static_cast<int>(gpus->size());
  std::vector<std::string> names;
  for (int r = 0; r < n; ++r) names.push_back(coordination::PlainRankName(r));
  auto server = coordination::CoordinationServer::Start("127.0.0.1:0", names, {});
  ASSERT_TRUE(server.ok()) << server.status();
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      ASSERT_EQ(cudaSetDevice(r), cudaSuccess);
      auto client = coordination::CoordinationClient::Create((*server)->address(), r, names, {});
      ASSERT_TRUE(client.ok() && (*client)->Register().ok());
      cudaStream_t stream;
      ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
      auto comm = CreateNcclCommunicator(**client, stream, {});
      ASSERT_TRUE(comm.ok()) << comm.status();
      constexpr size_t kN = 100003;
      std::vector<float> host(kN * n);
      for (size_t i = 0; i < kN; ++i) host[i] = static_cast<float>(r + i % 100);
      float* device = nullptr;
      float* gathered = nullptr;
      ASSERT_EQ(cudaMalloc(&device, kN * sizeof(float)), cudaSuccess);
      ASSERT_EQ(cudaMalloc(&gathered, kN * n * sizeof(float)), cudaSuccess);
      cudaMemcpy(device, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice);
      ASSERT_TRUE((*comm)->AllReduce(std::span(device, kN), ReduceOp::kSum).ok());
      cudaMemcpy(host.data(), device, kN * sizeof(float), cudaMemcpyDeviceToHost);
      for (size_t i = 0; i < kN; ++i) {
        ASSERT_EQ(host[i], static_cast<float>(n * (n - 1) / 2 + n * (i % 100)));
      }
      ASSERT_TRUE((*comm)->Broadcast(std::span(device, kN), 0).ok());
      ASSERT_TRUE(
          (*comm)->AllGather(std::span<const float>(device, kN), std::span(gathered, kN * n)).ok());
      cudaMemcpy(host.data(), gathered, kN * n * sizeof(float), cudaMemcpyDeviceToHost);
      for (size_t i = 0; i < kN * n; ++i) {
        ASSERT_EQ(host[i], static_cast<float>(n * (n - 1) / 2 + n * (i % kN % 100)));
      }
      double* wide = nullptr;
      ASSERT_EQ(cudaMalloc(&wide, 1001 * sizeof(double)), cudaSuccess);
      std::vector<double> wide_host(1001, 1099511627776.0 + r + 0.5);
      cudaMemcpy(wide, wide_host.data(), 1001 * sizeof(double), cudaMemcpyHostToDevice);
      ASSERT_TRUE((*comm)->AllReduce(std::span(wide, 1001), ReduceOp::kSum).ok());
      cudaMemcpy(wide_host.data(), wide, 1001 * sizeof(double), cudaMemcpyDeviceToHost);
      EXPECT_EQ(wide_host[1000], n * 1099511627776.0 + n * (n - 1) / 2 + n * 0.5);
      cudaFree(wide);
      ASSERT_TRUE((*comm)->Barrier().ok());
      comm->reset();
      cudaFree(device);
      cudaFree(gathered);
      cudaStreamDestroy(stream);
      EXPECT_TRUE((*client)->Goodbye().ok());
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE((*server)->Shutdown().ok());
}

}  // namespace
}  // namespace trainpkg::collectives
