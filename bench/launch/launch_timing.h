// What the launch benches share: replicas prove they run by creating a
// marker file "started.XXXXXX" in a directory, which the bench counts.
#ifndef TRAINPKG_BENCH_LAUNCH_LAUNCH_TIMING_H_
#define TRAINPKG_BENCH_LAUNCH_LAUNCH_TIMING_H_

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "sdk/custom_job.h"

namespace trainpkg::bench {

// The shell command a replica runs to create its marker in `dir`.
inline std::string MarkerCommand(const std::filesystem::path& dir) {
  return "mktemp -p " + dir.string() + " started.XXXXXX >/dev/null";
}

// How many markers `dir` holds.
inline size_t CountMarkers(const std::filesystem::path& dir) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string().rfind("started.", 0) == 0) ++n;
  }
  return n;
}

// Creates the job, submits it and returns the seconds until `output` holds
// `replicas` markers; then waits for the job, which must succeed (the bench
// exits with the reason otherwise).
inline double SecondsToMarkers(const jobspec::CustomJob& spec, sdk::CustomJobOptions options,
                               const std::filesystem::path& output, size_t replicas) {
  auto job = sdk::CustomJob::Create(spec, std::move(options));
  if (!job.ok()) {
    std::cerr << job.status() << "\n";
    std::exit(1);
  }
  const auto start = std::chrono::steady_clock::now();
  if (absl::Status submitted = job->Submit(); !submitted.ok()) {
    std::cerr << submitted << "\n";
    std::exit(1);
  }
  while (CountMarkers(output) < replicas) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto done = job->Wait();
  if (!done.ok() || done->state != jobspec::JobState::kSucceeded) {
    std::cerr << "the job did not succeed: "
              << (!done.ok() ? done.status().ToString()
                             : (done->error ? done->error->message : std::string()))
              << "\n";
    std::exit(1);
  }
  return seconds;
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace trainpkg::bench

#endif  // TRAINPKG_BENCH_LAUNCH_LAUNCH_TIMING_H_
