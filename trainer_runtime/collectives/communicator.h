// Collective operations among the ranks of a job, whatever carries them
// (Gloo over TCP for host memory, NCCL for device memory).
//
//   std::vector<float> grads = ...;
//   TP_RETURN_IF_ERROR(comm->AllReduce(std::span(grads), ReduceOp::kMean));
//
// Every rank must call the same operations in the same order with the same
// sizes (and root); an operation returns once this rank's part is complete.
// Buffers are host memory for a CPU communicator and device memory for a GPU
// one.
//
// Errors: Aborted when the job failed (a peer died, hung or never joined; the
// message names it, as the coordinator reports it), DeadlineExceeded or
// Unavailable when the transport timed out or broke without the coordinator
// knowing why, InvalidArgument for bad sizes or roots. After any error other
// than InvalidArgument the communicator is broken: later calls return the
// same error.
//
// A buffer allreduced many times (a model's gradient bucket, every step) can
// be prepared once (PrepareAllReduce, MPI 4's persistent MPI_Allreduce_init):
// the transport then sets up its buffers and peers' slots once, which is
// what makes small, latency-bound allreduces fast.
//
// Thread safety: one operation at a time per communicator (running a prepared
// allreduce counts as one); use one communicator per thread that issues
// collectives.
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_COMMUNICATOR_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_COMMUNICATOR_H_

#include <memory>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trainpkg::collectives {

enum class ReduceOp {
  kSum,
  kMean,  // the sum divided by size(), rounded once
};

// An allreduce of one buffer, set up by Communicator::PrepareAllReduce.
class PreparedAllReduce {
 public:
  virtual ~PreparedAllReduce() = default;
  // The prepared buffer <- the prepared op over every rank's buffer, in
  // place; errors as Communicator::AllReduce. Every rank runs its prepared
  // allreduces in the same order as its other operations.
  virtual absl::Status Run() = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;

  // data[i] <- op over every rank's data[i], in place.
  virtual absl::Status AllReduce(std::span<float> data, ReduceOp op) = 0;
  // The same in double precision (sums of many replicas' metrics, values a
  // float would round). Same contract and order rules as the float one.
  virtual absl::Status AllReduce(std::span<double> data, ReduceOp op) = 0;
  // An allreduce of `data` to run many times; Run() then does what
  // AllReduce(data, op) does. Preparing is collective in that every rank
  // prepares the same sizes in the same order (no message is exchanged).
  // `data` and the communicator must outlive the result. The default runs
  // AllReduce at every Run; transports override it where setting up ahead
  // pays (Gloo, below 256 KiB). Errors: those of a broken communicator.
  virtual absl::StatusOr<std::unique_ptr<PreparedAllReduce>> PrepareAllReduce(std::span<float> data,
                                                                              ReduceOp op);
  // data <- root's data on every rank. REQUIRES: 0 <= root < size().
  virtual absl::Status Broadcast(std::span<float> data, int root) = 0;
  // output[r * input.size() + i] <- rank r's input[i].
  // REQUIRES: output.size() == input.size() * size(); they do not overlap.
  virtual absl::Status AllGather(std::span<const float> input, std::span<float> output) = 0;
  // Returns once every rank has entered the barrier.
  virtual absl::Status Barrier() = 0;
};

}  // namespace trainpkg::collectives

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_COMMUNICATOR_H_
