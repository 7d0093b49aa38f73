// Time from Submit() to all replicas running for a 4-replica job (1 chief +
// 3 workers) on the Slurm backend, as one plain job (both pools
// n1-standard-4) and as a heterogeneous job (chief n1-standard-8), each
// submitted with sbatch (the default) and with salloc (SlurmSubmit),
// against the peer `srun -n4 true` (allocation, launch and exit of 4 tasks),
// against sbatch of a script whose `srun -n4` creates the markers (the
// same sbatch + srun structure without trainpkg; also split at the moment
// the batch script starts), and against `salloc -n4 srun -n4` creating
// them (an interactive allocation, which slurmctld schedules inside the
// request, then the same step), on a fresh single-host Slurm cluster
// (munged + slurmctld + 2 slurmd on free 127.0.0.1 ports;
// tests/sdk/slurm/slurm_cluster.h) whose SchedulerParameters are
// bf_interval=1 unless --scheduler-parameters= says otherwise ("" = Slurm's
// defaults). "Running" = the replica's command has created its marker file;
// polled every 0.2 ms. Run from the repository root:
//   build/bench/slurm/slurm_launch_bench [--runs=7] [--json=slurm_launch.json]
//       [--scheduler-parameters=bf_interval=1]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/launch/launch_timing.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "sdk/custom_job.h"
#include "tests/sdk/slurm/slurm_cluster.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using trainpkg::bench::CountMarkers;
using trainpkg::bench::MarkerCommand;
using trainpkg::bench::Median;
using trainpkg::bench::SecondsToMarkers;
using trainpkg::jobspec::CustomJob;

constexpr int kReplicas = 4;

CustomJob MakeJob(const fs::path& output, const std::string& chief_machine_type) {
  CustomJob job;
  job.display_name = "slurm-launch-bench";
  job.job_spec.base_output_directory = output.string() + "/";
  for (int count : {1, kReplicas - 1}) {
    trainpkg::jobspec::WorkerPoolSpec pool;
    pool.replica_count = count;
    pool.machine_spec.emplace().machine_type = count == 1 ? chief_machine_type : "n1-standard-4";
    pool.container_spec.emplace();
    pool.container_spec->image_uri = "local:/bin/sh";
    pool.container_spec->command = {"/bin/sh", "-c"};
    pool.container_spec->args = {MarkerCommand(output)};
    job.job_spec.worker_pool_specs.push_back(std::move(pool));
  }
  return job;
}

// Seconds from Submit() to kReplicas markers; the job then runs to its end.
double TimeJob(const fs::path& home, const CustomJob& spec, const fs::path& output,
               trainpkg::sdk::slurm::SlurmSubmit submit) {
  fs::remove_all(output);
  fs::create_directories(output);
  trainpkg::sdk::CustomJobOptions options;
  options.backend = trainpkg::sdk::JobBackendKind::kSlurm;
  options.home = home;
  options.stream_replica_output = false;
  options.slurm.task_program = SLURM_TASK_PATH;
  options.slurm.submit = submit;
  return SecondsToMarkers(spec, options, output, kReplicas);
}

double TimePeer() {
  Clock::time_point start = Clock::now();
  int status = std::system("srun -n4 true >/dev/null 2>&1");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "srun -n4 true failed\n";
    std::exit(1);
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct SbatchTimes {
  double markers = 0;       // seconds from sbatch to 4 markers
  double script_start = 0;  // of which until the batch script starts
};

// The same structure without trainpkg: sbatch of a script whose
// `srun -n4` step creates the markers. The script first writes the time
// it started (wall clock, nanoseconds), which splits the time into Slurm
// scheduling + starting the batch step, and the srun step.
SbatchTimes TimeSbatchPeer(const fs::path& dir, const fs::path& output) {
  fs::remove_all(output);
  fs::create_directories(output);
  const fs::path script = dir / "peer.sh";
  const fs::path started = dir / "peer.started";
  fs::remove(started);
  std::ofstream(script) << "#!/bin/bash\n#SBATCH --ntasks=4 --output=/dev/null\n"
                        << "date +%s%N > " << started.string() << "\n"
                        << "srun -n4 sh -c '" << MarkerCommand(output) << "'\n";
  const auto wall_start = std::chrono::system_clock::now();
  Clock::time_point start = Clock::now();
  int status = std::system(("sbatch --parsable " + script.string() + " >/dev/null 2>&1").c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "sbatch failed\n";
    std::exit(1);
  }
  while (CountMarkers(output) < kReplicas)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  SbatchTimes times;
  times.markers = std::chrono::duration<double>(Clock::now() - start).count();
  std::ifstream in(started);
  long long nanoseconds = 0;
  if (!(in >> nanoseconds)) {
    std::cerr << "the batch script wrote no start time to " << started << "\n";
    std::exit(1);
  }
  times.script_start = std::chrono::duration<double>(
                           std::chrono::system_clock::time_point(
                               std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                   std::chrono::nanoseconds(nanoseconds))) -
                           wall_start)
                           .count();
  return times;
}

