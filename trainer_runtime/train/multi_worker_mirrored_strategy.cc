#include "trainer_runtime/train/multi_worker_mirrored_strategy.h"

#include <algorithm>
#include <utility>

#include "base/log.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/collectives/cpu_communicator.h"

namespace trainpkg::train {

MultiWorkerMirroredStrategy::MultiWorkerMirroredStrategy(
    std::unique_ptr<coordination::Coordinator> coordinator,
    std::unique_ptr<collectives::Communicator> comm, const BucketOptions& buckets)
    : coordinator_(std::move(coordinator)),
      owned_comm_(std::move(comm)),
      comm_(owned_comm_.get()),
      buckets_(buckets) {}

MultiWorkerMirroredStrategy::~MultiWorkerMirroredStrategy() = default;

absl::StatusOr<std::unique_ptr<MultiWorkerMirroredStrategy>> MultiWorkerMirroredStrategy::Create(
    const runtime::ClusterInfo& info, const StrategyOptions& options) {
  if (!info.in_collective()) {
    return absl::InvalidArgumentError(fmt::format(
        "MultiWorkerMirroredStrategy: task {} {} is outside the collective (only chief and "
        "worker tasks train)",
        info.task_type, info.task_index));
  }
  TP_ASSIGN_OR_RETURN(std::unique_ptr<coordination::Coordinator> coordinator,
                      coordination::Coordinator::Start(info, options.coordination));
  collectives::CpuCommunicatorOptions cpu{.transport = options.transport,
                                          .gloo = collectives::GlooOptionsFor(info)};
  cpu.gloo.timeout = options.collective_timeout;
  if (!info.collectives.empty()) {
    absl::StatusOr<collectives::CpuTransport> transport =
        collectives::ParseCpuTransport(info.collectives);
    if (!transport.ok()) {
      (void)coordinator->Shutdown();
      return absl::InvalidArgumentError("TRAINPKG_COLLECTIVES: " +
                                        std::string(transport.status().message()));
    }
    cpu.transport = *transport;
  }
  absl::StatusOr<collectives::CpuCommunicator> comm =
      collectives::CreateCpuCommunicator(coordinator->client(), cpu);
  if (!comm.ok()) {
    // Say goodbye so that the others hear of this rank's error, not a crash.
    (void)coordinator->Shutdown();
    return comm.status();
  }
  if (info.rank == 0) {
    if (comm->why.empty()) {
      TP_LOG(INFO, "collectives: {} ({} ranks)", collectives::CpuTransportName(comm->transport),
             info.world_size);
    } else {
      TP_LOG(INFO, "collectives: gloo ({} ranks; {})", info.world_size, comm->why);
    }
  }
  return std::unique_ptr<MultiWorkerMirroredStrategy>(new MultiWorkerMirroredStrategy(
      std::move(coordinator), std::move(comm->comm), options.buckets));
}

absl::Status MultiWorkerMirroredStrategy::BroadcastParameters(
    std::span<nn::Parameter* const> parameters) {
  // One broadcast of all values, flattened in registration order.
  size_t total = 0;
  for (const nn::Parameter* p : parameters) total += static_cast<size_t>(p->value.num_elements());
  std::vector<float> flat(total);
  size_t offset = 0;
  for (const nn::Parameter* p : parameters) {
    p->value.CopyToHost(
        std::span<float>(flat).subspan(offset, static_cast<size_t>(p->value.num_elements())));
    offset += static_cast<size_t>(p->value.num_elements());
  }
  TP_RETURN_IF_ERROR(comm_->Broadcast(std::span<float>(flat), /*root=*/0));
  offset = 0;
  for (nn::Parameter* p : parameters) {
    p->value.CopyFromHost(
        std::span<const float>(flat).subspan(offset, static_cast<size_t>(p->value.num_elements())));
    offset += static_cast<size_t>(p->value.num_elements());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<BucketedGradientReducer>>
MultiWorkerMirroredStrategy::MakeGradientReducer(std::span<nn::Parameter* const> parameters) {
  return BucketedGradientReducer::Create(*comm_, parameters, buckets_);
}

absl::StatusOr<std::vector<double>> MultiWorkerMirroredStrategy::GatherFromReplicas(
    std::span<const double> values) {
  // An allgather as a prepared allreduce (sum) of a buffer holding every
  // rank's slot, each rank filling its own and zeros elsewhere (x + 0 is
  // exact): the same few sizes are gathered every epoch, and a prepared
  // allreduce of a small buffer is the lowest-latency collective there is.
  // Every rank gathers the same sizes in the same order, so they prepare
  // the same buffers in the same order.
  const size_t n = 2 * values.size();
  const size_t ranks = static_cast<size_t>(comm_->size());
  std::unique_ptr<Gather>& gather = gathers_[values.size()];
  if (gather == nullptr) {
    auto made = std::make_unique<Gather>();
    made->buffer.resize(n * ranks);
    TP_ASSIGN_OR_RETURN(made->allreduce, comm_->PrepareAllReduce(std::span<float>(made->buffer),
                                                                 collectives::ReduceOp::kSum));
    gather = std::move(made);
  }
  std::vector<float>& all = gather->buffer;
  std::fill(all.begin(), all.end(), 0.0f);
  // Each double as hi = float(v) and lo = float(v - hi): hi + lo recovers
  // about 48 bits of v.
  float* mine = all.data() + n * static_cast<size_t>(comm_->rank());
  for (size_t i = 0; i < values.size(); ++i) {
    const float hi = static_cast<float>(values[i]);
    mine[2 * i] = hi;
    mine[2 * i + 1] = static_cast<float>(values[i] - static_cast<double>(hi));
  }
  TP_RETURN_IF_ERROR(gather->allreduce->Run());
  std::vector<double> result(values.size() * ranks);
  for (size_t k = 0; k < result.size(); ++k) {
    result[k] = static_cast<double>(all[2 * k]) + static_cast<double>(all[2 * k + 1]);
  }
  return result;
}

absl::Status MultiWorkerMirroredStrategy::Shutdown() {
  if (coordinator_ == nullptr || shut_down_) return absl::OkStatus();
  shut_down_ = true;
  return coordinator_->Shutdown();
}

absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(const runtime::ClusterInfo& info,
                                                       const StrategyOptions& options) {
  if (info.in_collective() && info.world_size == 1) return std::make_unique<OneDeviceStrategy>();
  TP_ASSIGN_OR_RETURN(auto strategy, MultiWorkerMirroredStrategy::Create(info, options));
  return std::unique_ptr<Strategy>(std::move(strategy));
}

}  // namespace trainpkg::train
