// One replica of the multi-process collectives test: resolves its ClusterInfo
// from the Vertex env (CLUSTER_SPEC / TF_CONFIG), coordinates, and runs
// `iterations` allreduces of 10,007 floats, `pause_ms` apart, checking each
// sum, on the transport TRAINPKG_COLLECTIVES picks (auto when unset). Prints
// "rank R running on <transport>" after the first allreduce; exit 0 and
// "rank R done" on success; exit 1 with the error on stderr. With "sweep"
// it then checks every operation over sizes from 1 float to 64 MiB + 3
// (sums, means, NaN and infinities, a prepared allreduce run 1000 times,
// broadcast, allgather) and prints "rank R sweep passed".
//
//   collectives_test_rank <iterations> <pause_ms> [sweep]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "base/environment.h"
#include "base/status_macros.h"
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

// Every operation on every rank, checked; the first mismatch as an error.
absl::Status Sweep(trainpkg::collectives::Communicator& comm) {
  const int rank = comm.rank();
  const int size = comm.size();
  const float ranks_sum = static_cast<float>(size * (size - 1) / 2);
  // Around the shared-memory round (1 MiB = 262144 floats) and its slices.
  for (size_t n : {size_t{1}, size_t{7}, size_t{17}, size_t{4097}, size_t{262143}, size_t{262144},
                   size_t{262145}, (size_t{64} << 20) / 4 + 3}) {
    std::vector<float> data(n);
    for (size_t i = 0; i < n; ++i) data[i] = static_cast<float>(rank + i % 100);
    TP_RETURN_IF_ERROR(comm.AllReduce(std::span(data), ReduceOp::kSum));
    for (size_t i = 0; i < n; ++i) {
      const float want = ranks_sum + static_cast<float>(size * static_cast<int>(i % 100));
      if (data[i] != want) {
        return absl::InternalError(
            fmt::format("sum of {} floats: [{}] = {}, want {}", n, i, data[i], want));
      }
    }
  }
  // Doubles: 2^40 + rank + 0.5 is exact in double only.
  std::vector<double> wide(300001, 1099511627776.0 + rank + 0.5);
  TP_RETURN_IF_ERROR(comm.AllReduce(std::span(wide), ReduceOp::kSum));
  const double wide_want = size * 1099511627776.0 + ranks_sum + size * 0.5;
  if (wide.front() != wide_want || wide.back() != wide_want) {
    return absl::InternalError(fmt::format("double sum: {}, want {}", wide.back(), wide_want));
  }
  std::vector<float> mean(1001, static_cast<float>(rank));
  TP_RETURN_IF_ERROR(comm.AllReduce(std::span(mean), ReduceOp::kMean));
  if (mean[1000] != ranks_sum / static_cast<float>(size)) {
    return absl::InternalError(fmt::format("mean: {}", mean[1000]));
  }
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> special = {rank == 0 ? std::nanf("") : 1.0f, rank == 0 ? inf : 1.0f,
                                rank == 0 ? inf : (rank == 1 ? -inf : 0.0f)};
  TP_RETURN_IF_ERROR(comm.AllReduce(std::span(special), ReduceOp::kSum));
  if (!std::isnan(special[0]) || special[1] != inf || !std::isnan(special[2])) {
    return absl::InternalError(
        fmt::format("NaN/Inf: {} {} {}", special[0], special[1], special[2]));
  }
  std::vector<float> bucket(50827);
  TP_ASSIGN_OR_RETURN(auto prepared, comm.PrepareAllReduce(std::span(bucket), ReduceOp::kSum));
  for (int it = 0; it < 1000; ++it) {
    std::fill(bucket.begin(), bucket.end(), static_cast<float>(rank + it));
    TP_RETURN_IF_ERROR(prepared->Run());
    const float want = ranks_sum + static_cast<float>(size * it);
    if (bucket.front() != want || bucket.back() != want) {
      return absl::InternalError(fmt::format("prepared run {}: {}, want {}", it, bucket[0], want));
    }
  }
  std::vector<float> broadcast(300007, static_cast<float>(rank));
  TP_RETURN_IF_ERROR(comm.Broadcast(std::span(broadcast), size - 1));
  if (broadcast.front() != static_cast<float>(size - 1) ||
      broadcast.back() != static_cast<float>(size - 1)) {
    return absl::InternalError("broadcast from the last rank");
  }
  const std::vector<float> mine(70001, static_cast<float>(rank));
  std::vector<float> all(mine.size() * static_cast<size_t>(size));
  TP_RETURN_IF_ERROR(comm.AllGather(std::span<const float>(mine), std::span(all)));
  for (int q = 0; q < size; ++q) {
    if (all[static_cast<size_t>(q) * mine.size()] != static_cast<float>(q) ||
        all[(static_cast<size_t>(q) + 1) * mine.size() - 1] != static_cast<float>(q)) {
      return absl::InternalError(fmt::format("allgather: part {}", q));
    }
  }
  return comm.Barrier();
}

int Run(int iterations, int pause_ms, bool sweep) {
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
  if (status.ok() && sweep) {
    status = Sweep(*comm);
    if (status.ok()) fmt::print("rank {} sweep passed\n", info->rank);
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
  if (argc < 3 || argc > 4 || (argc == 4 && std::string(argv[3]) != "sweep")) {
    return Fail("usage: collectives_test_rank <iterations> <pause_ms> [sweep]");
  }
  return Run(std::atoi(argv[1]), std::atoi(argv[2]), argc == 4);
}
