#include "tests/sdk/sdk_test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "absl/strings/numbers.h"
#include "base/environment.h"
#include "sdk/internal/proc_stat.h"

namespace trainpkg::sdk::testing {

std::vector<std::string> EnvironmentWith(const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env_map = base::SnapshotProcessEnvironment();
  for (const auto& [name, value] : extra) env_map[name] = value;
  std::vector<std::string> env;
  for (const auto& [name, value] : env_map) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& text : strings) out.push_back(text.data());
  out.push_back(nullptr);
  return out;
}

int SpawnWithOutput(std::vector<std::string> argv, const std::filesystem::path& out_file,
                    const std::map<std::string, std::string>& extra_env) {
  std::vector<char*> cargv = CStrings(argv);
  std::vector<std::string> env = EnvironmentWith(extra_env);
  std::vector<char*> cenv = CStrings(env);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

int WaitExitCode(int pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

jobspec::CustomJob MakeJob(const std::string& executable, const std::vector<PoolArgs>& pools) {
  jobspec::CustomJob job;
  job.display_name = "sdk-test";
  for (const PoolArgs& pool : pools) {
    jobspec::WorkerPoolSpec spec;
    if (pool.replica_count > 0) {
      spec.replica_count = pool.replica_count;
      spec.machine_spec.emplace().machine_type = "n1-standard-4";
      spec.container_spec.emplace();
      spec.container_spec->image_uri = "local:" + executable;
      spec.container_spec->args = pool.args;
    }
    job.job_spec.worker_pool_specs.push_back(std::move(spec));
  }
  return job;
}

std::string ReplicaProbePath() { return REPLICA_PROBE_PATH; }

bool ProcessGone(int pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  absl::StatusOr<internal::ProcStat> stat = internal::ReadProcStat(pid);
  return !stat.ok() || stat->state == 'Z';
}

bool WaitFor(const std::function<bool()>& condition, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (!condition()) {
    if (absl::Now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::vector<int> PidsInDir(const std::filesystem::path& dir, const std::string& prefix) {
  std::vector<int> pids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    int pid = 0;
    if (name.rfind(prefix, 0) == 0 && absl::SimpleAtoi(name.substr(prefix.size()), &pid)) {
      pids.push_back(pid);
    }
  }
  return pids;
}

}  // namespace trainpkg::sdk::testing
