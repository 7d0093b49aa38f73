// float32 allreduce on GPUs: our NCCL Communicator against raw NCCL, one rank
// per visible GPU (threads of this process), at 64 MiB (bandwidth-bound) and
// at the digits MLP's gradient bucket (50,827 floats, 198 KiB: latency-bound).
//
//   collectives_nccl_allreduce_bench [--iterations=50] [--small_iterations=1000]
//                                    [--ranks=N]
//
// Raw NCCL: ncclCommInitAll over the ranks' devices, then per timed call
// ncclAllReduce (average, in place) on the rank's stream and
// cudaStreamSynchronize. Ours: CreateNcclCommunicator through an in-process
// coordination server, then Communicator::AllReduce (which enqueues the same
// call and waits for the stream while watching for peer failures). Timings:
// each call on rank 0, wall clock; 5 warm-up calls, then the median and the
// minimum of the timed calls. The means are checked after each peer's run.
//
// Output: one markdown row per size,
//   | ranks | size | trainpkg median (min) ms | raw NCCL median (min) ms | raw/trainpkg |
// (a ratio > 1 means ours is faster), after a line naming the GPUs.
//
// Exit status: 0, 1 when a run fails or a mean is wrong, 2 without a usable GPU
// (a message says why).
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "fmt/format.h"
#include "trainer_runtime/collectives/cuda/nccl_communicator.h"
#include "trainer_runtime/coordination/coordination_client.h"
#include "trainer_runtime/coordination/coordination_server.h"
#include "trainer_runtime/coordination/rank_names.h"
#include "trainer_runtime/cuda/gpu_devices.h"

namespace {

namespace collectives = ::trainpkg::collectives;
namespace coordination = ::trainpkg::coordination;

constexpr int kWarmup = 5;

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
};

Timing Summarise(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front()};
}

// One rank's buffer of n floats, each rank + 1, on its device.
struct RankBuffer {
  float* data = nullptr;
  size_t n = 0;
};

bool Fill(RankBuffer& buffer, int rank) {
  std::vector<float> host(buffer.n, static_cast<float>(rank + 1));
  return cudaMemcpy(buffer.data, host.data(), buffer.n * sizeof(float), cudaMemcpyHostToDevice) ==
         cudaSuccess;
}

// After in-place means starting from Fill, every element is the mean of
// 1..ranks. Checked at a few places.
bool Check(const RankBuffer& buffer, int ranks, std::string& error) {
  const double expected = (ranks + 1) / 2.0;
  for (size_t at : {size_t{0}, buffer.n / 2, buffer.n - 1}) {
    float got = 0;
    cudaMemcpy(&got, buffer.data + at, sizeof(float), cudaMemcpyDeviceToHost);
    if (static_cast<double>(got) != static_cast<float>(expected)) {
      error = fmt::format("element {}: {} where {} was expected", at, got, expected);
      return false;
    }
  }
  return true;
}

// Runs `body(rank)` on one thread per rank; the first error wins.
std::string OnEveryRank(int ranks, const std::function<std::string(int)>& body) {
  std::mutex mu;
  std::string first_error;
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      std::string error = body(r);
      std::lock_guard<std::mutex> lock(mu);
      if (!error.empty() && first_error.empty()) first_error = fmt::format("rank {}: {}", r, error);
    });
  }
  for (std::thread& t : threads) t.join();
  return first_error;
}

