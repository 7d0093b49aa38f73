// The acceptance checks that need real processes: ps_digits tasks started as
// a job's processes would be (TF_CONFIG on 127.0.0.1, free ports), then one
// killed with SIGKILL mid-run (once the first checkpoint exists).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/trainer_runtime/ps/free_port.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kArgs[] = "--steps_per_epoch=45 --epochs=20 --checkpoint_every=45";

// Starts `argv` with this process's environment (less any launcher
// variables) plus `extra`, stdout and stderr to `log`.
pid_t Spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra,
            const fs::path& log) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    if (kv.starts_with("TF_CONFIG=") || kv.starts_with("CLUSTER_SPEC=") || kv.starts_with("AIP_") ||
        kv.starts_with("RANK=") || kv.starts_with("SLURM_PROCID=")) {
      continue;
    }
    env.emplace_back(kv);
  }
  for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> args, envp;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

// The exit code, or 128 + signal; SIGKILLs the process after `timeout`.
int WaitExit(pid_t pid, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One run of chief + 2 workers + 2 ps in `dir` (shared output dirs).
class Job {
 public:
  Job(const fs::path& dir, const std::string& name) : dir_(dir), name_(name) {
    for (int i = 0; i < 5; ++i) ports_.push_back(trainpkg::testing::FreePort());
    auto addr = [&](int i) {
      return fmt::format("\"127.0.0.1:{}\"", ports_[static_cast<size_t>(i)]);
    };
    cluster_ = fmt::format(R"({{"chief":[{}],"worker":[{},{}],"ps":[{},{}]}})", addr(0), addr(1),
                           addr(2), addr(3), addr(4));
    Start("ps", 0);
    Start("ps", 1);
    Start("worker", 0);
    Start("worker", 1);
    Start("chief", 0);
  }
  ~Job() {
    for (auto& [task, pid] : pids_) WaitExit(pid, std::chrono::seconds(10));
  }

  pid_t pid(const std::string& task) const { return pids_.at(task); }
  int port(int i) const { return ports_[static_cast<size_t>(i)]; }
  // Waits for a task's exit (reaping it).
  int Wait(const std::string& task, int seconds = 60) {
    const int code = WaitExit(pids_.at(task), std::chrono::seconds(seconds));
    pids_.erase(task);
    return code;
  }
  std::string Log(const std::string& task) const {
    return Read(dir_ / (name_ + "_" + task + ".log"));
  }

 private:
  void Start(const std::string& type, int index) {
    std::vector<std::string> argv = {PS_DIGITS};
    std::istringstream args(kArgs);
    for (std::string a; args >> a;) argv.push_back(a);
    const std::string task = fmt::format("{}{}", type, index);
    pids_[task] =
        Spawn(argv,
              {{"TF_CONFIG", fmt::format(R"({{"cluster":{},"task":{{"type":"{}","index":{}}}}})",
                                         cluster_, type, index)},
               {"AIP_CHECKPOINT_DIR", (dir_ / "checkpoints").string()},
               {"TRAINPKG_DATA_DIR", DIGITS_DATA_DIR},
               {"OPENBLAS_NUM_THREADS", "1"}},
              dir_ / (name_ + "_" + task + ".log"));
  }

  fs::path dir_;
  std::string name_;
  std::vector<int> ports_;
  std::string cluster_;
  std::map<std::string, pid_t> pids_;
};

class PsProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/ps_processes.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // Waits until the chief has written its first checkpoint.
  bool WaitForFirstCheckpoint() {
    const fs::path ckpt = dir_ / "checkpoints" / "ps_digits";
    for (int i = 0; i < 3000; ++i) {
      std::error_code ec;
      if (fs::exists(ckpt, ec)) {
        for (const auto& e : fs::directory_iterator(ckpt, ec)) {
          if (e.path().extension() == ".tpckpt") return true;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  fs::path dir_;
};

TEST_F(PsProcessesTest, KillingAWorkerMidRunLeavesTrainingToTheOther) {
  Job job(dir_, "run");
  ASSERT_TRUE(WaitForFirstCheckpoint()) << job.Log("chief0");
  ASSERT_EQ(::kill(job.pid("worker1"), SIGKILL), 0);
  EXPECT_EQ(job.Wait("worker1"), 128 + SIGKILL);
  EXPECT_EQ(job.Wait("chief0"), 0) << job.Log("chief0");
  const std::string chief = job.Log("chief0");
  EXPECT_THAT(chief, HasSubstr("final_step=900"));
  EXPECT_THAT(chief, HasSubstr(fmt::format("worker 1 (127.0.0.1:{}) failed", job.port(2))));
  EXPECT_THAT(chief, ::testing::Not(HasSubstr("rescheduled_steps=0")));
  EXPECT_EQ(job.Wait("worker0"), 0);
  EXPECT_EQ(job.Wait("ps0"), 0);
  EXPECT_EQ(job.Wait("ps1"), 0);
}

TEST_F(PsProcessesTest, KillingAPsFailsTheJobNamingItAndARerunResumes) {
  int resumed_from = 0;
  {
    Job job(dir_, "first");
    ASSERT_TRUE(WaitForFirstCheckpoint()) << job.Log("chief0");
    ASSERT_EQ(::kill(job.pid("ps1"), SIGKILL), 0);
    EXPECT_EQ(job.Wait("ps1"), 128 + SIGKILL);
    EXPECT_EQ(job.Wait("chief0"), 1);
    EXPECT_THAT(job.Log("chief0"),
                HasSubstr(fmt::format("ps 1 (127.0.0.1:{}) unreachable", job.port(4))));
    // The chief sends the others home.
    EXPECT_EQ(job.Wait("worker0"), 0);
    EXPECT_EQ(job.Wait("worker1"), 0);
    EXPECT_EQ(job.Wait("ps0"), 0);
  }
  Job rerun(dir_, "rerun");
  EXPECT_EQ(rerun.Wait("chief0"), 0) << rerun.Log("chief0");
  const std::string chief = rerun.Log("chief0");
  const size_t at = chief.find("start_step=");
  ASSERT_NE(at, std::string::npos) << chief;
  resumed_from = std::atoi(chief.c_str() + at + 11);
  EXPECT_GT(resumed_from, 0);
  EXPECT_EQ(resumed_from % 45, 0);
  EXPECT_THAT(chief, HasSubstr("final_step=900"));
}

}  // namespace
