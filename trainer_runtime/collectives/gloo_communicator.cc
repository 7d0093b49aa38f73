#include "trainer_runtime/collectives/gloo_communicator.h"

#include <csignal>
#include <cstdint>
#include <exception>
#include <functional>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "gloo/allgather.h"
#include "gloo/allreduce.h"
#include "gloo/allreduce_halving_doubling.h"
#include "gloo/barrier.h"
#include "gloo/broadcast.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/prefix_store.h"
#include "gloo/transport/tcp/device.h"
#include "trainer_runtime/collectives/internal/gloo_exchange_allreduce.h"
#include "trainer_runtime/collectives/internal/gloo_store.h"

namespace trainpkg::collectives {
namespace {

// Below this many bytes BCube's 2·log(p) steps beat the ring's 2·(p-1), and
// a prepared allreduce uses halving-doubling on preregistered buffers, or
// the one-step exchange where (p-1) times the buffer is below it too.
constexpr size_t kRingMinBytes = 256 * 1024;

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

// Gloo's TCP pairs write with plain writev, so a peer that dies mid-collective
// would kill this process with SIGPIPE before Gloo can report EPIPE and we can
// name the peer. A handler the program installed itself is left alone.
void IgnoreSigpipeUnlessHandled() {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) != 0) return;
  if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO) != 0) return;
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
}

class GlooCommunicator final : public Communicator {
 public:
  GlooCommunicator(coordination::CoordinationClient& client,
                   std::shared_ptr<gloo::rendezvous::Context> context, absl::Duration timeout)
      : client_(client),
        context_(std::move(context)),
        timeout_(absl::ToChronoMilliseconds(timeout)) {}

  int rank() const override { return context_->rank; }
  int size() const override { return context_->size; }

  absl::Status AllReduce(std::span<float> data, ReduceOp op) override {
    return AllReduceOf(data, op);
  }
  absl::Status AllReduce(std::span<double> data, ReduceOp op) override {
    return AllReduceOf(data, op);
  }

  template <typename T>
  absl::Status AllReduceOf(std::span<T> data, ReduceOp op) {
    if (data.empty()) return absl::OkStatus();
    absl::Status status = Guard("allreduce", [&] {
      gloo::AllreduceOptions opts(context_);
      opts.setOutput(data.data(), data.size());
      opts.setReduceFunction(static_cast<ReduceFn>(&gloo::sum<T>));
      opts.setAlgorithm(data.size_bytes() >= kRingMinBytes
                            ? gloo::AllreduceOptions::Algorithm::RING
                            : gloo::AllreduceOptions::Algorithm::BCUBE);
      // Every rank issues the same operations in the same order, so the counters
      // agree; a fresh tag per operation keeps a late message of one operation
      // from being matched by the next.
      opts.setTag(next_tag_++);
      opts.setTimeout(timeout_);
      gloo::allreduce(opts);
    });
    if (status.ok()) FinishReduce(data, op);
    return status;
  }

  // Small buffers: built once with send and receive buffers registered on
  // the pairs, so each message goes straight into the peer's registered
  // buffer, where gloo::allreduce (unbound buffers) first exchanges a
  // send/receive-ready notification per message and so waits for more round
  // trips and more wake-ups of Gloo's I/O thread. The one-step exchange
  // (internal/gloo_exchange_allreduce.h) where (p-1) buffers fit under
  // kRingMinBytes, else Gloo's halving-doubling; large buffers keep the ring
  // of AllReduce, which pipelines segments.
  absl::StatusOr<std::unique_ptr<PreparedAllReduce>> PrepareAllReduce(std::span<float> data,
                                                                      ReduceOp op) override;

  absl::Status Broadcast(std::span<float> data, int root) override {
    if (root < 0 || root >= size()) {
      return absl::InvalidArgumentError(
          fmt::format("broadcast root {} is outside the {} ranks", root, size()));
    }
    if (data.empty()) return absl::OkStatus();
    return Guard("broadcast", [&] {
      gloo::BroadcastOptions opts(context_);
      opts.setOutput(data.data(), data.size());
      opts.setRoot(root);
      opts.setTag(next_tag_++);
      opts.setTimeout(timeout_);
      gloo::broadcast(opts);
    });
  }

  absl::Status AllGather(std::span<const float> input, std::span<float> output) override {
    if (output.size() != input.size() * static_cast<size_t>(size())) {
      return absl::InvalidArgumentError(fmt::format(
          "allgather of {} floats from {} ranks needs {} output floats, got {}", input.size(),
          size(), input.size() * static_cast<size_t>(size()), output.size()));
    }
    if (input.empty()) return absl::OkStatus();
    return Guard("allgather", [&] {
      gloo::AllgatherOptions opts(context_);
      // Gloo only reads the input; its API takes a non-const pointer.
      opts.setInput(const_cast<float*>(input.data()), input.size());
      opts.setOutput(output.data(), output.size());
      opts.setTag(next_tag_++);
      opts.setTimeout(timeout_);
      gloo::allgather(opts);
    });
  }

  absl::Status Barrier() override {
    return Guard("barrier", [&] {
      gloo::BarrierOptions opts(context_);
      opts.setTag(next_tag_++);
      opts.setTimeout(timeout_);
      gloo::barrier(opts);
    });
  }

  // The two below serve GlooPreparedAllReduce too.

  // data /= size() for kMean, after the sum.
  template <typename T>
  void FinishReduce(std::span<T> data, ReduceOp op) const {
    if (op != ReduceOp::kMean) return;
    const T n = static_cast<T>(size());
    for (T& x : data) x /= n;
  }

