// A worker's (or the chief's) view of the variables on the parameter
// servers: pull values into a model, push its gradients, and the chief's
// set-up, checkpoint and shutdown calls. Each call talks to every ps task in
// parallel, one stream per task, in chunks of options.chunk_bytes.
//
//   auto client = VariableClient::Create(plan, info.ps_addresses);
//   TP_RETURN_IF_ERROR((*client)->Pull(model.parameters()));
//   ... forward, backward ...
//   TP_RETURN_IF_ERROR((*client)->Push(model.parameters()));
//
// Errors name the ps task: a task that cannot be reached (connection lost,
// deadline) is Aborted "ps 1 (127.0.0.1:4242) unreachable: ..." (Aborted, not
// Unavailable, so a worker that passes it on is not taken for a dead
// worker); the task's own errors keep their code with the same prefix.
// Thread-safe; bytes_sent()/bytes_received() count every message's wire
// size (serialized + gRPC's 5-byte prefix) on this client.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_VARIABLE_CLIENT_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_VARIABLE_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "trainer_runtime/nn/parameter.h"
#include "trainer_runtime/ps/optimizer_config.h"
#include "trainer_runtime/ps/shard_plan.h"

namespace trainpkg::ps {

struct VariableClientOptions {
  int64_t chunk_bytes = 256 << 10;
  // Per call (a whole pull or push).
  absl::Duration call_timeout = absl::Seconds(30);
  // How long Configure waits for a ps task to come up.
  absl::Duration connect_timeout = absl::Seconds(60);
  // Sent with every call (ClusterInfo::job_secret); "" sends none.
  std::string job_secret;
};

// Every variable's values and optimizer state, as the plan orders them.
struct VariableState {
  std::vector<std::vector<float>> values;              // per variable
  std::vector<std::vector<std::vector<float>>> slots;  // per variable, per slot
  std::vector<int64_t> iterations;                     // per shard
};

class VariableClient {
 public:
  // InvalidArgument when the number of addresses is not plan.num_ps().
  static absl::StatusOr<std::unique_ptr<VariableClient>> Create(
      ShardPlan plan, std::vector<std::string> ps_addresses, VariableClientOptions options = {});
  ~VariableClient();

  const ShardPlan& plan() const { return plan_; }

  // Chief: gives every task its shards and the optimizer, waiting up to
  // connect_timeout for the task to listen.
  absl::Status Configure(const OptimizerConfig& optimizer);
  // Chief: overwrites values, optimizer slots and iteration counts (state
  // as PullState returns it, or values only with no slots and zero
  // iterations for a fresh start). InvalidArgument when it does not fit the
  // plan.
  absl::Status Assign(const VariableState& state);
  // Values into each parameter's value. REQUIRES: parameters match the
  // plan's variables (count, sizes).
  absl::Status Pull(std::span<nn::Parameter* const> parameters);
  // Each parameter's grad as one optimizer step on every shard.
  // REQUIRES: as Pull.
  absl::Status Push(std::span<nn::Parameter* const> parameters);
  // Values, optimizer slots and iterations (for a checkpoint).
  absl::StatusOr<VariableState> PullState();
  // Tells every task to stop; the first error, others still told.
  absl::Status ShutdownAll();

  int64_t bytes_sent() const { return sent_.load(); }
  int64_t bytes_received() const { return received_.load(); }

 private:
  struct Task;
  VariableClient(ShardPlan plan, std::vector<std::unique_ptr<Task>> tasks,
                 VariableClientOptions options);
  // Runs fn(ps) for every task in parallel; the lowest task's error.
  absl::Status ForEachTask(const std::function<absl::Status(int)>& fn);
  absl::Status TaskError(int ps, const absl::Status& status) const;

  ShardPlan plan_;
  std::vector<std::unique_ptr<Task>> tasks_;
  VariableClientOptions options_;
  std::atomic<int64_t> sent_{0};
  std::atomic<int64_t> received_{0};
};

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_VARIABLE_CLIENT_H_
