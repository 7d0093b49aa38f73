// Three replicas as real processes, each given the env Vertex would give it
// (jobspec::MakeClusterEnv): one chief and two workers on 127.0.0.1.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/trainer_runtime/chief_and_workers_env.h"

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

struct Replica {
  pid_t pid = -1;
  fs::path log;
  int exit_code = -1;
  absl::Duration ran_for;
};

class ThreeReplicas {
 public:
  // transport: TRAINPKG_COLLECTIVES for every replica. shm_groups, when
  // given: rank r runs in a mount namespace of its own whose /dev/shm is
  // the directory of group shm_groups[r] (ranks of one group share memory,
  // ranks of different groups cannot, as on different hosts). Needs root.
  ThreeReplicas(int iterations, int pause_ms, const std::string& transport, bool sweep = false,
                const std::vector<int>& shm_groups = {}) {
    dir_ = fs::temp_directory_path() / fmt::format("trainpkg-collectives-{}", getpid());
    fs::create_directories(dir_);
    auto envs = trainpkg::testing::ChiefAndTwoWorkersEnv("42", "local:collectives_test_rank");
    for (auto& env : envs) env["TRAINPKG_COLLECTIVES"] = transport;
    const std::string program = COLLECTIVES_TEST_RANK;
    start_ = absl::Now();
    for (int rank = 0; rank < 3; ++rank) {
      std::vector<std::string> vars = trainpkg::testing::EnvStrings(envs[rank]);
      std::vector<char*> envp;
      for (auto& v : vars) envp.push_back(v.data());
      envp.push_back(nullptr);
      Replica replica;
      replica.log = dir_ / fmt::format("rank{}.log", rank);
      posix_spawn_file_actions_t actions;
      posix_spawn_file_actions_init(&actions);
      posix_spawn_file_actions_addopen(&actions, 1, replica.log.c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0644);
      posix_spawn_file_actions_adddup2(&actions, 1, 2);
      std::string its = std::to_string(iterations), pause = std::to_string(pause_ms);
      std::vector<std::string> args = {program, its, pause};
      if (sweep) args.push_back("sweep");
      if (!shm_groups.empty()) {
        const fs::path shm = dir_ / fmt::format("shm{}", shm_groups[rank]);
        fs::create_directories(shm);
        args.insert(args.begin(),
                    {"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                     "mount --bind \"$0\" /dev/shm && exec \"$@\"", shm.string()});
      }
      std::vector<char*> argv;
      for (std::string& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      EXPECT_EQ(posix_spawn(&replica.pid, argv[0], &actions, nullptr, argv.data(), envp.data()), 0);
      posix_spawn_file_actions_destroy(&actions);
      replicas_.push_back(replica);
    }
  }

  ~ThreeReplicas() {
    for (Replica& r : replicas_) {
      if (r.exit_code == -1 && r.pid > 0) {
        kill(r.pid, SIGKILL);
        waitpid(r.pid, nullptr, 0);
      }
    }
    fs::remove_all(dir_);
  }

  Replica& operator[](int rank) { return replicas_[rank]; }

  // Waits for every replica still running; SIGKILLs what outlives `limit`.
  void WaitAll(absl::Duration limit) {
    const absl::Time deadline = absl::Now() + limit;
    for (Replica& r : replicas_) {
      while (r.exit_code == -1) {
        int status = 0;
        pid_t done = waitpid(r.pid, &status, WNOHANG);
        if (done == r.pid) {
          r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
          r.ran_for = absl::Now() - start_;
        } else if (absl::Now() > deadline) {
          kill(r.pid, SIGKILL);
        } else {
          absl::SleepFor(absl::Milliseconds(20));
        }
      }
    }
  }

  void Kill(int rank) {
    kill(replicas_[rank].pid, SIGKILL);
    waitpid(replicas_[rank].pid, nullptr, 0);
    replicas_[rank].exit_code = 128 + SIGKILL;
  }

  static std::string Log(const Replica& r) {
    std::ifstream in(r.log);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // Waits until rank's log shows it got past its first allreduce.
  bool WaitUntilRunning(int rank, absl::Duration limit) {
    const absl::Time deadline = absl::Now() + limit;
    while (absl::Now() < deadline) {
      if (Log(replicas_[rank]).find("running") != std::string::npos) return true;
      absl::SleepFor(absl::Milliseconds(20));
    }
    return false;
  }

 private:
  fs::path dir_;
  absl::Time start_;
  std::vector<Replica> replicas_;
};

// The segments named in /dev/shm now.
std::set<std::string> ShmSegments() {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator("/dev/shm")) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("trainpkg-shm-")) names.insert(name);
  }
  return names;
}

class MultiProcessTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MultiProcessTest, ThreeProcessesAllReduce) {
  ThreeReplicas job(/*iterations=*/20, /*pause_ms=*/0, GetParam());
  job.WaitAll(absl::Seconds(20));
  for (int rank = 0; rank < 3; ++rank) {
    const std::string log = ThreeReplicas::Log(job[rank]);
    EXPECT_EQ(job[rank].exit_code, 0) << log;
    EXPECT_THAT(log, AllOf(HasSubstr(fmt::format("rank {} running on {}", rank, GetParam())),
                           HasSubstr(fmt::format("rank {} done", rank))));
  }
}