  // Runs one Gloo operation, turning its exceptions into the Status the
  // contract promises.
  absl::Status Guard(std::string_view what, const std::function<void()>& op) {
    if (!broken_.ok()) return broken_;
    if (absl::Status job = client_.JobStatus(); !job.ok()) {
      broken_ = absl::AbortedError(fmt::format("{}: {}", what, std::string(job.message())));
      return broken_;
    }
    try {
      op();
      return absl::OkStatus();
    } catch (const std::exception& e) {
      // A peer's connection broke or timed out: let the coordinator say why.
      // The broken socket is usually seen before the coordinator has declared the
      // peer dead; waiting up to the detection bound lets the error name the
      // rank that failed instead of just "connection reset".
      absl::Status job = client_.WaitForJobFailure(client_.FailureDetectionBound());
      if (!job.ok()) {
        broken_ = absl::AbortedError(fmt::format("{}: {}", what, std::string(job.message())));
      } else {
        broken_ = absl::UnavailableError(fmt::format("{} on rank {}: {}", what, rank(), e.what()));
      }
      return broken_;
    }
  }

 private:
  coordination::CoordinationClient& client_;
  std::shared_ptr<gloo::rendezvous::Context> context_;
  const std::chrono::milliseconds timeout_;
  uint32_t next_tag_ = 0;
  absl::Status broken_;
};

class GlooPreparedAllReduce final : public PreparedAllReduce {
 public:
  // `run` runs the algorithm that `algorithm` owns.
  GlooPreparedAllReduce(GlooCommunicator& comm, std::span<float> data, ReduceOp op,
                        std::shared_ptr<void> algorithm, std::function<void()> run)
      : comm_(comm), data_(data), op_(op), algorithm_(std::move(algorithm)), run_(std::move(run)) {}

  absl::Status Run() override {
    absl::Status status = comm_.Guard("allreduce", run_);
    if (status.ok()) comm_.FinishReduce(data_, op_);
    return status;
  }

 private:
  GlooCommunicator& comm_;
  const std::span<float> data_;
  const ReduceOp op_;
  const std::shared_ptr<void> algorithm_;
  const std::function<void()> run_;
};

absl::StatusOr<std::unique_ptr<PreparedAllReduce>> GlooCommunicator::PrepareAllReduce(
    std::span<float> data, ReduceOp op) {
  if (data.empty() || data.size_bytes() >= kRingMinBytes) {
    return Communicator::PrepareAllReduce(data, op);
  }
  std::shared_ptr<void> algorithm;
  std::function<void()> run;
  // Registers buffers on the pairs; sends nothing.
  TP_RETURN_IF_ERROR(Guard("preparing an allreduce", [&] {
    // The exchange sends the whole buffer to every peer in one step, which pays
    // only while p-1 copies are still small.
    if (data.size_bytes() * static_cast<size_t>(size() - 1) < kRingMinBytes) {
      auto exchange = std::make_shared<internal::GlooExchangeAllReduce>(context_, data);
      run = [a = exchange.get()] { a->Run(); };
      algorithm = std::move(exchange);
    } else {
      auto halving_doubling = std::make_shared<gloo::AllreduceHalvingDoubling<float>>(
          context_, std::vector<float*>{data.data()}, static_cast<int>(data.size()));
      run = [a = halving_doubling.get()] { a->run(); };
      algorithm = std::move(halving_doubling);
    }
  }));
  return std::make_unique<GlooPreparedAllReduce>(*this, data, op, std::move(algorithm),
                                                 std::move(run));
}

}  // namespace

GlooOptions GlooOptionsFor(const runtime::ClusterInfo& info) {
  GlooOptions options;
  // The transport binds the address the cluster spec gives this rank, so peers
  // reach it on the interface they were told of, not whichever one the
  // hostname resolves to.
  options.hostname.clear();
  if (info.rank >= 0 && static_cast<size_t>(info.rank) < info.worker_addresses.size()) {
    const std::string& address = info.worker_addresses[static_cast<size_t>(info.rank)];
    options.hostname = address.substr(0, address.rfind(':'));
  }
  return options;
}

absl::StatusOr<std::unique_ptr<Communicator>> CreateGlooCommunicator(
    coordination::CoordinationClient& client, const GlooOptions& options) {
  IgnoreSigpipeUnlessHandled();
  internal::GlooStore store(client, options.timeout);
  gloo::rendezvous::PrefixStore prefixed(fmt::format("gloo/{}", options.name), store);
  auto context = std::make_shared<gloo::rendezvous::Context>(client.rank(), client.world_size());
  context->setTimeout(absl::ToChronoMilliseconds(options.timeout));
  std::shared_ptr<gloo::transport::Device> device;
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = options.hostname;
    device = gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        fmt::format("gloo cannot use host '{}': {}", options.hostname, e.what()));
  }
  try {
    context->connectFullMesh(prefixed, device);
  } catch (const std::exception& e) {
    // The store's own error (which key timed out, or the coordinator gone) says
    // more than the exception Gloo raises from it.
    if (!store.error().ok()) return store.error();
    absl::Status job = client.WaitForJobFailure(client.FailureDetectionBound());
    if (!job.ok()) return job;
    return absl::UnavailableError(
        fmt::format("gloo rendezvous of rank {}: {}", client.rank(), e.what()));
  }
  return std::make_unique<GlooCommunicator>(client, std::move(context), options.timeout);
}

}  // namespace trainpkg::collectives