// Times `call` (warm-up first); returns its error or "".
std::string TimeCalls(int iterations, const std::function<std::string()>& call,
                      std::vector<double>& ms) {
  for (int i = 0; i < kWarmup + iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (std::string error = call(); !error.empty()) return error;
    const auto stop = std::chrono::steady_clock::now();
    if (i >= kWarmup) ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return "";
}

// Raw NCCL over `ranks` devices; rank 0's times.
std::string RunRaw(int ranks, size_t n, int iterations, Timing& timing) {
  std::vector<ncclComm_t> comms(ranks);
  std::vector<int> devices(ranks);
  for (int r = 0; r < ranks; ++r) devices[r] = r;
  if (ncclResult_t result = ncclCommInitAll(comms.data(), ranks, devices.data());
      result != ncclSuccess) {
    return fmt::format("ncclCommInitAll: {}", ncclGetErrorString(result));
  }
  std::vector<double> ms;
  std::string error = OnEveryRank(ranks, [&](int r) -> std::string {
    cudaSetDevice(r);
    cudaStream_t stream;
    if (cudaStreamCreate(&stream) != cudaSuccess) return "cudaStreamCreate failed";
    RankBuffer buffer{nullptr, n};
    if (cudaMalloc(&buffer.data, n * sizeof(float)) != cudaSuccess) return "cudaMalloc failed";
    std::string failed;
    if (!Fill(buffer, r)) failed = "fill failed";
    std::vector<double> mine;
    if (failed.empty()) {
      failed = TimeCalls(
          iterations,
          [&]() -> std::string {
            ncclResult_t result =
                ncclAllReduce(buffer.data, buffer.data, n, ncclFloat, ncclAvg, comms[r], stream);
            if (result != ncclSuccess) return ncclGetErrorString(result);
            if (cudaStreamSynchronize(stream) != cudaSuccess) return "cudaStreamSynchronize failed";
            return "";
          },
          mine);
    }
    if (failed.empty()) Check(buffer, ranks, failed);
    if (r == 0) ms = std::move(mine);
    cudaFree(buffer.data);
    cudaStreamDestroy(stream);
    return failed;
  });
  for (ncclComm_t comm : comms) ncclCommDestroy(comm);
  if (!error.empty()) return error;
  timing = Summarise(ms);
  return "";
}

// Our Communicator over `ranks` devices; rank 0's times.
std::string RunOurs(int ranks, size_t n, int iterations, Timing& timing) {
  std::vector<std::string> names;
  for (int r = 0; r < ranks; ++r) names.push_back(coordination::PlainRankName(r));
  auto server = coordination::CoordinationServer::Start("127.0.0.1:0", names, {});
  if (!server.ok()) return std::string(server.status().message());
  std::vector<double> ms;
  std::string error = OnEveryRank(ranks, [&](int r) -> std::string {
    cudaSetDevice(r);
    auto client = coordination::CoordinationClient::Create((*server)->address(), r, names, {});
    if (!client.ok()) return std::string(client.status().message());
    if (absl::Status s = (*client)->Register(); !s.ok()) return std::string(s.message());
    cudaStream_t stream;
    if (cudaStreamCreate(&stream) != cudaSuccess) return "cudaStreamCreate failed";
    RankBuffer buffer{nullptr, n};
    if (cudaMalloc(&buffer.data, n * sizeof(float)) != cudaSuccess) return "cudaMalloc failed";
    std::string failed;
    {
      collectives::NcclOptions options;
      options.name = fmt::format("bench-{}", n);
      auto comm = collectives::CreateNcclCommunicator(**client, stream, options);
      if (!comm.ok()) failed = std::string(comm.status().message());
      if (failed.empty() && !Fill(buffer, r)) failed = "fill failed";
      std::vector<double> mine;
      if (failed.empty()) {
        failed = TimeCalls(
            iterations,
            [&]() -> std::string {
              absl::Status s = (*comm)->AllReduce(std::span<float>(buffer.data, n),
                                                  collectives::ReduceOp::kMean);
              return s.ok() ? "" : std::string(s.message());
            },
            mine);
      }
      if (failed.empty()) Check(buffer, ranks, failed);
      if (r == 0) ms = std::move(mine);
    }
    cudaFree(buffer.data);
    cudaStreamDestroy(stream);
    (void)(*client)->Goodbye();
    return failed;
  });
  (void)(*server)->Shutdown();
  if (!error.empty()) return error;
  timing = Summarise(ms);
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("collectives_nccl_allreduce_bench: our NCCL Communicator against raw NCCL",
               "collectives_nccl_allreduce_bench");
  int iterations = 50;
  int small_iterations = 1000;
  int ranks = 0;
  app.add_option("--iterations", iterations, "timed calls at 64 MiB")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--small_iterations", small_iterations, "timed calls at 198 KiB")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--ranks", ranks, "ranks, one per GPU (default: every visible GPU)")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  auto gpus = trainpkg::runtime::ListGpus();
  if (!gpus.ok() || gpus->empty()) {
    std::fprintf(stderr, "collectives_nccl_allreduce_bench: no usable GPU: %s\n",
                 gpus.ok() ? "none visible to this process" : gpus.status().ToString().c_str());
    return 2;
  }
  const int available = static_cast<int>(gpus->size());
  if (ranks == 0) ranks = available;
  if (ranks > available) {
    std::fprintf(stderr,
                 "collectives_nccl_allreduce_bench: --ranks=%d but %d GPU(s) are visible; NCCL "
                 "takes one rank per GPU\n",
                 ranks, available);
    return 2;
  }
  int nccl_version = 0;
  ncclGetVersion(&nccl_version);
  std::printf("GPUs: %d x %s, NCCL %d\n\n", ranks, (*gpus)[0].name.c_str(), nccl_version);
  std::printf(
      "| ranks | size | trainpkg median (min) ms | raw NCCL median (min) ms | "
      "raw/trainpkg |\n|---:|---|---:|---:|---:|\n");
  struct Size {
    const char* label;
    size_t floats;
    int iterations;
  };
  const Size sizes[] = {{"64 MiB", size_t{64} << 20 >> 2, iterations},
                        {"198 KiB (digits bucket)", 50827, small_iterations}};
  for (const Size& size : sizes) {
    Timing raw;
    Timing ours;
    // Raw first, then ours, twice: the better median of each (warm clocks).
    for (int round = 0; round < 2; ++round) {
      Timing r;
      Timing o;
      if (std::string e = RunRaw(ranks, size.floats, size.iterations, r); !e.empty()) {
        std::fprintf(stderr, "raw NCCL %s: %s\n", size.label, e.c_str());
        return 1;
      }
      if (std::string e = RunOurs(ranks, size.floats, size.iterations, o); !e.empty()) {
        std::fprintf(stderr, "trainpkg %s: %s\n", size.label, e.c_str());
        return 1;
      }
      if (round == 0 || r.median_ms < raw.median_ms) raw.median_ms = r.median_ms;
      if (round == 0 || r.min_ms < raw.min_ms) raw.min_ms = r.min_ms;
      if (round == 0 || o.median_ms < ours.median_ms) ours.median_ms = o.median_ms;
      if (round == 0 || o.min_ms < ours.min_ms) ours.min_ms = o.min_ms;
    }
    std::printf("| %d | %s | %.4f (%.4f) | %.4f (%.4f) | %.2f |\n", ranks, size.label,
                ours.median_ms, ours.min_ms, raw.median_ms, raw.min_ms,
                raw.median_ms / ours.median_ms);
    std::fflush(stdout);
  }
  return 0;
}
