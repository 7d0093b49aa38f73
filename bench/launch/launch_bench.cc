// Time from Submit() to all replicas running for a 4-replica job (1 chief +
// 3 workers), in container mode (runc) and process mode, against 4
// sequential `runc run` of `/bin/busybox true` from a bundle made with
// `runc spec` on the same rootfs. "Running" = the replica's first command
// has created its marker file; the bench polls for the 4th every 0.2 ms.
// Run as root from the repository root:
//   build/bench/launch/launch_bench [--runs=7] [--json=launch.json]
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/environment.h"
#include "bench/launch/launch_timing.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "packager/builder/builder.h"
#include "packager/builder/image_store.h"
#include "sdk/custom_job.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using trainpkg::bench::CountMarkers;
using trainpkg::bench::MarkerCommand;
using trainpkg::bench::Median;
using trainpkg::bench::SecondsToMarkers;
using trainpkg::jobspec::CustomJob;

constexpr int kReplicas = 4;

int Sh(const std::string& command) {
  int status = std::system((command + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

CustomJob MakeJob(const std::string& image_uri, std::vector<std::string> command,
                  const fs::path& output) {
  CustomJob job;
  job.display_name = "launch-bench";
  job.job_spec.base_output_directory = output.string() + "/";
  for (int count : {1, kReplicas - 1}) {
    trainpkg::jobspec::WorkerPoolSpec pool;
    pool.replica_count = count;
    pool.machine_spec.emplace().machine_type = "n1-standard-4";
    pool.container_spec.emplace();
    pool.container_spec->image_uri = image_uri;
    pool.container_spec->command = command;
    pool.container_spec->args = {MarkerCommand(output)};
    job.job_spec.worker_pool_specs.push_back(std::move(pool));
  }
  return job;
}

// Seconds from Submit() to kReplicas markers; the job then runs to its end.
double TimeJob(const fs::path& home, const CustomJob& spec, const fs::path& output) {
  fs::remove_all(output);
  trainpkg::sdk::CustomJobOptions options;
  options.home = home;
  options.stream_replica_output = false;
  return SecondsToMarkers(spec, options, output, kReplicas);
}

// A `runc spec` bundle running /bin/busybox true on `rootfs`, host network.
void MakePeerBundle(const fs::path& bundle, const fs::path& rootfs) {
  fs::create_directories(bundle);
  if (Sh("cd " + bundle.string() + " && runc spec") != 0) {
    std::cerr << "runc spec failed\n";
    std::exit(1);
  }
  std::ifstream in(bundle / "config.json");
  nlohmann::json config = nlohmann::json::parse(in);
  config["root"] = {{"path", rootfs.string()}, {"readonly", true}};
  config["process"]["terminal"] = false;
  config["process"]["args"] = {"/bin/busybox", "true"};
  nlohmann::json namespaces = nlohmann::json::array();
  for (const auto& ns : config["linux"]["namespaces"]) {
    if (ns["type"] != "network") namespaces.push_back(ns);
  }
  config["linux"]["namespaces"] = namespaces;
  std::ofstream(bundle / "config.json") << config.dump();
}

double TimePeer(const fs::path& bundle) {
  Clock::time_point start = Clock::now();
  for (int i = 0; i < kReplicas; ++i) {
    std::string id = fmt::format("launch-bench-peer-{}-{}", ::getpid(), i);
    if (Sh("runc run --bundle " + bundle.string() + " " + id) != 0) {
      std::cerr << "runc run failed\n";
      std::exit(1);
    }
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7;
  std::string json_path = "launch.json";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--runs=", 0) == 0) runs = std::max(1, std::stoi(arg.substr(7)));
    if (arg.rfind("--json=", 0) == 0) json_path = arg.substr(7);
  }
  if (::geteuid() != 0 || Sh("runc --version") != 0 || !fs::exists("/bin/busybox")) {
    std::cerr << "launch_bench needs root, runc and /bin/busybox (busybox-static)\n";
    return 2;
  }
  char tmpl[] = "/tmp/launch-bench.XXXXXX";
  const fs::path dir = ::mkdtemp(tmpl);
  const fs::path home = dir / "home";
  const fs::path output = dir / "output";
  fs::create_directories(dir / "ctx/bin");
  fs::copy_file("/bin/busybox", dir / "ctx/bin/busybox");
  std::ofstream(dir / "ctx/Dockerfile") << "FROM scratch\nCOPY bin/busybox /bin/busybox\n";
  auto store = trainpkg::packager::builder::ImageStore::Open(home / "images");
  trainpkg::packager::builder::Builder builder(trainpkg::packager::builder::BuilderOptions{
      store->layout(), home / "cache", nullptr, {}, {}, {}});
  trainpkg::packager::builder::BuildRequest request;
  request.context_dir = dir / "ctx";
  auto image = builder.Build(request);
  if (!image.ok() || !store->Tag(image->manifest_descriptor, "launch-bench:1").ok()) {
    std::cerr << "building the image failed\n";
    return 1;
  }
  const std::vector<std::string> sh = {"/bin/busybox", "sh", "-c"};
  const CustomJob container_job = MakeJob("launch-bench:1", sh, output);
  const CustomJob process_job = MakeJob("local:/bin/busybox", sh, output);
  // Warm-up: unpacks the image into the rootfs cache.
  TimeJob(home, container_job, output);
  TimeJob(home, process_job, output);
  fs::path rootfs;
  for (const auto& entry : fs::directory_iterator(home / "rootfs")) rootfs = entry.path();
  MakePeerBundle(dir / "peer", rootfs);
  TimePeer(dir / "peer");

  std::vector<double> container, process, peer;
  for (int i = 0; i < runs; ++i) {  // interleaved, so load drifts hit all three
    container.push_back(TimeJob(home, container_job, output));
    process.push_back(TimeJob(home, process_job, output));
    peer.push_back(TimePeer(dir / "peer"));
  }
  const double c = Median(container), p = Median(process), r = Median(peer);
  fmt::print("submit -> {} replicas running (median of {} runs; warm rootfs cache)\n", kReplicas,
             runs);
  fmt::print("{:<40} {:>10} {:>16}\n", "", "ms", "vs 4x runc run");
  fmt::print("{:<40} {:>10.1f} {:>16.2f}\n", "trainpkg container mode (runc)", c * 1e3, c / r);
  fmt::print("{:<40} {:>10.1f} {:>16.2f}\n", "trainpkg process mode", p * 1e3, p / r);
  fmt::print("{:<40} {:>10.1f} {:>16.2f}\n", "4 x `runc run` of true (sequential)", r * 1e3, 1.0);
  nlohmann::json out = {{"replicas", kReplicas},         {"runs", runs},
                        {"container_mode_s", container}, {"process_mode_s", process},
                        {"runc_run_true_x4_s", peer},    {"container_vs_runc", c / r},
                        {"process_vs_runc", p / r}};
  std::ofstream(json_path) << out.dump(2) << "\n";
  fs::remove_all(dir);
  return 0;
}
