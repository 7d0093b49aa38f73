// Settings shared by the coordination server and its clients: timing knobs
// and the job secret.
#ifndef TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATION_OPTIONS_H_
#define TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATION_OPTIONS_H_

#include <string>

#include "absl/time/time.h"

namespace trainpkg::coordination {

struct CoordinationOptions {
  // How often every rank tells the coordinator it is alive.
  absl::Duration heartbeat_interval = absl::Seconds(1);
  // A joined rank silent for longer than this fails the job; a client that
  // cannot reach the coordinator for this long fails too.
  absl::Duration heartbeat_timeout = absl::Seconds(10);
  // Every rank must join within this time of the coordinator's start (and a
  // client must reach the coordinator within it), else the job fails naming
  // the ranks that did not come.
  absl::Duration rendezvous_timeout = absl::Seconds(120);
  // How long rank 0 waits, at the end, for the other ranks to say goodbye
  // before it stops the coordinator.
  absl::Duration shutdown_timeout = absl::Seconds(60);
  // The job's shared secret (TRAINPKG_JOB_SECRET, rpc_auth/job_auth.h):
  // the server answers only calls that carry it, clients send it.
  // Coordinator::Start takes it from ClusterInfo. "" = none: calls are not
  // authenticated and the server listens on loopback addresses only.
  std::string job_secret;
};

}  // namespace trainpkg::coordination

#endif  // TRAINPKG_TRAINER_RUNTIME_COORDINATION_COORDINATION_OPTIONS_H_