TEST_P(MultiProcessTest, EveryOperationAndSizeIsRightInThreeProcesses) {
  ThreeReplicas job(/*iterations=*/1, /*pause_ms=*/0, GetParam(), /*sweep=*/true);
  job.WaitAll(absl::Seconds(60));
  for (int rank = 0; rank < 3; ++rank) {
    const std::string log = ThreeReplicas::Log(job[rank]);
    EXPECT_EQ(job[rank].exit_code, 0) << log;
    EXPECT_THAT(log, HasSubstr(fmt::format("rank {} sweep passed", rank)));
  }
}

TEST_P(MultiProcessTest, KilledProcessFailsTheOthersNamingIt) {
  ThreeReplicas job(/*iterations=*/1000, /*pause_ms=*/20, GetParam());
  ASSERT_TRUE(job.WaitUntilRunning(2, absl::Seconds(10))) << ThreeReplicas::Log(job[2]);
  job.Kill(2);
  const absl::Time killed = absl::Now();
  job.WaitAll(absl::Seconds(10));
  for (int rank = 0; rank < 2; ++rank) {
    const std::string log = ThreeReplicas::Log(job[rank]);
    EXPECT_EQ(job[rank].exit_code, 1) << log;
    // Gloo hears of it from the coordinator (heartbeats); shared memory from
    // the kernel dropping the dead process's segment lock, at once.
    EXPECT_THAT(log, AllOf(HasSubstr("rank 2 (worker 1, 127.0.0.1:"),
                           HasSubstr(GetParam() == "shm" ? "left the shared-memory group"
                                                         : "missed heartbeats")));
  }
  EXPECT_LT(absl::Now() - killed, GetParam() == "shm" ? absl::Seconds(2) : absl::Seconds(6));
}

INSTANTIATE_TEST_SUITE_P(Transports, MultiProcessTest, ::testing::Values("gloo", "shm"),
                         [](const auto& param_info) { return param_info.param; });

TEST(MultiProcessShmTest, NoSegmentIsLeftNamedWhileRunningOrAfterEveryRankIsKilled) {
  const std::set<std::string> before = ShmSegments();
  ThreeReplicas job(/*iterations=*/1000, /*pause_ms=*/20, "shm");
  for (int rank = 0; rank < 3; ++rank) {
    ASSERT_TRUE(job.WaitUntilRunning(rank, absl::Seconds(10))) << ThreeReplicas::Log(job[rank]);
  }
  // Every rank has the segment mapped, so its name is gone already.
  EXPECT_EQ(ShmSegments(), before);
  for (int rank = 0; rank < 3; ++rank) job.Kill(rank);
  EXPECT_EQ(ShmSegments(), before);
}

TEST(MultiProcessShmTest, RanksOnTwoHostsGoHierarchicalAndEveryOperationIsRight) {
  if (geteuid() != 0) GTEST_SKIP() << "mount namespaces stand in for hosts here: needs root";
  // Ranks 0 and 2 share one "host's" /dev/shm, rank 1 has another.
  ThreeReplicas job(/*iterations=*/3, /*pause_ms=*/0, "auto", /*sweep=*/true, {0, 1, 0});
  job.WaitAll(absl::Seconds(60));
  for (int rank = 0; rank < 3; ++rank) {
    const std::string log = ThreeReplicas::Log(job[rank]);
    EXPECT_EQ(job[rank].exit_code, 0) << log;
    EXPECT_THAT(log, AllOf(HasSubstr(fmt::format("rank {} running on shm+gloo", rank)),
                           HasSubstr(fmt::format("rank {} sweep passed", rank))));
  }
  // shm demands one host: refused by every rank with the reason.
  ThreeReplicas forced(/*iterations=*/3, /*pause_ms=*/0, "shm", /*sweep=*/false, {0, 1, 0});
  forced.WaitAll(absl::Seconds(20));
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(forced[rank].exit_code, 1);
    EXPECT_THAT(ThreeReplicas::Log(forced[rank]), HasSubstr("are on 2 hosts"));
  }
}

TEST(MultiProcessShmTest, AutoPicksSharedMemoryAndABadValueIsNamed) {
  ThreeReplicas job(/*iterations=*/3, /*pause_ms=*/0, "auto");
  job.WaitAll(absl::Seconds(20));
  EXPECT_THAT(ThreeReplicas::Log(job[0]), HasSubstr("rank 0 running on shm"));
  ThreeReplicas bad(/*iterations=*/3, /*pause_ms=*/0, "infiniband");
  bad.WaitAll(absl::Seconds(20));
  EXPECT_EQ(bad[0].exit_code, 1);
  EXPECT_THAT(ThreeReplicas::Log(bad[0]),
              AllOf(HasSubstr("'infiniband'"), HasSubstr("auto"), HasSubstr("gloo or shm")));
}

}  // namespace
