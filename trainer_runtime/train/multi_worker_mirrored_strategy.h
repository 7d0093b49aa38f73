// Synchronous data parallelism over the workers of a job (TensorFlow's
// MultiWorkerMirroredStrategy, PyTorch's DDP): every replica holds the whole
// model, rank 0's variables are broadcast at the start, and gradients,
// weighted by each replica's share of the global batch, are summed in
// buckets overlapped with backward (gradient_reducer.h), so every replica
// applies the same update. Global batch = the sum of the replicas' batches
// (they may differ in size).
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_MULTI_WORKER_MIRRORED_STRATEGY_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_MULTI_WORKER_MIRRORED_STRATEGY_H_

#include <map>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/collectives/communicator.h"
#include "trainer_runtime/collectives/cpu_communicator.h"
#include "trainer_runtime/coordination/coordination_options.h"
#include "trainer_runtime/coordination/coordinator.h"
#include "trainer_runtime/train/bucket_plan.h"
#include "trainer_runtime/train/strategy.h"

namespace trainpkg::train {

struct StrategyOptions {
  coordination::CoordinationOptions coordination;
  // Bounds the communicator's set-up and every collective (a live but stuck
  // peer).
  absl::Duration collective_timeout = absl::Seconds(300);
  // Shared memory when every rank is on one host, else Gloo; the replica's
  // TRAINPKG_COLLECTIVES (ClusterInfo::collectives) overrides it.
  collectives::CpuTransport transport = collectives::CpuTransport::kAuto;
  BucketOptions buckets;
};

class MultiWorkerMirroredStrategy final : public Strategy {
 public:
  // Starts this rank's coordination (rank 0 hosts the coordinator; returns
  // after every rank joined) and connects the host-memory communicator
  // (collectives/cpu_communicator.h; rank 0 logs which transport). Errors:
  // InvalidArgument for a ps or evaluator task or a bad TRAINPKG_COLLECTIVES;
  // the coordinator's and the transport's (Aborted naming ranks that never
  // came, ...).
  static absl::StatusOr<std::unique_ptr<MultiWorkerMirroredStrategy>> Create(
      const runtime::ClusterInfo& info, const StrategyOptions& options);

  // Over an existing communicator (not owned; must outlive the strategy),
  // e.g. ranks run as threads in a test. Shutdown() then does nothing.
  MultiWorkerMirroredStrategy(collectives::Communicator& comm, const BucketOptions& buckets)
      : comm_(&comm), buckets_(buckets) {}

  ~MultiWorkerMirroredStrategy() override;

  int rank() const override { return comm_->rank(); }
  int num_replicas() const override { return comm_->size(); }
  absl::Status BroadcastParameters(std::span<nn::Parameter* const> parameters) override;
  absl::StatusOr<std::unique_ptr<BucketedGradientReducer>> MakeGradientReducer(
      std::span<nn::Parameter* const> parameters) override;
  absl::StatusOr<std::vector<double>> GatherFromReplicas(std::span<const double> values) override;
  absl::Status Shutdown() override;

 private:
  MultiWorkerMirroredStrategy(std::unique_ptr<coordination::Coordinator> coordinator,
                              std::unique_ptr<collectives::Communicator> comm,
                              const BucketOptions& buckets);

  // GatherFromReplicas's prepared allreduce for one number of values.
  struct Gather {
    std::vector<float> buffer;  // every rank's slot
    std::unique_ptr<collectives::PreparedAllReduce> allreduce;
  };

  // Declared first: the communicator is destroyed before the coordinator,
  // the prepared gathers before the communicator.
  std::unique_ptr<coordination::Coordinator> coordinator_;
  std::unique_ptr<collectives::Communicator> owned_comm_;
  collectives::Communicator* comm_;
  BucketOptions buckets_;
  std::map<size_t, std::unique_ptr<Gather>> gathers_;  // by number of values
  bool shut_down_ = false;
};

// OneDeviceStrategy for a single process (world size 1), else
// MultiWorkerMirroredStrategy::Create.
absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(const runtime::ClusterInfo& info,
                                                       const StrategyOptions& options);

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_MULTI_WORKER_MIRRORED_STRATEGY_H_
