// The GPU Communicator: NCCL on device buffers (built only with CUDA).
//
//   cudaStream_t stream = ...;   // with the rank's device current
//   auto comm = CreateNcclCommunicator(coordinator->client(), stream, {});
//   comm->AllReduce(std::span(device_ptr, n), ReduceOp::kMean);
//
// Rank 0 draws the NCCL unique id and publishes it through the coordination
// key-value store ("nccl/<name>/id"); every rank then joins with
// ncclCommInitRankConfig in non-blocking mode. Each operation is enqueued on
// `stream` and waited for: while it runs, NCCL's asynchronous error and the
// job's health are polled, and on an error, a job failure or the timeout the
// communicator is aborted (ncclCommAbort) and the Communicator contract's
// Status is returned (Aborted naming the failed rank when the coordinator
// knows it). Spans hold device pointers.
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_CUDA_NCCL_COMMUNICATOR_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_CUDA_NCCL_COMMUNICATOR_H_

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "trainer_runtime/collectives/communicator.h"
#include "trainer_runtime/coordination/coordination_client.h"

namespace trainpkg::collectives {

struct NcclOptions {
  // Bounds the initialisation and every operation.
  absl::Duration timeout = absl::Seconds(300);
  // Keys live under "nccl/<name>/". REQUIRES: unique per job.
  std::string name = "default";
};

// REQUIRES: the rank's CUDA device is current; `client` is registered and,
// like `stream`, outlives the communicator. FailedPrecondition when CUDA or
// NCCL cannot start here (no device, no driver), Aborted/DeadlineExceeded as
// for the operations.
absl::StatusOr<std::unique_ptr<Communicator>> CreateNcclCommunicator(
    coordination::CoordinationClient& client, cudaStream_t stream, const NcclOptions& options);

}  // namespace trainpkg::collectives

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_CUDA_NCCL_COMMUNICATOR_H_
