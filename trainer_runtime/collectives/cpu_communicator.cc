#include "trainer_runtime/collectives/cpu_communicator.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/collectives/hierarchical_communicator.h"
#include "trainer_runtime/collectives/shm_communicator.h"

namespace trainpkg::collectives {

absl::StatusOr<CpuTransport> ParseCpuTransport(std::string_view name) {
  if (name == "auto") return CpuTransport::kAuto;
  if (name == "gloo") return CpuTransport::kGloo;
  if (name == "shm") return CpuTransport::kSharedMemory;
  return absl::InvalidArgumentError(fmt::format(
      "collectives transport '{}': must be auto (shared memory when every rank is on one host, "
      "else Gloo), gloo or shm",
      name));
}

std::string_view CpuTransportName(CpuTransport transport) {
  switch (transport) {
    case CpuTransport::kAuto:
      return "auto";
    case CpuTransport::kGloo:
      return "gloo";
    case CpuTransport::kSharedMemory:
      return "shm";
    case CpuTransport::kHierarchical:
      return "shm+gloo";
  }
  return "?";
}

absl::StatusOr<CpuCommunicator> CreateCpuCommunicator(coordination::CoordinationClient& client,
                                                      const CpuCommunicatorOptions& options) {
  CpuCommunicator result;
  const ShmOptions shm{.timeout = options.gloo.timeout,
                       .name = options.gloo.name,
                       .slot_bytes = options.shm_slot_bytes};
  if (options.transport != CpuTransport::kGloo) {
    // Which ranks share a host (the same facts on every rank).
    const std::string keys = fmt::format("cpu/{}/host/", options.gloo.name);
    TP_RETURN_IF_ERROR(
        client.Set(keys + std::to_string(client.rank()), ShmHostIdentity().value_or("")));
    std::vector<std::string> identities;
    for (int r = 0; r < client.world_size(); ++r) {
      TP_ASSIGN_OR_RETURN(std::string identity,
                          client.Get(keys + std::to_string(r), options.gloo.timeout));
      identities.push_back(std::move(identity));
    }
    const std::vector<int> group_of = GroupsByHost(identities);
    const int groups = *std::max_element(group_of.begin(), group_of.end()) + 1;
    absl::StatusOr<std::unique_ptr<Communicator>> comm;
    if (groups == 1) {
      comm = CreateShmCommunicator(client, shm);
      result.transport = CpuTransport::kSharedMemory;
    } else if (options.transport == CpuTransport::kSharedMemory) {
      return absl::FailedPreconditionError(fmt::format(
          "shared memory: the {} ranks are on {} hosts (or /dev/shm mounts); use auto or gloo",
          client.world_size(), groups));
    // With one rank per host the groups would add only a shared-memory step of
    // one rank each around plain Gloo.
    } else if (groups < client.world_size()) {
      comm = CreateHierarchicalCommunicator(client, group_of, options.gloo, shm);
      result.transport = CpuTransport::kHierarchical;
    } else {
      comm = absl::FailedPreconditionError("no two ranks share a host");
    }
    if (comm.ok()) {
      result.comm = *std::move(comm);
      return result;
    }
    // Only FailedPrecondition falls back: the shared-memory set-ups return it on
    // every rank alike, so all ranks move to Gloo together. Any other error may
    // have reached some ranks only, and a fallback then would split the job
    // across two transports that never meet.
    if (options.transport == CpuTransport::kSharedMemory ||
        !absl::IsFailedPrecondition(comm.status())) {
      return comm.status();
    }
    result.why = std::string(comm.status().message());
  }
  TP_ASSIGN_OR_RETURN(result.comm, CreateGlooCommunicator(client, options.gloo));
  result.transport = CpuTransport::kGloo;
  return result;
}

}  // namespace trainpkg::collectives
