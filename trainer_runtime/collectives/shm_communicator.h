// The CPU Communicator for ranks that share a host: every collective goes
// through one shared-memory segment of the job (internal/shm_group.h), with
// no socket and no copy through the kernel.
//
//   auto comm = CreateShmCommunicator(coordinator->client(), {});
//   if (absl::IsFailedPrecondition(comm.status())) { /* not co-located: use Gloo */ }
//
// Co-location is decided from the hosts' identities, not their addresses:
// each rank publishes ShmHostIdentity() through the coordination store, and
// shared memory is used only when every rank's identity is the same. Rank 0
// then creates a segment under a fresh random name and publishes it; the
// others map it and check its header; if any rank cannot (another /dev/shm,
// a full one), every rank gets the same FailedPrecondition and nothing is
// left behind. Rank 0 unlinks the name once all ranks have it mapped, so
// the segment disappears with the job's last process however the job ends
// (see internal/shm_group.h for the sweep of segments whose ranks all died
// earlier).
//
// AllReduce, in rounds of slot_bytes: each rank copies the slices the
// others reduce into its own slot; a barrier; rank r sums slice r over the
// ranks in rank order (its own values read from its buffer) into its buffer
// and the result slot; a barrier; each rank copies the other slices out of
// the result slot. Every rank therefore ends with bit-identical sums, the
// same whichever rank reduced which slice. Broadcast and AllGather go
// through the root's or each rank's slot; every operation touches only its
// own slot before its first barrier, so operations never wait for the end
// of the previous one except where they must.
//
// Failures: a barrier wait checks, between its sleeps, whether a peer has
// let go of its segment lock (the kernel releases it when the process
// exits, also on SIGKILL) and the job's health; a dead peer ends the
// operation within milliseconds with Aborted naming it, a stuck one with
// DeadlineExceeded after options.timeout naming the ranks waited for.
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_SHM_COMMUNICATOR_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_SHM_COMMUNICATOR_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "trainer_runtime/collectives/communicator.h"
#include "trainer_runtime/coordination/coordination_client.h"

namespace trainpkg::collectives {

struct ShmOptions {
  // Bounds the set-up and every collective.
  absl::Duration timeout = absl::Seconds(300);
  // Keys live under "shm/<name>/". REQUIRES: unique among the communicators
  // of one job.
  std::string name = "default";
  // Floats per round are slot_bytes / 4; the segment holds ranks + 1 slots.
  // REQUIRES: a multiple of 4096.
  size_t slot_bytes = size_t{1} << 20;
};

// What two processes must share to share memory: the kernel's boot id and
// the device and inode of the /dev/shm they see (containers with their own
// /dev/shm differ). Unavailable when neither can be read.
absl::StatusOr<std::string> ShmHostIdentity();

// Every rank of client's job calls it; blocks until all have. `client` must
// be registered and outlive the communicator. FailedPrecondition, the same
// on every rank and saying why, when the ranks cannot share a segment (not
// all on one host, or a rank could not map it): the caller can fall back to
// another transport. Aborted / DeadlineExceeded as for the operations.
absl::StatusOr<std::unique_ptr<Communicator>> CreateShmCommunicator(
    coordination::CoordinationClient& client, const ShmOptions& options);

}  // namespace trainpkg::collectives

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_SHM_COMMUNICATOR_H_
