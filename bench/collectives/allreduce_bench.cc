// float32 allreduce (64 MiB unless --bytes says otherwise), --ranks ranks
// (default 2) as processes on this host: our Communicator on each of its CPU
// transports -- shared memory (what co-located ranks get by default) and Gloo
// over 127.0.0.1 (through trainpkg's coordination store) -- against raw Gloo
// (FileStore rendezvous, the same TCP device; gloo::allreduce with the
// algorithm our Gloo transport picks for that size -- ring from 256 KiB,
// BCube below -- plus Gloo's ring_chunked and halving_doubling) and Open MPI's
// MPI_Allreduce over its TCP and its shared-memory (vader) transports when the
// MPI bench was built.
//
//   collectives_allreduce_bench [--bytes=67108864] [--ranks=2] [--iterations=10]
//                               [--rounds=3] [--json=allreduce_bench.json]
//
// --bytes is rounded down to whole floats. --bytes=203308 is the digits MLP's
// gradient bucket (50,826 floats and the replica's batch weight), allreduced
// once per training step: latency-bound where 64 MiB is bandwidth-bound.
//
// Each of our transports is measured twice: AllReduce on the buffer at every
// call (trainpkg_<transport>_communicator) and an allreduce prepared once and
// run every time (trainpkg_<transport>_prepared: what Fit's gradient reducer
// runs per bucket; over Gloo, halving-doubling on preregistered buffers below
// 256 KiB, the same ring as AllReduce from there). The driver starts every
// rank itself (mpirun for MPI), rank 0 of each peer prints "RESULT <name>
// <median ms> <min ms>" lines, and the driver prints one table (ratio = peer
// time / trainpkg_shm_prepared's: > 1 means ours is faster) and writes the
// JSON. Timings: a barrier, then one allreduce, timed on rank 0; the median
// of --iterations after 2 warm-up runs. The peers take turns for --rounds
// rounds, alternating which goes first (so a change in machine load hits
// them alike); the table shows the median of the rounds' medians and the
// smallest time seen. Every run checks the sums.
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gloo/allreduce.h"
#include "gloo/allreduce_halving_doubling.h"
#include "gloo/allreduce_ring_chunked.h"
#include "gloo/barrier.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/rendezvous/prefix_store.h"
#include "gloo/transport/tcp/device.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/collectives/cpu_communicator.h"
#include "trainer_runtime/coordination/coordinator.h"

