// The coordinator's state machine, free of gRPC: who has joined, who is
// alive, the key-value store and the barriers. The gRPC service forwards to
// it; tests drive it directly. Thread-safe; blocking calls wait on a mutex
// condition and return early when the job fails or the state shuts down.
#ifndef TRAINPKG_TRAINER_RUNTIME_COORDINATION_INTERNAL_COORDINATION_STATE_H_
#define TRAINPKG_TRAINER_RUNTIME_COORDINATION_INTERNAL_COORDINATION_STATE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trainpkg::coordination::internal {

struct StateOptions {
  int world_size = 1;
  std::vector<std::string> rank_names;  // indexed by rank; size world_size
  absl::Duration heartbeat_timeout = absl::Seconds(10);
  absl::Duration rendezvous_timeout = absl::Seconds(120);
  absl::Time start;  // when the rendezvous clock started
};

// Errors of every call: InvalidArgument for a rank outside [0, world_size);
// Aborted with the job's failure once the job has failed (the message names
// the rank at fault); Unavailable once Shutdown() was called;
// DeadlineExceeded when a wait times out.
class CoordinationState {
 public:
  explicit CoordinationState(StateOptions options);

  // Joins `rank` and waits until every rank has joined; Aborted naming the
  // missing ranks once the rendezvous deadline passes.
  absl::Status Register(int rank);
  // Marks `rank` alive; returns the job's status (OK while healthy).
  absl::Status Heartbeat(int rank);
  absl::Status Set(int rank, const std::string& key, std::string value);
  // Waits until `key` exists.
  absl::StatusOr<std::string> Get(int rank, const std::string& key, absl::Duration timeout);
  // Adds `delta` to the decimal integer at `key` (absent: 0); returns the sum.
  // InvalidArgument when the value there is not an integer, OutOfRange
  // (nothing changed) when the sum does not fit in an int64.
  absl::StatusOr<int64_t> Add(int rank, const std::string& key, int64_t delta);
  // Waits until every rank has entered this round of barrier `name`.
  // FailedPrecondition when a rank that has not entered already left.
  absl::Status Barrier(int rank, const std::string& name, absl::Duration timeout);
  // `rank` has finished; it is no longer watched.
  absl::Status Goodbye(int rank);

  // Fails the job when, at `now`, a joined rank has been silent for longer
  // than the heartbeat timeout or the rendezvous deadline passed with ranks
  // missing. Called periodically by the server.
  void CheckLiveness(absl::Time now);
  // Waits until every rank has said goodbye or is known dead, at most until
  // `deadline`; DeadlineExceeded naming the ranks still running otherwise.
  absl::Status WaitForGoodbyes(absl::Time deadline);
  // Wakes every waiter with Unavailable; later calls fail the same way.
  void Shutdown();

  absl::Status JobStatus() const;
  int world_size() const { return options_.world_size; }

 private:
  struct RankState {
    bool joined = false;
    bool departed = false;
    bool dead = false;
    absl::Time last_seen = absl::InfinitePast();
  };
  struct BarrierState {
    int64_t round = 0;
    std::vector<bool> entered;
  };

  absl::Status CheckRank(int rank) const;
  // OK, or why waiting must stop now (failure or shutdown).
  absl::Status Interrupted() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Touch(int rank) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Fail(absl::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FailIfRendezvousExpired(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string NamesWhere(const std::vector<int>& ranks) const;

  const StateOptions options_;
  mutable absl::Mutex mu_;
  std::vector<RankState> ranks_ ABSL_GUARDED_BY(mu_);
  int joined_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, std::string> store_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, BarrierState> barriers_ ABSL_GUARDED_BY(mu_);
  absl::Status failure_ ABSL_GUARDED_BY(mu_);
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace trainpkg::coordination::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_COORDINATION_INTERNAL_COORDINATION_STATE_H_
