// Data parallelism: bucket plans, the allreduce order and weighted mean of
// the bucketed reducer, Fit's epoch timing, the warmup schedule, and 3-rank
// runs (threads, real Gloo) that end with the weights of a 1-rank run on the
// same global batches, with equal per-rank batches and with a global batch
// that does not divide evenly.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/train/test_job.h"
#include "trainer_runtime/nn/sgd.h"
#include "trainer_runtime/train/bucket_plan.h"
#include "trainer_runtime/train/callback.h"
#include "trainer_runtime/train/fit.h"
#include "trainer_runtime/train/gradient_reducer.h"
#include "trainer_runtime/train/learning_rate_warmup.h"
#include "trainer_runtime/train/multi_worker_mirrored_strategy.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::train {
namespace {

using ::testing::ElementsAre;
using testing::MakeDataset;
using testing::MakeMlp;
using testing::OnEveryRank;
using testing::ShardedSource;
using testing::ThreadJob;
using testing::Weights;

std::vector<size_t> Params(const Bucket& b) { return b.parameters; }

TEST(BucketPlanTest, ReverseOrderSmallFirstBucketThenCap) {
  // Sizes in floats; limits in bytes: first 40 B (10 floats), cap 100 B (25 floats).
  const std::vector<int64_t> sizes = {30, 5, 8, 4, 6, 3};
  const auto buckets = PlanBuckets(sizes, {.first_bucket_bytes = 40, .bucket_cap_bytes = 100});
  // Reverse: 5(3) 4(6) -> 9 floats < 10, + 3(4) = 13 >= 10 closes bucket 0;
  // then 2(8) 1(5) = 13 < 25, + 0(30) = 43 closes bucket 1.
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_THAT(Params(buckets[0]), ElementsAre(5, 4, 3));
  EXPECT_EQ(buckets[0].num_elements, 13);
  EXPECT_THAT(Params(buckets[1]), ElementsAre(2, 1, 0));
  EXPECT_EQ(buckets[1].num_elements, 43);
}

TEST(BucketPlanTest, DefaultsAreDdpsOneAndTwentyFiveMiB) {
  // A 64->256->128->10 MLP (digits reference) fits in the first bucket's
  // 1 MiB? kernel 64x256 = 16384 floats = 64 KiB ... all 43,146 floats =
  // 168 KiB < 1 MiB: one bucket, reverse order.
  const std::vector<int64_t> mlp = {64 * 256, 256, 256 * 128, 128, 128 * 10, 10};
  auto buckets = PlanBuckets(mlp, {});
  ASSERT_EQ(buckets.size(), 1u);
  EXPECT_THAT(Params(buckets[0]), ElementsAre(5, 4, 3, 2, 1, 0));
  // 1M-float (4 MiB) kernels: the first closes bucket 0 at once (>= 1 MiB),
  // then buckets fill to >= 25 MiB: 7 x 4 MiB = 28 MiB.
  const std::vector<int64_t> big(10, int64_t{1} << 20);
  buckets = PlanBuckets(big, {});
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_THAT(Params(buckets[0]), ElementsAre(9));
  EXPECT_EQ(buckets[1].parameters.size(), 7u);
  EXPECT_THAT(Params(buckets[2]), ElementsAre(1, 0));
}

// Records the size of every AllReduce before passing it on.
class RecordingCommunicator final : public collectives::Communicator {
 public:
  explicit RecordingCommunicator(collectives::Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  absl::Status AllReduce(std::span<float> data, collectives::ReduceOp op) override {
    sizes.push_back(data.size());
    return inner_.AllReduce(data, op);
  }
  absl::Status AllReduce(std::span<double> data, collectives::ReduceOp op) override {
    sizes.push_back(data.size());
    return inner_.AllReduce(data, op);
  }
  absl::Status Broadcast(std::span<float> data, int root) override {
    return inner_.Broadcast(data, root);
  }
  absl::Status AllGather(std::span<const float> in, std::span<float> out) override {
    return inner_.AllGather(in, out);
  }
  absl::Status Barrier() override { return inner_.Barrier(); }
  std::vector<size_t> sizes;

 private:
  collectives::Communicator& inner_;
};

TEST(GradientReducerTest, EveryRankIssuesTheSameAllReducesInBucketOrderAndGetsTheMean) {
  ThreadJob job(3);
  std::vector<std::vector<size_t>> issued(3);
  std::vector<std::vector<size_t>> planned(3);
  OnEveryRank(3, [&](int r) {
    nn::Sequential model = MakeMlp(6, 12, 4, 1);
    RecordingCommunicator comm(job.comm(r));
    // Tiny limits so the 6 parameters make several buckets.
    auto reducer = BucketedGradientReducer::Create(
        comm, model.parameters(), {.first_bucket_bytes = 16, .bucket_cap_bytes = 200});
    ASSERT_THAT(reducer, IsOk());
    const auto& params = model.parameters();
    for (int step = 0; step < 2; ++step) {
      for (nn::Parameter* p : params) p->grad.Fill(static_cast<float>(r * 3 + step));
      // Weights 1, 2, 3: the mean is (0 * 1 + 3 * 2 + 6 * 3) / 6 + step = 4 + step.
      (*reducer)->BeginStep(static_cast<float>(r + 1));
      // Rank 1 reports in registration order (the last bucket fills first),
      // the others in backward's reverse order: the issue order must not
      // depend on it.
      if (r == 1) {
        for (nn::Parameter* p : params) (*reducer)->GradientReady(*p);
      } else {
        for (auto it = params.rbegin(); it != params.rend(); ++it) (*reducer)->GradientReady(**it);
      }
      ASSERT_THAT((*reducer)->FinishStep(), IsOk());
      for (nn::Parameter* p : params) {
        for (float v : p->grad.values()) ASSERT_EQ(v, 4.0f + static_cast<float>(step));
      }
    }
    issued[static_cast<size_t>(r)] = comm.sizes;
    for (const Bucket& b : (*reducer)->buckets()) {
      // Each bucket's gradients and the weight.
      planned[static_cast<size_t>(r)].push_back(static_cast<size_t>(b.num_elements) + 1);
    }
  });
  ASSERT_GT(planned[0].size(), 2u);
  std::vector<size_t> two_steps = planned[0];
  two_steps.insert(two_steps.end(), planned[0].begin(), planned[0].end());
  for (int r = 0; r < 3; ++r) EXPECT_EQ(issued[static_cast<size_t>(r)], two_steps) << "rank " << r;
}

TEST(GradientReducerTest, OneBucketOnGlooGivesTheWeightedMeanEveryStep) {
  // A 64-128-128-10 MLP: 26,122 floats, one bucket under 256 KiB, reduced
  // on the training thread by Gloo's prepared halving-doubling, step after
  // step.
  ThreadJob job(2);
  OnEveryRank(2, [&](int r) {
    nn::Sequential model = MakeMlp(64, 128, 10, 1);
    auto reducer = BucketedGradientReducer::Create(job.comm(r), model.parameters(), {});
    ASSERT_THAT(reducer, IsOk());
    ASSERT_EQ((*reducer)->buckets().size(), 1u);
    for (int step = 0; step < 20; ++step) {
      for (nn::Parameter* p : model.parameters()) {
        float* g = p->grad.data();
        for (int64_t i = 0; i < p->grad.num_elements(); ++i) {
          g[i] = static_cast<float>((i + step) % 5 + 10 * r);
        }
      }
      // Weights 3 and 1: (3 x + 1 (x + 10)) / 4 = x + 2.5.
      (*reducer)->BeginStep(r == 0 ? 3.0f : 1.0f);
      for (nn::Parameter* p : model.parameters()) (*reducer)->GradientReady(*p);
      ASSERT_THAT((*reducer)->FinishStep(), IsOk());
      for (nn::Parameter* p : model.parameters()) {
        const float* g = p->grad.data();
        for (int64_t i = 0; i < p->grad.num_elements(); ++i) {
          ASSERT_EQ(g[i], static_cast<float>((i + step) % 5) + 2.5f) << p->name << " " << i;
        }
      }
    }
  });
}

TEST(GradientReducerTest, WeightsSummingToZeroAreAnError) {
  ThreadJob job(2);
  OnEveryRank(2, [&](int r) {
    nn::Sequential model = MakeMlp(4, 4, 2, 1);
    auto reducer = BucketedGradientReducer::Create(job.comm(r), model.parameters(), {});
    ASSERT_THAT(reducer, IsOk());
    (*reducer)->BeginStep(0.0f);
    for (nn::Parameter* p : model.parameters()) (*reducer)->GradientReady(*p);
    absl::Status status = (*reducer)->FinishStep();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(status.message(), ::testing::HasSubstr("sum to 0"));
  });
}

TEST(WarmupTest, LinearFromLrOverSizeToLr) {
  // lr 0.4, 4 replicas, 2 warmup epochs of 10 steps.
  EXPECT_FLOAT_EQ(WarmupLearningRate(0.4f, 4, 2, 0, 0, 10), 0.1f);
  EXPECT_FLOAT_EQ(WarmupLearningRate(0.4f, 4, 2, 0, 5, 10), 0.1f * (0.5f * 3 / 2 + 1));
  EXPECT_FLOAT_EQ(WarmupLearningRate(0.4f, 4, 2, 1, 0, 10), 0.1f * (1.0f * 3 / 2 + 1));
  EXPECT_FLOAT_EQ(WarmupLearningRate(0.4f, 4, 2, 1, 9, 10), 0.1f * (1.9f * 3 / 2 + 1));
  EXPECT_FLOAT_EQ(WarmupLearningRate(0.4f, 4, 2, 2, 0, 10), 0.4f);
  EXPECT_FLOAT_EQ(WarmupLearningRate(0.4f, 4, 0, 0, 0, 10), 0.4f);  // no warmup
  EXPECT_FLOAT_EQ(WarmupLearningRate(0.4f, 1, 2, 0, 0, 10), 0.4f);  // one replica
}

// The largest |a[i] - b[i]|, printed for the test log.
float MaxDifference(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float max_diff = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    max_diff = std::max(max_diff, std::abs(a[i] - b[i]));
  }
  std::printf("max |w_1rank - w_3rank| = %g over %zu weights\n", max_diff, a.size());
  return max_diff;
}

struct RunResult {
  std::vector<float> weights;
  History history;
  std::string progress;
};

// Trains the MLP with SGD (momentum) for 3 epochs on global batches of
// `global_batch` examples split among the strategy's replicas.
RunResult TrainOnce(Strategy& strategy, int global_batch, const testing::Dataset& data,
                    const testing::Dataset& val, double warmup) {
  nn::Sequential model = MakeMlp(8, 32, 4, /*seed=*/7 + strategy.rank());  // differs per rank
  auto sgd = nn::Sgd::Create({.learning_rate = 0.1f, .momentum = 0.9f});
  EXPECT_THAT(sgd, IsOk());
  const int replicas = strategy.num_replicas();
  ShardedSource train(data, global_batch, strategy.rank(), replicas, /*seed=*/11);
  ShardedSource validation(val, 24, strategy.rank(), replicas, 5);
  std::ostringstream progress;
  FitOptions options;
  options.epochs = 3;
  options.warmup_epochs = warmup;
  options.progress = &progress;
  auto history = Fit(strategy, model, **sgd, train, &validation, options);
  EXPECT_THAT(history, IsOk());
  return {Weights(model), history.ok() ? *history : History{}, progress.str()};
}

TEST(DataParallelTest, ThreeRanksMatchOneRankOnTheSameGlobalBatches) {
  const auto data = MakeDataset(480, 8, 4, 3);
  const auto val = MakeDataset(96, 8, 4, 4);
  for (double warmup : {0.0, 1.5}) {
    OneDeviceStrategy one;
    const RunResult single = TrainOnce(one, 48, data, val, warmup);

    ThreadJob job(3);
    std::vector<RunResult> ranks(3);
    OnEveryRank(3, [&](int r) {
      MultiWorkerMirroredStrategy strategy(
          job.comm(r), BucketOptions{.first_bucket_bytes = 256, .bucket_cap_bytes = 2048});
      ranks[static_cast<size_t>(r)] = TrainOnce(strategy, 48, data, val, warmup);
    });
    // Every replica holds bit-identical weights (they applied identical
    // summed gradients to identical broadcast weights).
    EXPECT_EQ(ranks[1].weights, ranks[0].weights);
    EXPECT_EQ(ranks[2].weights, ranks[0].weights);
    if (warmup > 0) {
      // Warmup changes the 3-rank run (lr/3 at first) but not the 1-rank run.
      EXPECT_LT(ranks[0].history.epochs[0].learning_rate, 0.1);
      continue;
    }
    // Against the 1-rank run: the same math, summed in a different order
    // (three weighted 16-example partial gradients summed vs one 48-example sum),
    // so float rounding differs by a few ulps per step; after 30 SGD steps
    // with momentum the weights (|w| ~ 0.1-1) agree to 1e-5.
    EXPECT_LT(MaxDifference(single.weights, ranks[0].weights), 1e-5f);
    // Metrics are summed across ranks: every rank reports the same numbers,
    // and they are the 1-rank run's (same examples) up to rounding.
    for (int r = 1; r < 3; ++r) {
      for (size_t e = 0; e < 3; ++e) {
        const EpochLogs& a = ranks[0].history.epochs[e];
        const EpochLogs& b = ranks[static_cast<size_t>(r)].history.epochs[e];
        EXPECT_EQ(a.loss, b.loss);
        EXPECT_EQ(a.accuracy, b.accuracy);
        EXPECT_EQ(a.val_loss, b.val_loss);
        EXPECT_EQ(a.seconds, b.seconds);
      }
    }
    for (size_t e = 0; e < 3; ++e) {
      EXPECT_EQ(ranks[0].history.epochs[e].examples, 480);
      EXPECT_EQ(single.history.epochs[e].examples, 480);
      EXPECT_NEAR(ranks[0].history.epochs[e].loss, single.history.epochs[e].loss, 1e-5);
      EXPECT_NEAR(ranks[0].history.epochs[e].accuracy, single.history.epochs[e].accuracy, 1e-9);
      EXPECT_NEAR(*ranks[0].history.epochs[e].val_accuracy, *single.history.epochs[e].val_accuracy,
                  1e-9);
    }
    // The progress line is the chief's alone.
    EXPECT_THAT(ranks[0].progress, ::testing::HasSubstr("epoch 3/3 - loss "));
    EXPECT_EQ(ranks[1].progress, "");
    EXPECT_GT(*single.history.epochs[2].val_accuracy, 0.6);
  }
}

TEST(DataParallelTest, UnevenGlobalBatchOnThreeRanksMatchesOneRank) {
  // Global batch 50 over 3 ranks: slices of 17, 17 and 16 examples. Each
  // rank's gradient is weighted by its share (17/50, 17/50, 16/50) and
  // summed, which is the gradient of the 50-example mean; an unweighted
  // mean of the three would weight rank 2's examples 1/48 instead of 1/50.
  const auto data = MakeDataset(500, 8, 4, 3);
  const auto val = MakeDataset(96, 8, 4, 4);
  OneDeviceStrategy one;
  const RunResult single = TrainOnce(one, 50, data, val, 0);

  ThreadJob job(3);
  std::vector<RunResult> ranks(3);
  OnEveryRank(3, [&](int r) {
    MultiWorkerMirroredStrategy strategy(
        job.comm(r), BucketOptions{.first_bucket_bytes = 256, .bucket_cap_bytes = 2048});
    ranks[static_cast<size_t>(r)] = TrainOnce(strategy, 50, data, val, 0);
  });
  EXPECT_EQ(ranks[1].weights, ranks[0].weights);
  EXPECT_EQ(ranks[2].weights, ranks[0].weights);
  // The same tolerance as with equal slices: only float rounding differs.
  EXPECT_LT(MaxDifference(single.weights, ranks[0].weights), 1e-5f);
  for (size_t e = 0; e < 3; ++e) {
    EXPECT_EQ(ranks[0].history.epochs[e].examples, 500);
    EXPECT_NEAR(ranks[0].history.epochs[e].loss, single.history.epochs[e].loss, 1e-5);
    EXPECT_NEAR(ranks[0].history.epochs[e].accuracy, single.history.epochs[e].accuracy, 1e-9);
  }
}

// A clock that moves one second per reading.
class TickingClock final : public trainpkg::testing::FakeClock {
 public:
  absl::Time Now() override {
    const absl::Time now = FakeClock::Now();
    Advance(absl::Seconds(1));
    return now;
  }
};

TEST(FitTest, EpochTimeIncludesValidationStepTimeDoesNotAndCallbacksSeeEachEpoch) {
  // Fit reads the clock at the epoch's start, after its training steps and
  // after validation: 1 s of steps, 2 s in all.
  const auto data = MakeDataset(96, 8, 4, 3);
  const auto val = MakeDataset(24, 8, 4, 4);
  OneDeviceStrategy one;
  nn::Sequential model = MakeMlp(8, 16, 4, 7);
  auto sgd = nn::Sgd::Create({.learning_rate = 0.1f});
  ASSERT_THAT(sgd, IsOk());
  ShardedSource train(data, 24, 0, 1, 11);
  ShardedSource validation(val, 24, 0, 1, 5);
  // Callbacks hear of each epoch's start and end, in that order.
  struct Recorder final : Callback {
    absl::Status OnEpochBegin(TrainContext&, int epoch) override {
      events.push_back("begin " + std::to_string(epoch));
      return absl::OkStatus();
    }
    absl::Status OnEpochEnd(TrainContext&, const EpochLogs& logs) override {
      events.push_back("end " + std::to_string(logs.epoch));
      return absl::OkStatus();
    }
    std::vector<std::string> events;
  } recorder;
  FitOptions options;
  options.epochs = 2;
  TickingClock clock;
  options.clock = &clock;
  options.callbacks.push_back(&recorder);
  auto history = Fit(one, model, **sgd, train, &validation, options);
  ASSERT_THAT(history, IsOk());
  EXPECT_THAT(recorder.events, ElementsAre("begin 0", "end 0", "begin 1", "end 1"));
  for (const EpochLogs& logs : history->epochs) {
    EXPECT_EQ(logs.seconds, 2.0);
    EXPECT_EQ(logs.step_seconds, 1.0 / 4);  // 96 examples in batches of 24
    EXPECT_EQ(logs.examples_per_second, 96.0);
  }
}

TEST(DataParallelTest, MetricsAreSummedAcrossRanks) {
  ThreadJob job(3);
  OnEveryRank(3, [&](int r) {
    MultiWorkerMirroredStrategy strategy(job.comm(r), {});
    const double mine[] = {static_cast<double>(r + 1), 1e9 + r, 0.125 * r};
    auto sum = SumAcrossReplicas(strategy, mine);
    ASSERT_THAT(sum, IsOk());
    EXPECT_THAT(*sum, ElementsAre(6.0, 3e9 + 3, 0.375));
  });
}

}  // namespace
}  // namespace trainpkg::train