namespace {

namespace fs = std::filesystem;
constexpr size_t kDefaultBytes = 64u << 20;  // 64 MiB of float32
// The size from which our Communicator (and the raw Gloo peer) use the ring.
constexpr size_t kRingMinBytes = 256 * 1024;
constexpr int kWarmup = 2;

// Fills rank r's buffer so that the sum over n ranks is known: r + i % 7.
void Fill(std::vector<float>& data, int rank) {
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(rank + i % 7);
}

bool SumIsRight(const std::vector<float>& data, int ranks) {
  for (size_t i = 0; i < data.size(); i += 409) {
    if (data[i] != static_cast<float>(ranks * (ranks - 1) / 2 + ranks * static_cast<int>(i % 7))) {
      return false;
    }
  }
  return true;
}

// Times `iterations` runs (each after barrier) of the op that prepare
// returns for this rank's buffer (prepare runs once: what a prepared,
// persistent allreduce sets up goes there); prints the result line on rank 0.
// Returns false when a sum was wrong.
bool Measure(const std::string& name, int rank, int ranks, size_t floats, int iterations,
             const std::function<void()>& barrier,
             const std::function<std::function<void()>(std::vector<float>&)>& prepare) {
  std::vector<float> data(floats);
  const std::function<void()> allreduce = prepare(data);
  std::vector<double> ms;
  for (int it = 0; it < kWarmup + iterations; ++it) {
    Fill(data, rank);
    barrier();
    const auto start = std::chrono::steady_clock::now();
    allreduce();
    const auto end = std::chrono::steady_clock::now();
    if (!SumIsRight(data, ranks)) {
      fmt::print(stderr, "{}: wrong sum on rank {}\n", name, rank);
      return false;
    }
    if (it >= kWarmup) ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::sort(ms.begin(), ms.end());
  if (rank == 0) fmt::print("RESULT {} {:.4f} {:.4f}\n", name, ms[ms.size() / 2], ms.front());
  std::fflush(stdout);
  return true;
}

// Our Communicator on `transport` ("gloo" or "shm"), rank `rank` of `ranks`.
int RunOurs(const std::string& transport, int rank, int ranks, int port, size_t floats,
            int iterations) {
  namespace collectives = trainpkg::collectives;
  trainpkg::runtime::ClusterInfo info;
  info.source = "bench";
  info.task_type = rank == 0 ? "chief" : "worker";
  info.task_index = rank == 0 ? 0 : rank - 1;
  info.rank = rank;
  info.world_size = ranks;
  info.is_chief = rank == 0;
  info.coordinator_address = fmt::format("127.0.0.1:{}", port);
  for (int r = 0; r < ranks; ++r) {
    info.worker_addresses.push_back(fmt::format("127.0.0.1:{}", port + r));
  }
  auto coordinator = trainpkg::coordination::Coordinator::Start(info, {});
  if (!coordinator.ok()) {
    fmt::print(stderr, "coordination: {}\n", std::string(coordinator.status().message()));
    return 1;
  }
  auto parsed = collectives::ParseCpuTransport(transport);
  if (!parsed.ok()) {
    fmt::print(stderr, "{}\n", std::string(parsed.status().message()));
    return 1;
  }
  auto cpu = collectives::CreateCpuCommunicator(
      (*coordinator)->client(), {.transport = *parsed, .gloo = collectives::GlooOptionsFor(info)});
  if (!cpu.ok()) {
    fmt::print(stderr, "communicator: {}\n", std::string(cpu.status().message()));
    return 1;
  }
  collectives::Communicator* comm = cpu->comm.get();
  const std::string prefix = "trainpkg_" + transport + "_";
  auto report = [](const absl::Status& s) {
    if (!s.ok()) fmt::print(stderr, "allreduce: {}\n", std::string(s.message()));
  };
  auto barrier = [&] { report(comm->Barrier()); };
  bool ok = Measure(prefix + "communicator", rank, ranks, floats, iterations, barrier,
                    [&](std::vector<float>& data) {
                      return [&] { report(comm->AllReduce(data, collectives::ReduceOp::kSum)); };
                    });
  // What Fit's gradient reducer runs for each bucket.
  std::unique_ptr<collectives::PreparedAllReduce> prepared;
  ok = ok && Measure(prefix + "prepared", rank, ranks, floats, iterations, barrier,
                     [&](std::vector<float>& data) -> std::function<void()> {
                       auto p = comm->PrepareAllReduce(data, collectives::ReduceOp::kSum);
                       if (!p.ok()) {
                         report(p.status());
                         return [] {};
                       }
                       prepared = *std::move(p);
                       return [&] { report(prepared->Run()); };
                     });
  absl::Status finished = (*coordinator)->Shutdown();
  return ok && finished.ok() ? 0 : 1;
}

int RunGloo(int rank, int ranks, const std::string& store_dir, size_t floats, int iterations) {
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore file_store(store_dir);
  gloo::rendezvous::PrefixStore store("bench", file_store);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, ranks);
  context->connectFullMesh(store, device);
  using ReduceFn = void (*)(void*, const void*, const void*, size_t);
  uint32_t tag = 0;
  auto barrier = [&] {
    gloo::BarrierOptions opts(context);
    opts.setTag(tag++);
    gloo::barrier(opts);
  };
  const bool ring = floats * sizeof(float) >= kRingMinBytes;
  bool ok = Measure(ring ? "gloo_allreduce_ring" : "gloo_allreduce_bcube", rank, ranks, floats,
                    iterations, barrier, [&](std::vector<float>& d) {
                      return [&] {
                        gloo::AllreduceOptions opts(context);
                        opts.setOutput(d.data(), d.size());
                        opts.setReduceFunction(static_cast<ReduceFn>(&gloo::sum<float>));
                        opts.setAlgorithm(ring ? gloo::AllreduceOptions::Algorithm::RING
                                               : gloo::AllreduceOptions::Algorithm::BCUBE);
                        opts.setTag(tag++);
                        gloo::allreduce(opts);
                      };
                    });
  ok = ok && Measure("gloo_ring_chunked", rank, ranks, floats, iterations, barrier,
                     [&](std::vector<float>& d) {
                       return [&] {
                         gloo::AllreduceRingChunked<float>(context, {d.data()},
                                                           static_cast<int>(d.size()))
                             .run();
                       };
                     });
  ok = ok && Measure("gloo_halving_doubling", rank, ranks, floats, iterations, barrier,
                     [&](std::vector<float>& d) {
                       return [&] {
                         gloo::AllreduceHalvingDoubling<float>(context, {d.data()},
                                                               static_cast<int>(d.size()))
                             .run();
                       };
                     });
  // Built once, run every time: the raw Gloo twin of our prepared allreduce.
  std::unique_ptr<gloo::AllreduceHalvingDoubling<float>> prepared;
  ok = ok && Measure("gloo_halving_doubling_prepared", rank, ranks, floats, iterations, barrier,
                     [&](std::vector<float>& d) {
                       prepared = std::make_unique<gloo::AllreduceHalvingDoubling<float>>(
                           context, std::vector<float*>{d.data()}, static_cast<int>(d.size()));
                       return [&] { prepared->run(); };
                     });
  return ok ? 0 : 1;
}

std::string Self() { return fs::read_symlink("/proc/self/exe").string(); }

// Runs argv with stdout to `out`; returns the exit status.
pid_t Spawn(const std::vector<std::string>& args, const fs::path& out) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

struct Result {
  std::string name;
  double median_ms = 0;
  double min_ms = 0;
};

void Collect(const fs::path& out, const std::string& prefix, std::vector<Result>& results) {
  std::ifstream in(out);
  std::string word;
  Result r;
  while (in >> word) {
    if (word != "RESULT") continue;
    in >> r.name >> r.median_ms >> r.min_ms;
    r.name = prefix + r.name;
    results.push_back(r);
  }
}

// Every rank of one peer as a process (args(r) is rank r's command line);
// rank 0's RESULT lines collected.
bool RunGroup(int ranks, const std::function<std::vector<std::string>(int)>& args,
              const fs::path& dir, std::vector<Result>& results) {
  std::vector<pid_t> pids;
  for (int r = 0; r < ranks; ++r)
    pids.push_back(Spawn(args(r), dir / fmt::format("rank{}.out", r)));
  bool ok = true;
  for (int r = 0; r < ranks; ++r) {
    if (const int exit = Wait(pids[static_cast<size_t>(r)]); exit != 0) {
      fmt::print(stderr, "{} rank {} failed (exit {})\n", args(r)[1], r, exit);
      ok = false;
    }
  }
  if (ok) Collect(dir / "rank0.out", "", results);
  return ok;
}

// One turn of every peer; false when one failed. Odd rounds run raw Gloo
// before ours, so neither always goes first.
bool RunRound(int round, int ranks, size_t floats, int iterations, const fs::path& dir,
              std::vector<Result>& results) {
  const std::string self = Self(), its = std::to_string(iterations);
  const std::string count = std::to_string(floats), n = std::to_string(ranks);
  const std::string store = (dir / "store").string();
  auto ours = [&](const std::string& transport) {
    // Ports port..port+ranks-1: the coordinator's, then Gloo's per rank.
    const std::string port = std::to_string(FreePort());
    return RunGroup(
        ranks,
        [&](int r) {
          return std::vector<std::string>{self, "ours", transport, std::to_string(r),
                                          n,    port,   count,     its};
        },
        dir, results);
  };
  auto gloo = [&] {
    fs::remove_all(store);
    fs::create_directories(store);
    return RunGroup(
        ranks,
        [&](int r) {
          return std::vector<std::string>{self, "gloo", std::to_string(r), n, store, count, its};
        },
        dir, results);
  };
  bool ok = round % 2 == 0 ? ours("shm") && ours("gloo") && gloo()
                           : gloo() && ours("gloo") && ours("shm");
#ifdef TRAINPKG_MPI_BENCH
  for (const auto& [btl, label] : std::vector<std::pair<std::string, std::string>>{
           {"self,tcp", "mpi_tcp_"}, {"self,vader", "mpi_shared_memory_"}}) {
    const pid_t pid =
        // plm isolated: both ranks on this host, even inside a Slurm allocation
        // (where Open MPI would launch them through srun).
        Spawn({TRAINPKG_MPIEXEC,
               "--allow-run-as-root",
               "--oversubscribe",
               "-np",
               n,
               "--mca",
               "plm",
               "isolated",
               "--mca",
               "pml",
               "ob1",
               "--mca",
               "btl",
               btl,
               "--mca",
               "btl_tcp_if_include",
               "lo",
               "--mca",
               "oob_tcp_if_include",
               "lo",
               TRAINPKG_MPI_BENCH,
               its,
               count},
              dir / "mpi.out");
    if (Wait(pid) != 0) {
      fmt::print(stderr, "mpirun with btl {} failed; see {}\n", btl, (dir / "mpi.out").string());
      ok = false;
      continue;
    }
    Collect(dir / "mpi.out", label, results);
  }
#endif
  return ok;
}

// Per name: the median of the rounds' medians, the smallest minimum.
std::vector<Result> Summarize(const std::vector<Result>& rounds) {
  std::vector<Result> summary;
  for (const Result& r : rounds) {
    if (std::none_of(summary.begin(), summary.end(),
                     [&](const Result& s) { return s.name == r.name; })) {
      summary.push_back({r.name, 0, r.min_ms});
    }
  }
  for (Result& s : summary) {
    std::vector<double> medians;
    for (const Result& r : rounds) {
      if (r.name != s.name) continue;
      medians.push_back(r.median_ms);
      s.min_ms = std::min(s.min_ms, r.min_ms);
    }
    std::sort(medians.begin(), medians.end());
    s.median_ms = medians[medians.size() / 2];
  }
  return summary;
}

int Drive(int ranks, size_t floats, int iterations, int rounds, const std::string& json_path) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("trainpkg-allreduce-{}", getpid());
  fs::create_directories(dir);
#ifndef TRAINPKG_MPI_BENCH
  fmt::print("(Open MPI peer not built: CMake found no MPI)\n");
#endif
  std::vector<Result> all;
  bool ok = true;
  for (int round = 0; round < rounds; ++round) {
    ok = RunRound(round, ranks, floats, iterations, dir, all) && ok;
  }
  const std::vector<Result> results = Summarize(all);
  double ours = 0;
  for (const Result& r : results) {
    if (r.name == "trainpkg_shm_prepared") ours = r.median_ms;
  }
  const size_t bytes = floats * sizeof(float);
  fmt::print(
      "{} bytes ({:.1f} KiB) float32 allreduce, {} ranks ({} processes on this host), {} rounds of "
      "{} iterations\n",
      bytes, static_cast<double>(bytes) / 1024, ranks, ranks, rounds, iterations);
  fmt::print("{:<32} {:>10} {:>10} {:>9} {:>14}\n", "implementation", "median ms", "min ms", "GB/s",
             "peer / ours");
  std::ostringstream json;
  json << "{\"bytes\": " << bytes << ", \"ranks\": " << ranks << ", \"iterations\": " << iterations
       << ", \"rounds\": " << rounds << ", \"results\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    const double gbps = static_cast<double>(bytes) / (r.median_ms * 1e6);
    const double ratio = ours > 0 ? r.median_ms / ours : 0;
    fmt::print("{:<32} {:>10.3f} {:>10.3f} {:>9.2f} {:>14.3f}\n", r.name, r.median_ms, r.min_ms,
               gbps, ratio);
    json << (i ? ", " : "") << "{\"name\": \"" << r.name << "\", \"median_ms\": " << r.median_ms
         << ", \"min_ms\": " << r.min_ms << ", \"peer_over_ours\": " << ratio << "}";
  }
  json << "]}\n";
  std::ofstream(json_path) << json.str();
  fmt::print("wrote {}\n", json_path);
  fs::remove_all(dir);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 7 && args[0] == "ours") {
    return RunOurs(args[1], std::stoi(args[2]), std::stoi(args[3]), std::stoi(args[4]),
                   std::stoul(args[5]), std::stoi(args[6]));
  }
  if (args.size() == 6 && args[0] == "gloo") {
    return RunGloo(std::stoi(args[1]), std::stoi(args[2]), args[3], std::stoul(args[4]),
                   std::stoi(args[5]));
  }
  size_t bytes = kDefaultBytes;
  int iterations = 10;
  int rounds = 3;
  int ranks = 2;
  std::string json = "allreduce_bench.json";
  for (const std::string& a : args) {
    if (a.rfind("--bytes=", 0) == 0) {
      bytes = std::stoul(a.substr(8));
    } else if (a.rfind("--iterations=", 0) == 0) {
      iterations = std::stoi(a.substr(13));
    } else if (a.rfind("--rounds=", 0) == 0) {
      rounds = std::stoi(a.substr(9));
    } else if (a.rfind("--ranks=", 0) == 0) {
      ranks = std::stoi(a.substr(8));
    } else if (a.rfind("--json=", 0) == 0) {
      json = a.substr(7);
    } else {
      fmt::print(stderr,
                 "usage: collectives_allreduce_bench [--bytes=N] [--ranks=N] [--iterations=N] "
                 "[--rounds=N] [--json=PATH]\n");
      return 2;
    }
  }
  if (bytes < sizeof(float)) {
    fmt::print(stderr, "--bytes={}: need at least one float (4 bytes)\n", bytes);
    return 2;
  }
  if (ranks < 2) {
    fmt::print(stderr, "--ranks={}: need at least 2\n", ranks);
    return 2;
  }
  return Drive(ranks, bytes / sizeof(float), std::max(iterations, 1), std::max(rounds, 1), json);
}
