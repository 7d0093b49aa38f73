// The CPU Communicator for a job whose ranks sit in groups on several hosts:
// shared memory inside each group, Gloo between one leader per group, shared
// memory again.
//
//   // group_of[r]: the group of rank r (GroupsByHost gives it from the
//   // hosts' identities); every rank passes the same vector.
//   auto comm = CreateHierarchicalCommunicator(client, group_of, options);
//
// Groups are numbered by their lowest rank, which leads them. AllReduce:
// a shared-memory allreduce in each group, the leaders' Gloo allreduce of
// the group sums, a shared-memory broadcast of the result in each group
// (every rank ends with the same values; the mean divides the total once).
// Broadcast: inside the root's group, between the leaders, then inside the
// other groups. AllGather: inside each group, then between the leaders in
// blocks padded to the largest group, then a broadcast in each group.
// Barrier: in the group, between the leaders, in the group. A dead rank
// fails its group at once (shared memory) and the others through the
// coordinator's verdict (Gloo and the job's health), as those transports do.
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_HIERARCHICAL_COMMUNICATOR_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_HIERARCHICAL_COMMUNICATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/collectives/communicator.h"
#include "trainer_runtime/collectives/gloo_communicator.h"
#include "trainer_runtime/collectives/shm_communicator.h"
#include "trainer_runtime/coordination/coordination_client.h"

namespace trainpkg::collectives {

// group_of[r] for ranks whose identities (ShmHostIdentity) are equal, groups
// numbered by first appearance (so by lowest rank). An empty identity (one
// that could not be read) is a group of its own.
std::vector<int> GroupsByHost(const std::vector<std::string>& identities);

// Every rank of client's job calls it with the same group_of (size
// world_size). gloo: the leaders' transport (its name also names the keys of
// the groups); shm: each group's. Errors: InvalidArgument for a bad
// group_of; the transports' (a group that cannot share memory gives the
// shared-memory FailedPrecondition on its ranks only: callers that need every
// rank to agree use CreateCpuCommunicator).
absl::StatusOr<std::unique_ptr<Communicator>> CreateHierarchicalCommunicator(
    coordination::CoordinationClient& client, const std::vector<int>& group_of,
    const GlooOptions& gloo, const ShmOptions& shm);

}  // namespace trainpkg::collectives

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_HIERARCHICAL_COMMUNICATOR_H_
