// The coordination service for one job, hosted by rank 0.
//
//   auto server = CoordinationServer::Start("127.0.0.1:0", RankNames(info), options);
//   ... every rank (rank 0 too) talks to it through a CoordinationClient ...
//   absl::Status finished = (*server)->Shutdown();
//
// From Start on, the server watches the job: it fails the job (every client
// learns it through its next call or heartbeat) when a rank has not joined
// within options.rendezvous_timeout, or a joined rank has been silent for
// longer than options.heartbeat_timeout. The failure message names the
// rank(s): "rank 2 (worker 1, 127.0.0.1:41234) missed heartbeats for 10.2s
// (timeout 10s)". Thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATION_SERVER_H_
#define TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATION_SERVER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/coordination/coordination_options.h"

namespace trainpkg::coordination {

class CoordinationServer {
 public:
  // Listens on `address` ("host:port"; port 0 picks a free port) for a job of
  // rank_names.size() ranks (names as RankNames gives them).
  // Every call must carry options.job_secret (UNAUTHENTICATED otherwise).
  // InvalidArgument for an empty rank list; FailedPrecondition for an
  // address beyond loopback without a job secret; Unavailable when the
  // address cannot be bound.
  static absl::StatusOr<std::unique_ptr<CoordinationServer>> Start(
      std::string_view address, std::vector<std::string> rank_names,
      const CoordinationOptions& options);

  // Stops at once (what Shutdown does without waiting).
  virtual ~CoordinationServer() = default;

  // The port actually bound, and "host:port" with it.
  virtual int port() const = 0;
  virtual std::string address() const = 0;

  // OK while the job is healthy; otherwise Aborted naming the failed rank.
  virtual absl::Status JobStatus() const = 0;

  // Waits until every rank has said goodbye or is known dead (at most
  // options.shutdown_timeout), then stops serving. Returns the job's failure
  // if it failed, DeadlineExceeded naming the ranks that never said goodbye,
  // else OK. Idempotent.
  virtual absl::Status Shutdown() = 0;
};

}  // namespace trainpkg::coordination

#endif  // TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATION_SERVER_H_
