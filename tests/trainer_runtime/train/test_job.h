// Test helpers: an in-memory data set split the way data parallelism splits
// a global batch, small MLPs, and N ranks as threads of one process with a
// real coordination server on 127.0.0.1:0 and Gloo over loopback.
#ifndef TRAINPKG_TESTS_TRAINER_RUNTIME_TRAIN_TEST_JOB_H_
#define TRAINPKG_TESTS_TRAINER_RUNTIME_TRAIN_TEST_JOB_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/collectives/gloo_communicator.h"
#include "trainer_runtime/coordination/coordination_client.h"
#include "trainer_runtime/coordination/coordination_server.h"
#include "trainer_runtime/coordination/rank_names.h"
#include "trainer_runtime/nn/dense.h"
#include "trainer_runtime/nn/relu.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/train/batch_source.h"
#include "trainer_runtime/train/callback.h"

namespace trainpkg::train::testing {

// `examples` points in `features` dimensions drawn with `seed`; label =
// which of `classes` centres (fixed per problem) is nearest: a learnable,
// deterministic problem whose train and validation sets share centres.
struct Dataset {
  int features = 0;
  std::vector<float> x;
  std::vector<int32_t> y;
  size_t size() const { return y.size(); }
};

inline Dataset MakeDataset(int examples, int features, int classes, uint64_t seed) {
  std::mt19937_64 centre_rng(1234);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> centres(static_cast<size_t>(classes * features));
  for (float& c : centres) c = u(centre_rng);
  std::mt19937_64 rng(seed);
  Dataset d;
  d.features = features;
  for (int i = 0; i < examples; ++i) {
    float best = 1e30f;
    int32_t label = 0;
    for (int f = 0; f < features; ++f) d.x.push_back(u(rng));
    for (int c = 0; c < classes; ++c) {
      float dist = 0;
      for (int f = 0; f < features; ++f) {
        const float diff = d.x[static_cast<size_t>(i * features + f)] -
                           centres[static_cast<size_t>(c * features + f)];
        dist += diff * diff;
      }
      if (dist < best) best = dist, label = c;
    }
    d.y.push_back(label);
  }
  return d;
}

// Replica `rank` of `replicas`: global batch k (of `global_batch` examples,
// in an order shuffled per epoch with seed + epoch) gives this replica its
// rank-th consecutive slice. With global_batch = q x replicas + r, ranks
// 0..r-1 take q + 1 examples and the others q (the split of
// samples/digits_multiworker/global_batch_source.h). REQUIRES: global_batch
// >= replicas.
class ShardedSource final : public BatchSource {
 public:
  ShardedSource(const Dataset& data, int global_batch, int rank, int replicas, uint64_t seed)
      : data_(data),
        global_batch_(global_batch),
        batch_(global_batch / replicas + (rank < global_batch % replicas ? 1 : 0)),
        offset_(rank * (global_batch / replicas) + std::min(rank, global_batch % replicas)),
        seed_(seed) {}
  int64_t num_batches() const override {
    return static_cast<int64_t>(data_.size()) / global_batch_;
  }
  absl::Status StartEpoch(int epoch) override {
    order_.resize(data_.size());
    std::iota(order_.begin(), order_.end(), size_t{0});
    std::shuffle(order_.begin(), order_.end(),
                 std::mt19937_64(seed_ + static_cast<uint64_t>(epoch)));
    next_ = 0;
    return absl::OkStatus();
  }
  absl::StatusOr<bool> Next(Batch& out) override {
    if (next_ >= num_batches()) return false;
    out.features.Resize({batch_, data_.features});
    out.labels.resize(static_cast<size_t>(batch_));
    for (int i = 0; i < batch_; ++i) {
      const size_t e = order_[static_cast<size_t>(next_ * global_batch_ + offset_ + i)];
      std::copy_n(data_.x.begin() + static_cast<int64_t>(e) * data_.features, data_.features,
                  out.features.data() + static_cast<int64_t>(i) * data_.features);
      out.labels[static_cast<size_t>(i)] = data_.y[e];
    }
    ++next_;
    return true;
  }

