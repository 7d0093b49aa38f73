// The host-memory Communicator for a job, on the transport that suits where
// its ranks are: shared memory when every rank shares this host's /dev/shm
// (processes of the local backend, containers of one local job, Slurm tasks
// on one node); shared memory inside each host and Gloo between hosts when
// ranks share hosts in groups; Gloo over TCP when no two ranks share one.
//
//   auto cpu = CreateCpuCommunicator(coordinator->client(), {.gloo = GlooOptionsFor(info)});
//   // cpu->transport says which; cpu->why, why shared memory was not used.
//
// The choice is collective: every rank reaches the same one from the same
// published facts (shm_communicator.h), so no rank waits in a transport the
// others left. TRAINPKG_COLLECTIVES=auto|gloo|shm, read by ClusterInfo, sets
// `transport` for the training strategies.
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_CPU_COMMUNICATOR_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_CPU_COMMUNICATOR_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "trainer_runtime/collectives/communicator.h"
#include "trainer_runtime/collectives/gloo_communicator.h"
#include "trainer_runtime/coordination/coordination_client.h"

namespace trainpkg::collectives {

enum class CpuTransport {
  kAuto,          // shared memory where every rank can share it, else Gloo
  kGloo,          // Gloo over TCP, wherever the ranks are
  kSharedMemory,  // shared memory, an error where the ranks cannot share it
  // What kAuto picks when ranks share memory in groups on several hosts
  // (hierarchical_communicator.h); not a choice of its own.
  kHierarchical,
};

// "auto", "gloo" or "shm"; InvalidArgument naming the valid values.
// CpuTransportName also names kHierarchical ("shm+gloo").
absl::StatusOr<CpuTransport> ParseCpuTransport(std::string_view name);
std::string_view CpuTransportName(CpuTransport transport);

struct CpuCommunicatorOptions {
  CpuTransport transport = CpuTransport::kAuto;
  // Gloo's; gloo.timeout and gloo.name serve shared memory too.
  GlooOptions gloo;
  // Shared memory's round size (ShmOptions::slot_bytes).
  size_t shm_slot_bytes = size_t{1} << 20;
};

struct CpuCommunicator {
  std::unique_ptr<Communicator> comm;
  CpuTransport transport = CpuTransport::kGloo;  // kGloo, kSharedMemory or kHierarchical
  std::string why;  // with kAuto and Gloo chosen: why not shared memory
};

// Every rank of client's job calls it with the same transport. Errors: the
// chosen transport's; with kSharedMemory also its FailedPrecondition when
// the ranks cannot share memory.
absl::StatusOr<CpuCommunicator> CreateCpuCommunicator(coordination::CoordinationClient& client,
                                                      const CpuCommunicatorOptions& options);

}  // namespace trainpkg::collectives

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_CPU_COMMUNICATOR_H_
