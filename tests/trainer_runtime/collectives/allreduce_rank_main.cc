// One replica of the multi-process collectives test: resolves its ClusterInfo
// from the Vertex env (CLUSTER_SPEC / TF_CONFIG), coordinates, and runs
// `iterations` allreduces of 10,007 floats, `pause_ms` apart, checking each
// sum, on the transport TRAINPKG_COLLECTIVES picks (auto when unset). Prints
// "rank R running on <transport>" after the first allreduce; exit 0 and
// "rank R done" on success; exit 1 with the error on stderr.
//
//   collectives_test_rank <iterations> <pause_ms>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "base/environment.h"
#include "fmt/format.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/collectives/cpu_communicator.h"
#include "trainer_runtime/coordination/coordinator.h"

namespace {

using trainpkg::collectives::ReduceOp;

int Fail(const std::string& message) {
  fmt::print(stderr, "{}\n", message);
  return 1;
}

int Run(int iterations, int pause_ms) {
  auto info = trainpkg::runtime::ResolveClusterInfo(trainpkg::base::ProcessEnvironment());
  if (!info.ok()) return Fail(std::string(info.status().message()));
  auto coordinator = trainpkg::coordination::Coordinator::Start(
      *info, {.heartbeat_interval = absl::Milliseconds(100),
              .heartbeat_timeout = absl::Seconds(1),
              .rendezvous_timeout = absl::Seconds(10),
              .shutdown_timeout = absl::Seconds(5),
              .job_secret = info->job_secret});
  if (!coordinator.ok()) return Fail(std::string(coordinator.status().message()));
  trainpkg::collectives::CpuCommunicatorOptions options{
      .gloo = trainpkg::collectives::GlooOptionsFor(*info)};
  options.gloo.timeout = absl::Seconds(10);
  if (!info->collectives.empty()) {
    auto transport = trainpkg::collectives::ParseCpuTransport(info->collectives);
    if (!transport.ok()) return Fail(std::string(transport.status().message()));
    options.transport = *transport;
  }
  auto cpu = trainpkg::collectives::CreateCpuCommunicator((*coordinator)->client(), options);
  absl::Status status = cpu.status();
  trainpkg::collectives::Communicator* comm = cpu.ok() ? cpu->comm.get() : nullptr;
  const int size = static_cast<int>(info->world_size);
  for (int it = 0; status.ok() && it < iterations; ++it) {
    std::vector<float> data(10007);
    for (size_t i = 0; i < data.size(); ++i)
      data[i] = static_cast<float>(info->rank + i % 100 + it);
    status = comm->AllReduce(std::span(data), ReduceOp::kSum);
    for (size_t i = 0; status.ok() && i < data.size(); ++i) {
      const float want = static_cast<float>(size * (size - 1) / 2 + size * (i % 100 + it));
      if (data[i] != want) {
        status = absl::InternalError(
            fmt::format("iteration {}: [{}] = {}, want {}", it, i, data[i], want));
      }
    }
    if (status.ok() && it == 0) {
      fmt::print("rank {} running on {}\n", info->rank,
                 trainpkg::collectives::CpuTransportName(cpu->transport));
    }
    std::fflush(stdout);
    absl::SleepFor(absl::Milliseconds(pause_ms));
  }
  absl::Status finished = (*coordinator)->Shutdown();
  if (!status.ok())
    return Fail(fmt::format("rank {}: {}", info->rank, std::string(status.message())));
  if (!finished.ok())
    return Fail(fmt::format("rank {}: {}", info->rank, std::string(finished.message())));
  fmt::print("rank {} done\n", info->rank);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return Fail("usage: collectives_test_rank <iterations> <pause_ms>");
  return Run(std::atoi(argv[1]), std::atoi(argv[2]));
}
