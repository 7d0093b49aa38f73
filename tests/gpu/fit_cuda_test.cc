// Fit with the model on a CUDA device: one replica against the same run on
// the CPU, three replicas sharing one GPU (threads, real Gloo, gradients
// staged through the host buckets) against three CPU replicas, and a model
// file written from and read back into GPU parameters. Skipped, saying why,
// where no CUDA device is usable.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "gtest/gtest.h"
#include "tests/trainer_runtime/train/test_job.h"
#include "trainer_runtime/nn/sgd.h"
#include "trainer_runtime/train/fit.h"
#include "trainer_runtime/train/model_file.h"
#include "trainer_runtime/train/multi_worker_mirrored_strategy.h"

namespace trainpkg::train {
namespace {

using testing::MakeDataset;
using testing::MakeMlp;
using testing::OnEveryRank;
using testing::ShardedSource;
using testing::ThreadJob;

#define SKIP_WITHOUT_GPU()                                                        \
  do {                                                                            \
    absl::StatusOr<nn::Tensor> probe = nn::Tensor::Zeros({1}, nn::Device::kCuda); \
    if (!probe.ok()) {                                                            \
      GTEST_SKIP() << "no CUDA device: " << probe.status().message();             \
    }                                                                             \
  } while (0)

struct RunResult {
  std::vector<float> weights;
  History history;
};

// The weights wherever the model is (a copy through the host for a GPU model).
std::vector<float> HostWeights(nn::Sequential& model) {
  std::vector<float> all;
  for (const NamedTensor& t : ModelBundle(model).tensors) {
    all.insert(all.end(), t.values.begin(), t.values.end());
  }
  return all;
}

// SGD with momentum on the MLP for 3 epochs of 48-example global batches, on `device`.
RunResult TrainOnce(Strategy& strategy, nn::Device device, const testing::Dataset& data,
                    const testing::Dataset& val) {
  nn::Sequential model = MakeMlp(8, 32, 4, /*seed=*/7 + strategy.rank());  // differs per rank
  EXPECT_TRUE(model.MoveTo(device).ok());
  auto sgd = nn::Sgd::Create({.learning_rate = 0.1f, .momentum = 0.9f});
  EXPECT_TRUE(sgd.ok());
  ShardedSource train(data, 48, strategy.rank(), strategy.num_replicas(), /*seed=*/11);
  ShardedSource validation(val, 24, strategy.rank(), strategy.num_replicas(), 5);
  std::ostringstream progress;
  FitOptions options;
  options.epochs = 3;
  options.progress = &progress;
  auto history = Fit(strategy, model, **sgd, train, &validation, options);
  EXPECT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(model.device(), device);
  return {HostWeights(model), history.ok() ? *history : History{}};
}

float MaxDifference(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float worst = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::fabs(a[i] - b[i]));
  }
  return worst;
}

TEST(FitCudaTest, OneReplicaOnTheGpuMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  const auto data = MakeDataset(480, 8, 4, 3);
  const auto val = MakeDataset(96, 8, 4, 4);
  OneDeviceStrategy cpu_strategy;
  const RunResult cpu = TrainOnce(cpu_strategy, nn::Device::kCpu, data, val);
  OneDeviceStrategy gpu_strategy;
  const RunResult gpu = TrainOnce(gpu_strategy, nn::Device::kCuda, data, val);
  // cuBLAS and OpenBLAS sum in different orders: rounding, not math, differs.
  EXPECT_LT(MaxDifference(cpu.weights, gpu.weights), 1e-3f);
  ASSERT_EQ(gpu.history.epochs.size(), 3u);
  EXPECT_NEAR(gpu.history.epochs[2].loss, cpu.history.epochs[2].loss, 1e-3);
  EXPECT_GT(*gpu.history.epochs[2].val_accuracy, 0.6);
}

TEST(FitCudaTest, ThreeReplicasSharingOneGpuMatchThreeCpuReplicas) {
  SKIP_WITHOUT_GPU();
  const auto data = MakeDataset(480, 8, 4, 3);
  const auto val = MakeDataset(96, 8, 4, 4);
  const BucketOptions buckets{.first_bucket_bytes = 256, .bucket_cap_bytes = 2048};
  std::vector<RunResult> cpu(3);
  {
    ThreadJob job(3);
    OnEveryRank(3, [&](int r) {
      MultiWorkerMirroredStrategy strategy(job.comm(r), buckets);
      cpu[static_cast<size_t>(r)] = TrainOnce(strategy, nn::Device::kCpu, data, val);
    });
  }
  std::vector<RunResult> gpu(3);
  {
    ThreadJob job(3);
    OnEveryRank(3, [&](int r) {
      MultiWorkerMirroredStrategy strategy(job.comm(r), buckets);
      gpu[static_cast<size_t>(r)] = TrainOnce(strategy, nn::Device::kCuda, data, val);
    });
  }
  // Broadcast weights and identical averaged gradients: bit-identical replicas.
  EXPECT_EQ(gpu[1].weights, gpu[0].weights);
  EXPECT_EQ(gpu[2].weights, gpu[0].weights);
  EXPECT_LT(MaxDifference(cpu[0].weights, gpu[0].weights), 1e-3f);
  for (size_t e = 0; e < 3; ++e) {
    EXPECT_EQ(gpu[0].history.epochs[e].examples, 480);
    EXPECT_NEAR(gpu[0].history.epochs[e].loss, cpu[0].history.epochs[e].loss, 1e-3);
  }
}

TEST(FitCudaTest, ModelFileRoundTripsThroughGpuParameters) {
  SKIP_WITHOUT_GPU();
  nn::Sequential saved = MakeMlp(8, 32, 4, /*seed=*/3);
  ASSERT_TRUE(saved.MoveTo(nn::Device::kCuda).ok());
  const TensorBundle bundle = ModelBundle(saved);
  nn::Sequential restored = MakeMlp(8, 32, 4, /*seed=*/4);
  ASSERT_TRUE(restored.MoveTo(nn::Device::kCuda).ok());
  ASSERT_NE(HostWeights(restored), HostWeights(saved));
  ASSERT_TRUE(RestoreModel(bundle, restored, "test").ok());
  EXPECT_EQ(HostWeights(restored), HostWeights(saved));
  ASSERT_TRUE(restored.MoveTo(nn::Device::kCpu).ok());
  EXPECT_EQ(testing::Weights(restored), HostWeights(saved));
}

}  // namespace
}  // namespace trainpkg::train
