// A stand-in trainer the sdk tests run as replicas. Flags, applied in order:
//   --ignore-sigterm          ignore SIGTERM (so only SIGKILL stops it)
//   --dump-env=DIR            write the environment as JSON to DIR/<pid>.json
//   --print=TEXT              print TEXT on stdout (and --stderr=TEXT on stderr)
//   --pid-dir=DIR             create DIR/replica-<pid>
//   --grandchild-sleep=SECS   fork a child that sleeps SECS in the same process
//                             group; with --pid-dir it creates DIR/grandchild-<pid>
//   --sleep=SECS              sleep
//   --exit=N                  exit with status N (default 0)
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "base/environment.h"
#include "nlohmann/json.hpp"

namespace {

void SleepSeconds(double seconds) {
  timespec remaining{.tv_sec = static_cast<time_t>(seconds),
                     .tv_nsec = static_cast<long>(std::fmod(seconds, 1.0) * 1e9)};
  while (nanosleep(&remaining, &remaining) != 0 && errno == EINTR) {
  }
}

void Touch(const std::string& path) { std::ofstream(path).put('\n'); }

// True when `arg` is `flag` followed by a value, which goes to `value`.
bool Flag(std::string_view arg, std::string_view flag, std::string& value) {
  if (arg.substr(0, flag.size()) != flag) return false;
  value = std::string(arg.substr(flag.size()));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string pid_dir;
  std::string dump_dir;
  double sleep_seconds = 0;
  double grandchild_seconds = -1;
  int exit_code = 0;
  bool ignore_sigterm = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string value;
    if (Flag(arg, "--exit=", value)) {
      exit_code = std::atoi(value.c_str());
    } else if (Flag(arg, "--sleep=", value)) {
      sleep_seconds = std::atof(value.c_str());
    } else if (Flag(arg, "--grandchild-sleep=", value)) {
      grandchild_seconds = std::atof(value.c_str());
    } else if (Flag(arg, "--pid-dir=", value)) {
      pid_dir = value;
    } else if (Flag(arg, "--dump-env=", value)) {
      dump_dir = value;
    } else if (Flag(arg, "--print=", value)) {
      std::cout << value << std::endl;
    } else if (Flag(arg, "--stderr=", value)) {
      std::cerr << value << std::endl;
    } else if (arg == "--ignore-sigterm") {
      ignore_sigterm = true;
    } else {
      std::cerr << "replica_probe: unknown flag " << arg << std::endl;
      return 64;
    }
  }
  if (ignore_sigterm) ::signal(SIGTERM, SIG_IGN);
  if (!dump_dir.empty()) {
    nlohmann::json env(trainpkg::base::SnapshotProcessEnvironment());
    std::ofstream(dump_dir + "/" + std::to_string(::getpid()) + ".json") << env.dump();
  }
  if (!pid_dir.empty()) Touch(pid_dir + "/replica-" + std::to_string(::getpid()));
  if (grandchild_seconds >= 0) {
    pid_t child = ::fork();
    if (child == 0) {
      SleepSeconds(grandchild_seconds);
      ::_exit(0);
    }
    if (!pid_dir.empty()) Touch(pid_dir + "/grandchild-" + std::to_string(child));
  }
  SleepSeconds(sleep_seconds);
  return exit_code;
}
