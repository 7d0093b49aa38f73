// A rank's whole part in coordination, wired from its ClusterInfo: rank 0
// hosts the CoordinationServer at info.coordinator_address (binding exactly
// that host:port), every rank (rank 0 included) joins through a
// CoordinationClient.
//
//   auto coordinator = Coordinator::Start(*info, {});   // returns after the rendezvous
//   CoordinationClient& client = (*coordinator)->client();
//   ... train ...
//   absl::Status finished = (*coordinator)->Shutdown();
//
// Not thread-safe itself; client() is.
#ifndef TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATOR_H_
#define TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATOR_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/coordination/coordination_client.h"
#include "trainer_runtime/coordination/coordination_options.h"
#include "trainer_runtime/coordination/coordination_server.h"

namespace trainpkg::coordination {

class Coordinator {
 public:
  // Starts the server (rank 0), then registers and waits for every rank;
  // every call carries info.job_secret (options.job_secret is ignored).
  // InvalidArgument for a task outside the collective (ps, evaluator) or a
  // multi-rank job without a coordinator address; the server's and the
  // rendezvous's errors otherwise (Aborted naming ranks that never came).
  static absl::StatusOr<std::unique_ptr<Coordinator>> Start(const runtime::ClusterInfo& info,
                                                            const CoordinationOptions& options);

  CoordinationClient& client() { return *client_; }

  // Says goodbye; rank 0 then waits (options.shutdown_timeout at most) for
  // every other rank's goodbye and stops the server. Returns the job's
  // failure if there was one, else the goodbye's or the server's error.
  absl::Status Shutdown();

 private:
  Coordinator(std::unique_ptr<CoordinationServer> server,
              std::unique_ptr<CoordinationClient> client)
      : server_(std::move(server)), client_(std::move(client)) {}

  // Declared first so that the client is destroyed before the server.
  std::unique_ptr<CoordinationServer> server_;
  std::unique_ptr<CoordinationClient> client_;
};

}  // namespace trainpkg::coordination

#endif  // TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATOR_H_
