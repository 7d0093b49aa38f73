// How a training loop is spread over replicas (tf.distribute.Strategy's
// role): the same Fit code runs on one device (OneDeviceStrategy) or on every
// worker of a multi-worker job (MultiWorkerMirroredStrategy).
//
//   auto strategy = MakeStrategy(*info, {});          // from ClusterInfo
//   auto history = Fit(**strategy, model, *optimizer, train, &val, options);
//   TP_RETURN_IF_ERROR((*strategy)->Shutdown());
//
// Errors of the collective calls are the Communicator's (Aborted naming the
// failed rank, ...). Not thread-safe: one training loop per strategy.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_STRATEGY_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_STRATEGY_H_

#include <memory>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/nn/parameter.h"
#include "trainer_runtime/train/gradient_reducer.h"

namespace trainpkg::train {

class Strategy {
 public:
  virtual ~Strategy() = default;

  virtual int rank() const = 0;
  virtual int num_replicas() const = 0;
  // The replica that writes the model, checkpoints and reports: rank 0.
  bool is_chief() const { return rank() == 0; }

  // Sets every replica's parameter values to rank 0's.
  virtual absl::Status BroadcastParameters(std::span<nn::Parameter* const> parameters) = 0;

  // A reducer averaging these parameters' gradients across replicas,
  // weighted by batch size, or nullptr when there is only one replica
  // (nothing to average). Every replica calls it with the same parameter
  // shapes. Errors: the communicator's.
  virtual absl::StatusOr<std::unique_ptr<BucketedGradientReducer>> MakeGradientReducer(
      std::span<nn::Parameter* const> parameters) = 0;

  // Every replica's `values`, rank by rank: result[r * values.size() + i] is
  // rank r's values[i]. Doubles travel as two floats (high and low part), so
  // they keep about 48 significant bits: integer counts up to 2^48 are exact.
  // The result is identical on every replica.
  virtual absl::StatusOr<std::vector<double>> GatherFromReplicas(
      std::span<const double> values) = 0;

  // Ends the job's coordination (for a multi-worker strategy: goodbye, and on
  // the chief waiting for the others); the job's failure if it had one.
  virtual absl::Status Shutdown() = 0;
};

// values[i] summed over replicas (in rank order, so the same on every
// replica).
absl::StatusOr<std::vector<double>> SumAcrossReplicas(Strategy& strategy,
                                                      std::span<const double> values);

// A strategy for a single process with no peers.
class OneDeviceStrategy final : public Strategy {
 public:
  int rank() const override { return 0; }
  int num_replicas() const override { return 1; }
  absl::Status BroadcastParameters(std::span<nn::Parameter* const>) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<BucketedGradientReducer>> MakeGradientReducer(
      std::span<nn::Parameter* const>) override {
    return nullptr;
  }
  absl::StatusOr<std::vector<double>> GatherFromReplicas(std::span<const double> values) override {
    return std::vector<double>(values.begin(), values.end());
  }
  absl::Status Shutdown() override { return absl::OkStatus(); }
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_STRATEGY_H_
