#include "trainer_runtime/collectives/cpu_communicator.h"

#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
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
  }
  return "?";
}

absl::StatusOr<CpuCommunicator> CreateCpuCommunicator(coordination::CoordinationClient& client,
                                                      const CpuCommunicatorOptions& options) {
  CpuCommunicator result;
  if (options.transport != CpuTransport::kGloo) {
    absl::StatusOr<std::unique_ptr<Communicator>> shm =
        CreateShmCommunicator(client, {.timeout = options.gloo.timeout,
                                       .name = options.gloo.name,
                                       .slot_bytes = options.shm_slot_bytes});
    if (shm.ok()) {
      result.comm = *std::move(shm);
      result.transport = CpuTransport::kSharedMemory;
      return result;
    }
    if (options.transport == CpuTransport::kSharedMemory ||
        !absl::IsFailedPrecondition(shm.status())) {
      return shm.status();
    }
    result.why = std::string(shm.status().message());
  }
  TP_ASSIGN_OR_RETURN(result.comm, CreateGlooCommunicator(client, options.gloo));
  result.transport = CpuTransport::kGloo;
  return result;
}

}  // namespace trainpkg::collectives
