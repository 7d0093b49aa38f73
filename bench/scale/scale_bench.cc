// The C++ side of bench/scale (bench/README.md, "scale"); scale_bench.py
// drives it and times the trainpkg command and server around it.
//
//   scale_bench generate --home DIR --jobs N
//       N finished jobs written through the job store (sdk/job_store.h) as
//       the local backend records them: job.json, history.jsonl, local.json.
//       Display names "scale-<i>", label team=a|b|c, states SUCCEEDED (80%),
//       FAILED (15%), CANCELLED (5%), create times one minute apart.
//   scale_bench replicas --replicas 4 16 64 --runs 3
//       process-mode jobs (local:/bin/busybox) of N replicas: Submit() -> all
//       replicas running (each has created its marker), then the replicas'
//       end -> the store's job.json terminal.
//   scale_bench suggest --trials N --repeats 3
//       latency of one suggestion of the default algorithm (Bayesian) given
//       N completed trials of Hartmann6 (6-D) at uniform random points, and
//       the process's peak RSS.
// Every mode prints one JSON object on stdout.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/hptune/test_functions.h"
#include "bench/launch/launch_timing.h"
#include "fmt/format.h"
#include "jobspec/custom_job.h"
#include "jobspec/study_spec.h"
#include "nlohmann/json.hpp"
#include "sdk/custom_job.h"
#include "sdk/hptune/suggester.h"
#include "sdk/internal/job_id.h"
#include "sdk/job_store.h"

