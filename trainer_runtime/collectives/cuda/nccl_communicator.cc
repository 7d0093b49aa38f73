#include "trainer_runtime/collectives/cuda/nccl_communicator.h"

#include <nccl.h>

#include <algorithm>
#include <string>
#include <utility>

#include "fmt/format.h"

namespace trainpkg::collectives {
namespace {

constexpr absl::Duration kPoll = absl::Milliseconds(1);
// How long a wait spins on the stream before it starts sleeping.
constexpr absl::Duration kSpin = absl::Microseconds(200);

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(coordination::CoordinationClient& client, cudaStream_t stream,
                   absl::Duration timeout)
      : client_(client), stream_(stream), timeout_(timeout) {}

  ~NcclCommunicator() override {
    // Destroy finishes outstanding work first, which never completes once a peer
    // is gone; a broken communicator is aborted instead.
    if (comm_ != nullptr) broken_.ok() ? ncclCommDestroy(comm_) : ncclCommAbort(comm_);
    if (scratch_ != nullptr) cudaFree(scratch_);
  }

  absl::Status Init(const std::string& name) {
    if (cudaMalloc(&scratch_, sizeof(float)) != cudaSuccess) {
      return absl::FailedPreconditionError(fmt::format("CUDA cannot allocate on this rank: {}",
                                                       cudaGetErrorString(cudaGetLastError())));
    }
    // Every rank must init with the same unique id (it holds rank 0's bootstrap
    // address); the coordination store carries it to the others.
    const std::string key = fmt::format("nccl/{}/id", name);
    ncclUniqueId id;
    if (client_.rank() == 0) {
      if (ncclResult_t r = ncclGetUniqueId(&id); r != ncclSuccess) {
        return absl::FailedPreconditionError(
            fmt::format("ncclGetUniqueId: {}", ncclGetErrorString(r)));
      }
      if (absl::Status s = client_.Set(key, std::string(id.internal, sizeof(id.internal)));
          !s.ok()) {
        return s;
      }
    } else {
      auto value = client_.Get(key, timeout_);
      if (!value.ok()) return value.status();
      if (value->size() != sizeof(id.internal)) {
        return absl::InternalError(
            fmt::format("'{}' holds {} bytes, not an NCCL id", key, value->size()));
      }
      value->copy(id.internal, sizeof(id.internal));
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    // Non-blocking: init and every collective return at once (ncclInProgress),
    // so the waits below can watch the job and the deadline and abort. A
    // blocking NCCL call that waits for a dead peer cannot be interrupted.
    config.blocking = 0;
    return Check("ncclCommInitRankConfig",
                 ncclCommInitRankConfig(&comm_, client_.world_size(), id, client_.rank(), &config));
  }

  int rank() const override { return client_.rank(); }
  int size() const override { return client_.world_size(); }

  absl::Status AllReduce(std::span<float> data, ReduceOp op) override {
    if (data.empty()) return absl::OkStatus();
    return Run("allreduce", [&] {
      return ncclAllReduce(data.data(), data.data(), data.size(), ncclFloat,
                           op == ReduceOp::kMean ? ncclAvg : ncclSum, comm_, stream_);
    });
  }

  absl::Status AllReduce(std::span<double> data, ReduceOp op) override {
    if (data.empty()) return absl::OkStatus();
    return Run("allreduce", [&] {
      return ncclAllReduce(data.data(), data.data(), data.size(), ncclDouble,
                           op == ReduceOp::kMean ? ncclAvg : ncclSum, comm_, stream_);
    });
  }

  absl::Status Broadcast(std::span<float> data, int root) override {
    if (root < 0 || root >= size()) {
      return absl::InvalidArgumentError(
          fmt::format("broadcast root {} is outside the {} ranks", root, size()));
    }
    if (data.empty()) return absl::OkStatus();
    return Run("broadcast", [&] {
      return ncclBroadcast(data.data(), data.data(), data.size(), ncclFloat, root, comm_, stream_);
    });
  }

  absl::Status AllGather(std::span<const float> input, std::span<float> output) override {
    if (output.size() != input.size() * static_cast<size_t>(size())) {
      return absl::InvalidArgumentError(fmt::format(
          "allgather of {} floats from {} ranks needs {} output floats, got {}", input.size(),
          size(), input.size() * static_cast<size_t>(size()), output.size()));
    }
    if (input.empty()) return absl::OkStatus();
    return Run("allgather", [&] {
      return ncclAllGather(input.data(), output.data(), input.size(), ncclFloat, comm_, stream_);
    });
  }

  // NCCL has no barrier; an allreduce of one float completes on a rank only
  // once every rank has contributed.
  absl::Status Barrier() override {
    return Run("barrier", [&] {
      return ncclAllReduce(scratch_, scratch_, 1, ncclFloat, ncclSum, comm_, stream_);
    });
  }

 private:
  // Enqueues one operation, then waits for the stream while watching NCCL's
  // asynchronous error, the job's health and the deadline.
  template <typename Enqueue>
  absl::Status Run(std::string_view what, Enqueue enqueue) {
    if (!broken_.ok()) return broken_;
    if (absl::Status s = Check(what, enqueue()); !s.ok()) return s;
    const absl::Time start = absl::Now();
    const absl::Time deadline = start + timeout_;
    while (true) {
      const cudaError_t ready = cudaStreamQuery(stream_);
      if (ready == cudaSuccess) return absl::OkStatus();
      if (ready != cudaErrorNotReady) {
        return Break(
            absl::InternalError(fmt::format("{}: CUDA: {}", what, cudaGetErrorString(ready))));
      }
      // A gradient bucket's allreduce takes tens of microseconds: spin
      // first, then sleep in steps growing with the wait, up to kPoll.
      const absl::Duration waited = absl::Now() - start;
      if (waited < kSpin) continue;
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm_, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        return Break(Explain(what, ncclGetErrorString(async)));
      }
      if (absl::Status job = client_.JobStatus(); !job.ok()) {
        return Break(absl::AbortedError(fmt::format("{}: {}", what, std::string(job.message()))));
      }
      if (absl::Now() > deadline) {
        return Break(absl::DeadlineExceededError(
            fmt::format("{} did not finish within {}", what, absl::FormatDuration(timeout_))));
      }
      absl::SleepFor(std::min(kPoll, waited / 8));
    }
  }

