// The CPU Communicator: Gloo collectives over its TCP transport, with the
// coordination key-value store as Gloo's rendezvous store.
//
//   auto comm = CreateGlooCommunicator(coordinator->client(), GlooOptionsFor(info));
//   TP_RETURN_IF_ERROR((*comm)->AllReduce(std::span(grads), ReduceOp::kSum));
//
// AllReduce uses Gloo's ring (reduce-scatter + allgather in 1 MiB segments,
// 2(p-1)/p of the buffer on the wire per rank) for large buffers and BCube
// (fewer steps) for small ones. PrepareAllReduce of a buffer below 256 KiB
// sets up, once, an algorithm whose buffers stay registered on the TCP
// pairs, so every message lands directly in the peer's buffer with no
// per-message ready handshake: a one-step exchange of whole buffers where
// (p-1) of them are below 256 KiB (internal/gloo_exchange_allreduce.h),
// else Gloo's halving-doubling; larger buffers run the ring of AllReduce.
// For the digits MLP's 199 KiB gradient bucket on 2 ranks that is an order
// of magnitude lower median latency than AllReduce on a loaded machine
// (bench/README.md, "collectives"). When a peer's connection breaks or times out,
// the error waits for the coordinator's verdict (at most
// client.FailureDetectionBound()) so the message names the rank at fault.
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_GLOO_COMMUNICATOR_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_GLOO_COMMUNICATOR_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/collectives/communicator.h"
#include "trainer_runtime/coordination/coordination_client.h"

namespace trainpkg::collectives {

struct GlooOptions {
  // The host (name or IP) whose interface Gloo's TCP transport binds; "" lets
  // Gloo use this machine's hostname.
  std::string hostname = "127.0.0.1";
  // Bounds the rendezvous and every collective.
  absl::Duration timeout = absl::Seconds(300);
  // Keys of this communicator's rendezvous live under "gloo/<name>/".
  // REQUIRES: unique among the communicators of one job.
  std::string name = "default";
};

// hostname: this rank's host from info.worker_addresses, else "" (hostname).
GlooOptions GlooOptionsFor(const runtime::ClusterInfo& info);

// Connects every rank of client's job to every other (a full mesh); blocks
// until all ranks have called it. `client` must be registered and outlive the
// communicator. Errors: Aborted naming a failed rank, DeadlineExceeded when a
// rank did not come within options.timeout, Unavailable when the transport
// cannot bind options.hostname.
absl::StatusOr<std::unique_ptr<Communicator>> CreateGlooCommunicator(
    coordination::CoordinationClient& client, const GlooOptions& options);

}  // namespace trainpkg::collectives

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_GLOO_COMMUNICATOR_H_
