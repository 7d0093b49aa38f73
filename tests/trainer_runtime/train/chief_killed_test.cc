// The chief (rank 0, which also hosts the coordination service) killed as a
// process mid-run: the two workers (real processes, train_test_worker) fail
// within the bound with a message naming the chief, never hang.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/file.h"
#include "tests/trainer_runtime/chief_and_workers_env.h"

namespace trainpkg::train {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using trainpkg::testing::Slurp;

// Starts one replica with `env`, its stdout and stderr to `log`.
pid_t StartReplica(const std::map<std::string, std::string>& env, const fs::path& log) {
  std::vector<std::string> vars = trainpkg::testing::EnvStrings(env);
  std::vector<char*> envp;
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const std::string program = TRAIN_TEST_WORKER;
  std::string epochs = "20", pause_ms = "40";  // >= 320 ms per epoch
  char* argv[] = {const_cast<char*>(program.c_str()), epochs.data(), pause_ms.data(), nullptr};
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, envp.data()), 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// The exit code of `pid`, SIGKILLing it first when it outlives `deadline`
// (then 128 + SIGKILL).
int Reap(pid_t pid, absl::Time deadline) {
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) != pid) {
    if (absl::Now() > deadline) kill(pid, SIGKILL);
    absl::SleepFor(absl::Milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Per transport (TRAINPKG_COLLECTIVES): over Gloo the workers hear of it from
// the coordination layer (the coordinator lived in the chief); over shared
// memory, the kernel's release of the chief's segment lock says it at once.
class ChiefKilledTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ChiefKilledTest, WorkersFailWithinTheBoundNamingTheChief) {
  const fs::path base = fs::temp_directory_path() / fmt::format("trainpkg-chief-{}", getpid());
  fs::remove_all(base);
  fs::create_directories(base);
  auto envs = trainpkg::testing::ChiefAndTwoWorkersEnv("8", "local:train_test_worker");
  std::vector<pid_t> pids;
  std::vector<fs::path> logs;
  for (int rank = 0; rank < 3; ++rank) {
    envs[rank]["AIP_MODEL_DIR"] = (base / "model").string();
    envs[rank]["AIP_CHECKPOINT_DIR"] = (base / "checkpoints").string();
    envs[rank]["TRAINPKG_COLLECTIVES"] = GetParam();
    logs.push_back(base / fmt::format("rank{}.log", rank));
    pids.push_back(StartReplica(envs[rank], logs.back()));
  }
  const absl::Time started = absl::Now();
  while (Slurp(logs[0]).find("epoch 1 done") == std::string::npos &&
         absl::Now() - started < absl::Seconds(15)) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_THAT(Slurp(logs[0]), HasSubstr("epoch 1 done"));
  absl::SleepFor(absl::Milliseconds(100));  // mid-epoch
  kill(pids[0], SIGKILL);
  waitpid(pids[0], nullptr, 0);
  const absl::Time killed = absl::Now();

  // Heartbeat timeout 1 s (train_test_worker) plus detection: far inside
  // the 10 s bound; a hang would be SIGKILLed there and fail below.
  for (int rank = 1; rank < 3; ++rank) {
    EXPECT_EQ(Reap(pids[static_cast<size_t>(rank)], killed + absl::Seconds(10)), 1)
        << Slurp(logs[static_cast<size_t>(rank)]);
  }
  EXPECT_LT(absl::Now() - killed, absl::Seconds(8));
  for (int rank = 1; rank < 3; ++rank) {
    EXPECT_THAT(Slurp(logs[static_cast<size_t>(rank)]),
                GetParam() == "gloo"
                    ? HasSubstr("lost the coordinator, rank 0 (chief 0, 127.0.0.1:")
                    : HasSubstr("rank 0 (chief 0, 127.0.0.1:"))
        << Slurp(logs[static_cast<size_t>(rank)]);
  }
  EXPECT_FALSE(fs::exists(base / "model" / "model.tpmodel"));
  fs::remove_all(base);
}

INSTANTIATE_TEST_SUITE_P(Transports, ChiefKilledTest, ::testing::Values("gloo", "shm"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace trainpkg::train