  // Waits out a non-blocking call's ncclInProgress; errors abort.
  absl::Status Check(std::string_view what, ncclResult_t result) {
    const absl::Time deadline = absl::Now() + timeout_;
    while (result == ncclInProgress) {
      if (absl::Now() > deadline) {
        return Break(absl::DeadlineExceededError(
            fmt::format("{} did not finish within {}", what, absl::FormatDuration(timeout_))));
      }
      if (absl::Status job = client_.JobStatus(); !job.ok()) {
        return Break(absl::AbortedError(fmt::format("{}: {}", what, std::string(job.message()))));
      }
      absl::SleepFor(kPoll);
      ncclCommGetAsyncError(comm_, &result);
    }
    if (result != ncclSuccess) return Break(Explain(what, ncclGetErrorString(result)));
    return absl::OkStatus();
  }

  // An NCCL error is usually a peer's failure: let the coordinator name it.
  absl::Status Explain(std::string_view what, const char* nccl_error) {
    absl::Status job = client_.WaitForJobFailure(client_.FailureDetectionBound());
    if (!job.ok())
      return absl::AbortedError(fmt::format("{}: {}", what, std::string(job.message())));
    return absl::UnavailableError(fmt::format("{} on rank {}: NCCL: {}", what, rank(), nccl_error));
  }

  absl::Status Break(absl::Status status) {
    if (broken_.ok()) {
      broken_ = std::move(status);
      if (comm_ != nullptr) ncclCommAbort(comm_);
      comm_ = nullptr;
    }
    return broken_;
  }

  coordination::CoordinationClient& client_;
  cudaStream_t stream_;
  const absl::Duration timeout_;
  ncclComm_t comm_ = nullptr;
  float* scratch_ = nullptr;
  absl::Status broken_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Communicator>> CreateNcclCommunicator(
    coordination::CoordinationClient& client, cudaStream_t stream, const NcclOptions& options) {
  auto comm = std::make_unique<NcclCommunicator>(client, stream, options.timeout);
  if (absl::Status s = comm->Init(options.name); !s.ok()) return s;
  return comm;
}

}  // namespace trainpkg::collectives
