// One rank's connection to the job's coordinator (CoordinationServer).
//
//   auto client = CoordinationClient::Create(info.coordinator_address, rank, RankNames(info),
//   options); TP_RETURN_IF_ERROR((*client)->Register());   // rendezvous: returns when all ranks
//   joined
//   (*client)->Set("nccl/id", id);  auto id = (*client)->Get("nccl/id", absl::Seconds(30));
//   (*client)->Barrier("epoch", absl::Minutes(5));
//   (*client)->Goodbye();                        // at the end, so nobody sees a failure
//
// From Register on, a background thread heartbeats every
// options.heartbeat_interval. The job fails, and every call returns Aborted
// with a message naming the rank at fault, when:
//   - the coordinator reports a failure (a rank missed its heartbeats or did
//     not join in time: "rank 2 (worker 1, 127.0.0.1:41234) missed heartbeats
//     for 10.2s (timeout 10s)"), or
//   - the coordinator itself cannot be reached for options.heartbeat_timeout
//     (before the first contact: options.rendezvous_timeout).
// Blocking calls in flight are cancelled when that happens, so no call
// outlives the failure by more than a heartbeat. Other errors:
// DeadlineExceeded when a wait times out, FailedPrecondition when a barrier
// can never complete because a rank already said goodbye, Unavailable when
// the coordinator is shutting down, InvalidArgument for bad arguments.
//
// Destroying a client without Goodbye stops its heartbeats: to the others it
// looks like a crashed rank. Thread-safe; calls may run concurrently.
#ifndef TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATION_CLIENT_H_
#define TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATION_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "trainer_runtime/coordination/coordination_options.h"

namespace trainpkg::coordination {

class CoordinationClient {
 public:
  // A client for `rank` of a job of rank_names.size() ranks whose
  // coordinator listens at `coordinator_address`. Does no I/O.
  // InvalidArgument when rank is outside [0, rank_names.size()).
  static absl::StatusOr<std::unique_ptr<CoordinationClient>> Create(
      std::string_view coordinator_address, int rank, std::vector<std::string> rank_names,
      const CoordinationOptions& options);

  virtual ~CoordinationClient() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // The name of `rank` in messages ("rank 2 (worker 1, 127.0.0.1:41234)").
  // REQUIRES: 0 <= rank < world_size().
  virtual const std::string& RankName(int rank) const = 0;

  // Starts heartbeats, joins the job and waits until every rank has joined
  // (waiting for the coordinator to come up, within the rendezvous timeout).
  // REQUIRES: called once, before the calls below.
  virtual absl::Status Register() = 0;

  // The key-value store. Values are bytes.
  virtual absl::Status Set(std::string_view key, std::string_view value) = 0;
  // Waits until `key` is set; DeadlineExceeded after `timeout`.
  virtual absl::StatusOr<std::string> Get(std::string_view key, absl::Duration timeout) = 0;
  // Adds `delta` to the integer at `key` (absent counts as 0); returns the
  // new value. All ranks' Adds to one key are atomic. OutOfRange (the key
  // keeps its value) when the sum does not fit in an int64.
  virtual absl::StatusOr<int64_t> Add(std::string_view key, int64_t delta) = 0;

  // Returns when every rank has entered this round of barrier `name`.
  // Barriers are reusable: the n-th call of each rank meets the n-th of
  // every other.
  virtual absl::Status Barrier(std::string_view name, absl::Duration timeout) = 0;

  // How long after a rank's death this client knows of it at most: the
  // heartbeat timeout plus the coordinator's check period and two heartbeats.
  virtual absl::Duration FailureDetectionBound() const = 0;

  // OK while the job is healthy as far as this client knows; else the failure.
  virtual absl::Status JobStatus() const = 0;
  // Waits up to `timeout` for the job to be found failed; returns the
  // failure, or OK if none came. Used to explain a peer's broken connection.
  virtual absl::Status WaitForJobFailure(absl::Duration timeout) const = 0;

  // Tells the coordinator this rank has finished and stops heartbeats.
  // Idempotent; later calls other than JobStatus fail with FailedPrecondition.
  virtual absl::Status Goodbye() = 0;
};

}  // namespace trainpkg::coordination

#endif  // TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATION_CLIENT_H_