namespace trainpkg::bench {
namespace {

namespace fs = std::filesystem;
using SteadyClock = std::chrono::steady_clock;

[[noreturn]] void Fail(const absl::Status& status) {
  std::cerr << "scale_bench: " << status << "\n";
  std::exit(1);
}

double SecondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

// Peak resident set of this process (VmHWM), in MiB.
double PeakRssMib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

int Generate(const fs::path& home, int count) {
  const sdk::JobStore store(home);
  const absl::Time base = absl::FromUnixSeconds(1764000000);
  std::mt19937_64 rng(7);
  const auto start = SteadyClock::now();
  for (int i = 0; i < count; ++i) {
    const absl::Time created = base + absl::Minutes(i);
    // Ids as the sdk makes them (milliseconds and 3 digits), unique here by i.
    std::string id = fmt::format("{}{:03d}", absl::ToUnixMillis(created), i % 1000);
    jobspec::CustomJob job;
    job.name = sdk::internal::JobResourceName("local", "local", id);
    job.display_name = fmt::format("scale-{}", i);
    job.labels["team"] = std::string(1, static_cast<char>('a' + i % 3));
    jobspec::WorkerPoolSpec pool;
    pool.replica_count = 1;
    pool.machine_spec.emplace().machine_type = "n1-standard-4";
    pool.container_spec.emplace().image_uri = "local:/bin/true";
    job.job_spec.worker_pool_specs.push_back(pool);
    const int roll = static_cast<int>(rng() % 100);
    job.state = roll < 80   ? jobspec::JobState::kSucceeded
                : roll < 95 ? jobspec::JobState::kFailed
                            : jobspec::JobState::kCancelled;
    if (job.state == jobspec::JobState::kFailed) {
      job.error = jobspec::RpcStatus{.code = 13, .message = "workerpool0-0 exited with status 1"};
    }
    job.create_time = created;
    job.start_time = created + absl::Seconds(1);
    job.end_time = job.update_time = created + absl::Seconds(30);
    if (absl::Status s = store.CreateJobDir(id); !s.ok()) Fail(s);
    sdk::LocalJobDetails details;
    details.supervisor = {.pid = 1000 + i, .start_time = 1};
    sdk::ReplicaDetails replica;
    replica.name = "workerpool0-0";
    replica.pid = replica.pgid = 2000 + i;
    replica.start_time = 1;
    replica.argv = {"/bin/true"};
    replica.exit_status = sdk::ExitStatus{};
    details.replicas.push_back(replica);
    if (absl::Status s = store.WriteLocalDetails(id, details); !s.ok()) Fail(s);
    for (auto [state, time] : {std::pair{jobspec::JobState::kQueued, created},
                               std::pair{jobspec::JobState::kRunning, *job.start_time},
                               std::pair{job.state, *job.end_time}}) {
      if (absl::Status s = store.AppendHistory(id, {state, time}); !s.ok()) Fail(s);
    }
    if (absl::Status s = store.WriteJob(id, job); !s.ok()) Fail(s);
  }
  nlohmann::json out = {{"jobs", count}, {"seconds", SecondsSince(start)}};
  std::cout << out.dump() << "\n";
  return 0;
}

jobspec::CustomJob ReplicaJob(int replicas, const fs::path& output, const fs::path& fifo) {
  jobspec::CustomJob job;
  job.display_name = fmt::format("scale-replicas-{}", replicas);
  job.job_spec.base_output_directory = output.string() + "/";
  // Open the FIFO first (the bench holds it open, so this does not block),
  // then the marker; the bench closing its end is every replica's EOF.
  const std::string script =
      fmt::format("exec 3<{}; {}; read x <&3; exit 0", fifo.string(), MarkerCommand(output));
  for (int count : {1, replicas - 1}) {
    jobspec::WorkerPoolSpec pool;
    pool.replica_count = count;
    pool.machine_spec.emplace().machine_type = "n1-standard-4";
    pool.container_spec.emplace();
    pool.container_spec->image_uri = "local:/bin/busybox";
    pool.container_spec->command = {"/bin/busybox", "sh", "-c"};
    pool.container_spec->args = {script};
    job.job_spec.worker_pool_specs.push_back(std::move(pool));
  }
  return job;
}

struct ReplicaRun {
  double to_running_s;
  double end_to_final_s;
};

ReplicaRun TimeReplicas(const fs::path& dir, int replicas) {
  const fs::path home = dir / "home", output = dir / "output", fifo = dir / "release";
  fs::remove_all(output);
  fs::create_directories(output);
  fs::remove(fifo);
  if (::mkfifo(fifo.c_str(), 0600) != 0) Fail(absl::InternalError("mkfifo failed"));
  const int hold = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  if (hold < 0) Fail(absl::InternalError("opening the FIFO failed"));
  sdk::CustomJobOptions options;
  options.home = home;
  options.stream_replica_output = false;
  absl::StatusOr<sdk::CustomJob> job =
      sdk::CustomJob::Create(ReplicaJob(replicas, output, fifo), std::move(options));
  if (!job.ok()) Fail(job.status());
  const auto start = SteadyClock::now();
  if (absl::Status s = job->Submit(); !s.ok()) Fail(s);
  while (CountMarkers(output) < static_cast<size_t>(replicas)) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ReplicaRun run{SecondsSince(start), 0};
  const sdk::JobStore store(home);
  const auto end = SteadyClock::now();
  ::close(hold);
  for (;;) {
    absl::StatusOr<jobspec::CustomJob> recorded = store.ReadJob(job->job_id());
    if (recorded.ok() && jobspec::IsTerminal(recorded->state)) {
      run.end_to_final_s = SecondsSince(end);
      if (recorded->state != jobspec::JobState::kSucceeded) {
        Fail(absl::InternalError(fmt::format("the {}-replica job ended {}", replicas,
                                             jobspec::JobStateName(recorded->state))));
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (absl::Status s = job->Wait().status(); !s.ok()) Fail(s);
  return run;
}

int Replicas(const std::vector<int>& counts, int runs) {
  char tmpl[] = "/tmp/scale-bench.XXXXXX";
  const fs::path dir = ::mkdtemp(tmpl);
  TimeReplicas(dir, 2);  // warm-up
  nlohmann::json out = nlohmann::json::object();
  for (int count : counts) out[std::to_string(count)] = nlohmann::json::array();
  for (int r = 0; r < runs; ++r) {
    for (int count : counts) {  // interleaved, so load drifts hit every size
      ReplicaRun run = TimeReplicas(dir, count);
      out[std::to_string(count)].push_back(
          {{"to_running_s", run.to_running_s}, {"end_to_final_s", run.end_to_final_s}});
    }
  }
  fs::remove_all(dir);
  std::cout << out.dump() << "\n";
  return 0;
}

int Suggest(int trials, int repeats) {
  const TestFunction& f = Hartmann6();
  jobspec::StudySpec spec;
  spec.metrics.push_back({"value", jobspec::GoalType::kMinimize});
  for (size_t i = 0; i < f.lower.size(); ++i) {
    jobspec::ParameterSpec parameter;
    parameter.parameter_id = fmt::format("x{}", i + 1);
    parameter.value_spec = jobspec::DoubleValueSpec{f.lower[i], f.upper[i], {}};
    parameter.scale_type = jobspec::ScaleType::kLinear;
    spec.parameters.push_back(parameter);
  }
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<sdk::hptune::Observation> history;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> x(f.lower.size());
    sdk::hptune::TrialParameters parameters;
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = f.lower[i] + unit(rng) * (f.upper[i] - f.lower[i]);
      parameters.push_back({fmt::format("x{}", i + 1), x[i]});
    }
    history.push_back({std::move(parameters), f.evaluate(x), false});
  }
  const double rss_before = PeakRssMib();
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    absl::StatusOr<std::unique_ptr<sdk::hptune::Suggester>> suggester =
        sdk::hptune::MakeSuggester(spec, static_cast<uint64_t>(r + 1), 0);
    if (!suggester.ok()) Fail(suggester.status());
    const auto start = SteadyClock::now();
    absl::StatusOr<std::vector<sdk::hptune::TrialParameters>> next =
        (*suggester)->Suggest(history, 1);
    seconds.push_back(SecondsSince(start));
    if (!next.ok()) Fail(next.status());
  }
  nlohmann::json out = {{"trials", trials},
                        {"dimensions", f.lower.size()},
                        {"seconds", seconds},
                        {"median_s", Median(seconds)},
                        {"peak_rss_mib_before", rss_before},
                        {"peak_rss_mib", PeakRssMib()}};
  std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace trainpkg::bench

int main(int argc, char** argv) {
  CLI::App app{"bench/scale's C++ side: job store generator, replica launches, suggestion latency"};
  app.require_subcommand(1);
  std::string home;
  int jobs = 1000, runs = 3, trials = 100, repeats = 3;
  std::vector<int> replicas = {4, 16, 64};
  CLI::App* generate = app.add_subcommand("generate", "Write N finished jobs into a job store");
  generate->add_option("--home", home, "trainpkg home (the store is <home>/jobs)")->required();
  generate->add_option("--jobs", jobs, "how many")->check(CLI::PositiveNumber);
  CLI::App* launch = app.add_subcommand("replicas", "Process-mode jobs of N replicas");
  launch->add_option("--replicas", replicas, "replica counts (each >= 2)")
      ->check(CLI::Range(2, 1024));
  launch->add_option("--runs", runs, "rounds over the counts")->check(CLI::PositiveNumber);
  CLI::App* suggest = app.add_subcommand("suggest", "One Bayesian suggestion after N trials");
  suggest->add_option("--trials", trials, "completed trials")->check(CLI::PositiveNumber);
  suggest->add_option("--repeats", repeats, "suggestions timed")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  if (generate->parsed()) return trainpkg::bench::Generate(home, jobs);
  if (launch->parsed()) return trainpkg::bench::Replicas(replicas, runs);
  return trainpkg::bench::Suggest(trials, repeats);
}
