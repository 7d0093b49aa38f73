#include "trainer_runtime/coordination/coordinator.h"

#include <string>
#include <utility>

#include "fmt/format.h"
#include "trainer_runtime/coordination/rank_names.h"

namespace trainpkg::coordination {

absl::StatusOr<std::unique_ptr<Coordinator>> Coordinator::Start(const runtime::ClusterInfo& info,
                                                                const CoordinationOptions& given) {
  CoordinationOptions options = given;
  options.job_secret = info.job_secret;
  if (!info.in_collective()) {
    return absl::InvalidArgumentError(
        fmt::format("a {} task takes no part in coordination", info.task_type));
  }
  std::string address = info.coordinator_address;
  if (address.empty()) {
    if (info.world_size > 1) {
      return absl::InvalidArgumentError(
          fmt::format("rank {} of {} has no coordinator address", info.rank, info.world_size));
    }
    address = "127.0.0.1:0";  // a single process coordinates with itself
  }
  std::vector<std::string> names = RankNames(info);
  std::unique_ptr<CoordinationServer> server;
  if (info.rank == 0) {
    auto started = CoordinationServer::Start(address, names, options);
    if (!started.ok()) return started.status();
    server = *std::move(started);
    // The bound address: with port 0 only the server knows which port it got.
    address = server->address();
  }
  auto client =
      CoordinationClient::Create(address, static_cast<int>(info.rank), std::move(names), options);
  if (!client.ok()) return client.status();
  if (absl::Status joined = (*client)->Register(); !joined.ok()) return joined;
  return std::unique_ptr<Coordinator>(new Coordinator(std::move(server), *std::move(client)));
}

absl::Status Coordinator::Shutdown() {
  // This rank's goodbye first: on rank 0 the server's Shutdown waits for
  // every rank's goodbye, this rank's own included.
  absl::Status goodbye = client_->Goodbye();
  absl::Status job = client_->JobStatus();
  // The job's failure outranks the server's complaint that some rank never
  // said goodbye, which such a failure usually explains.
  if (server_ != nullptr) {
    absl::Status server = server_->Shutdown();
    if (job.ok()) job = server;
  }
  return job.ok() ? goodbye : job;
}

}  // namespace trainpkg::coordination
