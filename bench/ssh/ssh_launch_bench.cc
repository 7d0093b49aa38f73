// Time from Submit() to all replicas running for a 4-replica job (1 chief +
// 3 workers) on the SSH backend, over two namespace hosts with 2 slots each
// (Debian's sshd in network namespaces: tests/sdk/ssh/ssh_hosts.h), against
// the same 4 commands started by hand: `pdsh -R ssh -w host1,host2` running
// two per host, and four plain `ssh host cmd &`. "Running" = the replica's
// command has created its marker file (the hosts share this filesystem);
// polled every 0.2 ms. trainpkg's time includes its connection per host,
// the probe (ports, cached executables), the setup of each host's job
// directory and the replicas' own ssh sessions; the peers' include their
// connections. Needs root. Run from the repository root:
//   build/bench/ssh/ssh_launch_bench [--runs=7] [--json=ssh_launch.json]
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "bench/launch/launch_timing.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "sdk/custom_job.h"
#include "tests/sdk/ssh/ssh_hosts.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using trainpkg::bench::CountMarkers;
using trainpkg::bench::MarkerCommand;
using trainpkg::bench::Median;
using trainpkg::bench::SecondsToMarkers;
using trainpkg::jobspec::CustomJob;

constexpr int kReplicas = 4;

CustomJob MakeJob(const fs::path& output) {
  CustomJob job;
  job.display_name = "ssh-launch-bench";
  job.job_spec.base_output_directory = output.string() + "/";
  for (int count : {1, kReplicas - 1}) {
    trainpkg::jobspec::WorkerPoolSpec pool;
    pool.replica_count = count;
    pool.machine_spec.emplace().machine_type = "n1-standard-4";
    pool.container_spec.emplace();
    pool.container_spec->image_uri = "local:/bin/sh";
    pool.container_spec->command = {"/bin/sh", "-c"};
    pool.container_spec->args = {MarkerCommand(output)};
    job.job_spec.worker_pool_specs.push_back(std::move(pool));
  }
  return job;
}

// Seconds from running `command` (with sh) to kReplicas markers in `output`.
double TimeCommand(const std::string& command, const fs::path& output) {
  fs::remove_all(output);
  fs::create_directories(output);
  const Clock::time_point start = Clock::now();
  const int status = std::system(command.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "failed: " << command << "\n";
    std::exit(1);
  }
  while (CountMarkers(output) < kReplicas) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let them exit
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7;
  std::string json_path = "ssh_launch.json";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--runs=", 0) == 0) runs = std::max(1, std::stoi(arg.substr(7)));
    if (arg.rfind("--json=", 0) == 0) json_path = arg.substr(7);
  }
  using trainpkg::sdk::testing::SshHosts;
  if (std::string why = SshHosts::Unavailable(); !why.empty()) {
    std::cerr << "ssh_launch_bench: " << why << "\n";
    return 2;
  }
  const bool pdsh = std::system("command -v pdsh >/dev/null") == 0;
  SshHosts hosts;
  if (absl::Status started = hosts.Start({.hosts = 2, .without_sshd = {}}); !started.ok()) {
    std::cerr << started << "\n";
    return 1;
  }
  const fs::path home = hosts.dir() / "jobs";
  const fs::path output = hosts.dir() / "output";
  const CustomJob job = MakeJob(output);
  const std::string config = hosts.ssh_config().string();
  const std::string marker = MarkerCommand(output);
  auto trainpkg_run = [&] {
    fs::remove_all(output);
    fs::create_directories(output);
    trainpkg::sdk::CustomJobOptions options;
    options.backend = trainpkg::sdk::JobBackendKind::kSsh;
    options.home = home;
    options.stream_replica_output = false;
    options.ssh.hosts = {{"host1", 2}, {"host2", 2}};
    options.ssh.ssh_config = config;
    return SecondsToMarkers(job, options, output, kReplicas);
  };
  // Two per host, by hand: one pdsh for both hosts, or four ssh sessions.
  const std::string pdsh_command = fmt::format(
      "PDSH_SSH_ARGS='-F {} -o BatchMode=yes %h' pdsh -R ssh -w host1,host2 "
      "'{} & {} & wait' >/dev/null 2>&1",
      config, marker, marker);
  std::string ssh_command;
  for (const char* host : {"host1", "host1", "host2", "host2"}) {
    ssh_command += fmt::format("ssh -F {} -o BatchMode=yes {} '{}' </dev/null >/dev/null 2>&1 & ",
                               config, host, marker);
  }
  ssh_command += "wait";
  trainpkg_run();  // warm-up
  if (pdsh) TimeCommand(pdsh_command, output);
  TimeCommand(ssh_command, output);
  std::vector<double> trainpkg_s, pdsh_s, ssh_s;
  for (int i = 0; i < runs; ++i) {  // interleaved, so load drifts hit all three
    trainpkg_s.push_back(trainpkg_run());
    if (pdsh) pdsh_s.push_back(TimeCommand(pdsh_command, output));
    ssh_s.push_back(TimeCommand(ssh_command, output));
  }
  const double peer = Median(ssh_s);
  fmt::print(
      "submit -> {} replicas running over SSH, 2 hosts x 2 (median of {} runs; fastest "
      "in brackets)\n",
      kReplicas, runs);
  fmt::print("{:<44} {:>18} {:>14}\n", "", "ms", "vs ssh & x4");
  auto row = [&](const std::string& name, const std::vector<double>& times) {
    if (times.empty()) return;
    fmt::print("{:<44} {:>9.1f} [{:>6.1f}] {:>14.2f}\n", name, Median(times) * 1e3,
               *std::min_element(times.begin(), times.end()) * 1e3, Median(times) / peer);
  };
  row("trainpkg --backend ssh", trainpkg_s);
  row("pdsh -R ssh -w host1,host2 (2 per host)", pdsh_s);
  row("4 x `ssh host cmd &`", ssh_s);
  nlohmann::json out = {
      {"replicas", kReplicas}, {"runs", runs},      {"trainpkg_ssh_s", trainpkg_s},
      {"pdsh_s", pdsh_s},      {"ssh_x4_s", ssh_s}, {"trainpkg_vs_ssh", Median(trainpkg_s) / peer}};
  if (!pdsh_s.empty()) out["trainpkg_vs_pdsh"] = Median(trainpkg_s) / Median(pdsh_s);
  std::ofstream(json_path) << out.dump(2) << "\n";
  return 0;
}