 private:
  const Dataset& data_;
  int global_batch_, batch_, offset_;
  uint64_t seed_;
  std::vector<size_t> order_;
  int64_t next_ = 0;
};

inline nn::Sequential MakeMlp(int features, int hidden, int classes, uint64_t seed) {
  nn::Sequential model;
  EXPECT_THAT(model.Add(nn::Dense::Create(features, hidden)), ::trainpkg::testing::IsOk());
  EXPECT_THAT(model.Add(std::make_unique<nn::ReLU>()), ::trainpkg::testing::IsOk());
  EXPECT_THAT(model.Add(nn::Dense::Create(hidden, hidden)), ::trainpkg::testing::IsOk());
  EXPECT_THAT(model.Add(std::make_unique<nn::ReLU>()), ::trainpkg::testing::IsOk());
  EXPECT_THAT(model.Add(nn::Dense::Create(hidden, classes)), ::trainpkg::testing::IsOk());
  model.InitializeParameters(seed);
  return model;
}

template <typename Fn>
void OnEveryRank(int n, Fn fn) {
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) threads.emplace_back(fn, r);
  for (auto& t : threads) t.join();
}

inline coordination::CoordinationOptions FastCoordination() {
  return {.heartbeat_interval = absl::Milliseconds(100),
          .heartbeat_timeout = absl::Seconds(2),
          .rendezvous_timeout = absl::Seconds(10),
          .shutdown_timeout = absl::Seconds(5),
          .job_secret = ""};
}

// n ranks, each with a registered client and a Gloo communicator.
class ThreadJob {
 public:
  explicit ThreadJob(int n) {
    std::vector<std::string> names;
    for (int r = 0; r < n; ++r) names.push_back(coordination::PlainRankName(r));
    auto server = coordination::CoordinationServer::Start("127.0.0.1:0", names, FastCoordination());
    EXPECT_THAT(server, ::trainpkg::testing::IsOk());
    server_ = *std::move(server);
    clients_.resize(static_cast<size_t>(n));
    comms_.resize(static_cast<size_t>(n));
    OnEveryRank(n, [&](int r) {
      auto client = coordination::CoordinationClient::Create(server_->address(), r, names,
                                                             FastCoordination());
      ASSERT_THAT(client, ::trainpkg::testing::IsOk());
      clients_[static_cast<size_t>(r)] = *std::move(client);
      ASSERT_THAT(clients_[static_cast<size_t>(r)]->Register(), ::trainpkg::testing::IsOk());
      auto comm = collectives::CreateGlooCommunicator(*clients_[static_cast<size_t>(r)],
                                                      {.timeout = absl::Seconds(20)});
      ASSERT_THAT(comm, ::trainpkg::testing::IsOk());
      comms_[static_cast<size_t>(r)] = *std::move(comm);
    });
  }
  ~ThreadJob() {
    comms_.clear();
    OnEveryRank(static_cast<int>(clients_.size()),
                [&](int r) { (void)clients_[static_cast<size_t>(r)]->Goodbye(); });
    (void)server_->Shutdown();
  }
  collectives::Communicator& comm(int r) { return *comms_[static_cast<size_t>(r)]; }

 private:
  std::unique_ptr<coordination::CoordinationServer> server_;
  std::vector<std::unique_ptr<coordination::CoordinationClient>> clients_;
  std::vector<std::unique_ptr<collectives::Communicator>> comms_;
};

// The model's parameter values, concatenated in registration order.
inline std::vector<float> Weights(nn::Sequential& model) {
  std::vector<float> all;
  for (const nn::Parameter* p : model.parameters()) {
    all.insert(all.end(), p->value.values().begin(), p->value.values().end());
  }
  return all;
}

// The ClusterInfo of rank `rank` of `world` replicas: rank 0 is the chief,
// the others workers 0, 1, ...
inline runtime::ClusterInfo Replica(int rank, int world) {
  runtime::ClusterInfo info;
  info.rank = rank;
  info.world_size = world;
  info.is_chief = rank == 0;
  info.task_type = rank == 0 ? "chief" : "worker";
  info.task_index = rank == 0 ? 0 : rank - 1;
  return info;
}

// Fails Fit at the end of epoch `epoch` (after the backup before it ran).
class CrashAfter final : public Callback {
 public:
  explicit CrashAfter(int epoch) : epoch_(epoch) {}
  absl::Status OnEpochEnd(TrainContext&, const EpochLogs& logs) override {
    return logs.epoch == epoch_ ? absl::AbortedError("simulated crash") : absl::OkStatus();
  }

 private:
  int epoch_;
};

}  // namespace trainpkg::train::testing

#endif  // TRAINPKG_TESTS_TRAINER_RUNTIME_TRAIN_TEST_JOB_H_
