// Three replicas as real processes (train_test_worker), each with the env
// Vertex gives it: kill one mid-epoch, the others fail naming it; a rerun
// resumes from the backup and finishes.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
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
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/chief_and_workers_env.h"
#include "trainer_runtime/train/tensor_bundle.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::train {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using trainpkg::testing::Slurp;

// A chief and two workers, started at construction, killed at destruction
// if still running.
class Job {
 public:
  Job(const fs::path& base, const std::string& name, int epochs, int pause_ms) {
    auto envs = trainpkg::testing::ChiefAndTwoWorkersEnv("7", "local:train_test_worker");
    const std::string program = TRAIN_TEST_WORKER;
    for (int rank = 0; rank < 3; ++rank) {
      envs[rank]["AIP_MODEL_DIR"] = (base / "model").string();
      envs[rank]["AIP_CHECKPOINT_DIR"] = (base / "checkpoints").string();
      std::vector<std::string> vars = trainpkg::testing::EnvStrings(envs[rank]);
      std::vector<char*> envp;
      for (auto& v : vars) envp.push_back(v.data());
      envp.push_back(nullptr);
      logs_.push_back(base / fmt::format("{}-rank{}.log", name, rank));
      posix_spawn_file_actions_t actions;
      posix_spawn_file_actions_init(&actions);
      posix_spawn_file_actions_addopen(&actions, 1, logs_.back().c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0644);
      posix_spawn_file_actions_adddup2(&actions, 1, 2);
      std::string e = std::to_string(epochs), p = std::to_string(pause_ms);
      char* argv[] = {const_cast<char*>(program.c_str()), e.data(), p.data(), nullptr};
      pid_t pid = -1;
      EXPECT_EQ(posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, envp.data()), 0);
      posix_spawn_file_actions_destroy(&actions);
      pids_.push_back(pid);
      exit_.push_back(-1);
    }
  }
  ~Job() {
    for (size_t r = 0; r < pids_.size(); ++r) {
      if (exit_[r] == -1) {
        kill(pids_[r], SIGKILL);
        waitpid(pids_[r], nullptr, 0);
      }
    }
  }
  std::string Log(int rank) const { return Slurp(logs_[static_cast<size_t>(rank)]); }
  int exit_code(int rank) const { return exit_[static_cast<size_t>(rank)]; }

  bool WaitForLog(int rank, const std::string& text, absl::Duration limit) {
    const absl::Time deadline = absl::Now() + limit;
    while (absl::Now() < deadline) {
      if (Log(rank).find(text) != std::string::npos) return true;
      absl::SleepFor(absl::Milliseconds(10));
    }
    return false;
  }
  void Kill(int rank) {
    kill(pids_[static_cast<size_t>(rank)], SIGKILL);
    waitpid(pids_[static_cast<size_t>(rank)], nullptr, 0);
    exit_[static_cast<size_t>(rank)] = 128 + SIGKILL;
  }
  // Waits for every replica; SIGKILLs what outlives `limit`.
  void WaitAll(absl::Duration limit) {
    const absl::Time deadline = absl::Now() + limit;
    for (size_t r = 0; r < pids_.size(); ++r) {
      while (exit_[r] == -1) {
        int status = 0;
        if (waitpid(pids_[r], &status, WNOHANG) == pids_[r]) {
          exit_[r] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        } else if (absl::Now() > deadline) {
          kill(pids_[r], SIGKILL);
        } else {
          absl::SleepFor(absl::Milliseconds(10));
        }
      }
    }
  }

 private:
  std::vector<fs::path> logs_;
  std::vector<pid_t> pids_;
  std::vector<int> exit_;
};

TEST(FaultToleranceTest, KilledWorkerFailsTheOthersAndTheRerunResumes) {
  const fs::path base = fs::temp_directory_path() / fmt::format("trainpkg-ft-{}", getpid());
  fs::remove_all(base);
  fs::create_directories(base);
  {
    // 8 steps of >= 40 ms per epoch: the kill lands mid-epoch.
    Job job(base, "first", /*epochs=*/20, /*pause_ms=*/40);
    ASSERT_TRUE(job.WaitForLog(0, "epoch 1 done", absl::Seconds(15))) << job.Log(0);
    absl::SleepFor(absl::Milliseconds(100));
    job.Kill(2);
    const absl::Time killed = absl::Now();
    job.WaitAll(absl::Seconds(10));
    // Heartbeat timeout 1 s + detection: well inside the bound, never a hang.
    EXPECT_LT(absl::Now() - killed, absl::Seconds(8));
    for (int rank = 0; rank < 2; ++rank) {
      EXPECT_EQ(job.exit_code(rank), 1) << job.Log(rank);
      EXPECT_THAT(job.Log(rank), HasSubstr("rank 2 (worker 1, 127.0.0.1:")) << job.Log(rank);
    }
  }
  // Nothing in the model dir (the model is saved only at the end); the
  // backup is whole.
  EXPECT_FALSE(fs::exists(base / "model" / "model.tpmodel"));
  const fs::path checkpoint = base / "checkpoints" / "chief" / "checkpoint.tpckpt";
  auto bundle = ReadTensorBundle(checkpoint);
  ASSERT_THAT(bundle, IsOk());
  const int64_t saved_epoch = bundle->counters["epoch"];
  EXPECT_GE(saved_epoch, 1);

  Job rerun(base, "rerun", /*epochs=*/20, /*pause_ms=*/0);
  rerun.WaitAll(absl::Seconds(20));
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(rerun.exit_code(rank), 0) << rerun.Log(rank);
    EXPECT_THAT(rerun.Log(rank), HasSubstr(fmt::format("starting at epoch {}", saved_epoch + 1)));
    EXPECT_THAT(rerun.Log(rank), HasSubstr("epoch 19 done"));
  }
  EXPECT_THAT(rerun.Log(0), HasSubstr("epoch 20/20 - loss "));
  // The chief's model, no worker temp dirs, the backup deleted.
  EXPECT_THAT(ReadTensorBundle(base / "model" / "model.tpmodel"), IsOk());
  EXPECT_EQ(std::distance(fs::directory_iterator(base / "model"), fs::directory_iterator()), 1);
  EXPECT_FALSE(fs::exists(base / "checkpoints"));
  fs::remove_all(base);
}

}  // namespace
}  // namespace trainpkg::train