// An interactive allocation instead of a batch job: `salloc -n4` runs
// `srun -n4` creating the markers; seconds from salloc to 4 markers. salloc
// runs in the background; WaitIdle() before the next measurement waits for
// it to end.
double TimeSallocPeer(const fs::path& output) {
  fs::remove_all(output);
  fs::create_directories(output);
  Clock::time_point start = Clock::now();
  int status = std::system(
      ("(salloc -Q -n4 srun -n4 sh -c '" + MarkerCommand(output) + "' >/dev/null 2>&1 &)").c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "salloc failed to start\n";
    std::exit(1);
  }
  while (CountMarkers(output) < kReplicas)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Waits, outside the timings, until no job is left and both nodes are idle
// (not completing), so each measurement starts from the same state; then
// for a random 0-1 s, so submissions fall at random points of slurmctld's
// one-second scheduling cycle (as users' do) rather than at a phase set by
// the previous job's end.
void WaitIdle() {
  while (std::system("test -z \"$(squeue -h)\" && test \"$(sinfo -h -o %t)\" = idle") != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  static std::mt19937 random(std::random_device{}());
  std::this_thread::sleep_for(
      std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 999)(random)));
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7;
  std::string json_path = "slurm_launch.json";
  trainpkg::sdk::testing::SlurmClusterOptions cluster_options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--runs=", 0) == 0) runs = std::max(1, std::stoi(arg.substr(7)));
    if (arg.rfind("--json=", 0) == 0) json_path = arg.substr(7);
    if (arg.rfind("--scheduler-parameters=", 0) == 0) {
      cluster_options.scheduler_parameters = arg.substr(23);
    }
  }
  if (std::string missing = trainpkg::sdk::testing::SlurmCluster::MissingBinaries();
      !missing.empty()) {
    std::cerr << "slurm_launch_bench needs Slurm and munge (missing: " << missing << ")\n";
    return 2;
  }
  trainpkg::sdk::testing::SlurmCluster cluster;
  if (absl::Status started = cluster.Start(cluster_options); !started.ok()) {
    std::cerr << started << "\n";
    return 1;
  }
  const fs::path home = cluster.dir() / "home";
  const fs::path output = cluster.dir() / "output";
  const CustomJob plain_job = MakeJob(output, "n1-standard-4");
  const CustomJob het_job = MakeJob(output, "n1-standard-8");
  using trainpkg::sdk::slurm::SlurmSubmit;
  TimeJob(home, plain_job, output, SlurmSubmit::kSbatch);  // warm-up
  TimeJob(home, het_job, output, SlurmSubmit::kSbatch);
  WaitIdle();
  TimeJob(home, plain_job, output, SlurmSubmit::kSalloc);
  TimePeer();
  TimeSbatchPeer(cluster.dir(), output);
  WaitIdle();
  TimeSallocPeer(output);
  std::vector<double> plain, het, plain_salloc, het_salloc, peer, sbatch_peer, sbatch_script,
      salloc_peer;
  for (int i = 0; i < runs; ++i) {  // interleaved, so load drifts hit all three
    WaitIdle();
    plain.push_back(TimeJob(home, plain_job, output, SlurmSubmit::kSbatch));
    WaitIdle();
    het.push_back(TimeJob(home, het_job, output, SlurmSubmit::kSbatch));
    WaitIdle();
    plain_salloc.push_back(TimeJob(home, plain_job, output, SlurmSubmit::kSalloc));
    WaitIdle();
    het_salloc.push_back(TimeJob(home, het_job, output, SlurmSubmit::kSalloc));
    WaitIdle();
    peer.push_back(TimePeer());
    WaitIdle();
    const SbatchTimes sbatch = TimeSbatchPeer(cluster.dir(), output);
    sbatch_peer.push_back(sbatch.markers);
    sbatch_script.push_back(sbatch.script_start);
    WaitIdle();
    salloc_peer.push_back(TimeSallocPeer(output));
  }
  const double p = Median(peer);
  fmt::print(
      "submit -> {} replicas running on Slurm (median of {} runs; fastest in brackets), "
      "SchedulerParameters={}\n",
      kReplicas, runs,
      cluster_options.scheduler_parameters.empty() ? "(Slurm's defaults)"
                                                   : cluster_options.scheduler_parameters);
  fmt::print("{:<52} {:>18} {:>12}\n", "", "ms", "vs srun -n4");
  auto row = [&](const std::string& name, const std::vector<double>& times) {
    const double median = Median(times);
    fmt::print("{:<52} {:>9.1f} [{:>6.1f}] {:>12.2f}\n", name, median * 1e3,
               *std::min_element(times.begin(), times.end()) * 1e3, median / p);
  };
  row("trainpkg --backend slurm, one plain job (1 + 3)", plain);
  row("trainpkg --backend slurm, het job (1 n1-std-8 + 3)", het);
  row("trainpkg --slurm-submit=salloc, one plain job", plain_salloc);
  row("trainpkg --slurm-submit=salloc, het job", het_salloc);
  row("`srun -n4 true`", peer);
  row("sbatch of a script running `srun -n4` (no trainpkg)", sbatch_peer);
  row("  of which until the batch script starts", sbatch_script);
  row("`salloc -n4 srun -n4` (no trainpkg)", salloc_peer);
  nlohmann::json out = {{"replicas", kReplicas},
                        {"runs", runs},
                        {"plain_job_s", plain},
                        {"het_job_s", het},
                        {"salloc_plain_job_s", plain_salloc},
                        {"salloc_het_job_s", het_salloc},
                        {"srun_n4_true_s", peer},
                        {"scheduler_parameters", cluster_options.scheduler_parameters},
                        {"sbatch_srun_n4_s", sbatch_peer},
                        {"sbatch_script_start_s", sbatch_script},
                        {"salloc_srun_n4_s", salloc_peer},
                        {"plain_vs_srun", Median(plain) / p},
                        {"het_vs_srun", Median(het) / p},
                        {"salloc_plain_vs_srun", Median(plain_salloc) / p},
                        {"salloc_het_vs_srun", Median(het_salloc) / p}};
  std::ofstream(json_path) << out.dump(2) << "\n";
  return 0;
}
