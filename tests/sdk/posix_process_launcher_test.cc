#include "sdk/internal/posix_process_launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/environment.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::internal {
namespace {

using ::testing::HasSubstr;
using testing::ReplicaProbePath;
using ::trainpkg::testing::TempDir;

ProcessSpec Probe(std::vector<std::string> args) {
  args.insert(args.begin(), ReplicaProbePath());
  return ProcessSpec{.name = "probe",
                     .program = ReplicaProbePath(),
                     .argv = args,
                     .env = base::SnapshotProcessEnvironment()};
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) out.append(buf, static_cast<size_t>(n));
  return out;
}

TEST(PosixProcessLauncherTest, CapturesStdoutAndStderrAndTheExitCode) {
  PosixProcessLauncher launcher;
  absl::StatusOr<std::unique_ptr<Process>> process =
      launcher.Start(Probe({"--print=out", "--stderr=err", "--exit=7"}));
  ASSERT_THAT(process, IsOk());
  EXPECT_EQ(::getpgid((*process)->pid()), (*process)->pid());
  EXPECT_EQ((*process)->Wait(), (ExitStatus{.code = 7}));
  EXPECT_EQ(ReadAll((*process)->output_fd()), "out\nerr\n");
}

TEST(PosixProcessLauncherTest, ChildGetsAnEmptySignalMask) {
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &term, nullptr), 0);
  PosixProcessLauncher launcher;
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Start(Probe({"--sleep=30"}));
  pthread_sigmask(SIG_UNBLOCK, &term, nullptr);
  ASSERT_THAT(process, IsOk());
  (*process)->SignalGroup(SIGTERM);
  EXPECT_EQ((*process)->Wait(), (ExitStatus{.signal = SIGTERM}));
}

TEST(PosixProcessLauncherTest, UnknownProgramIsNotFound) {
  PosixProcessLauncher launcher;
  ProcessSpec spec = Probe({});
  spec.program = "no-such-program-for-trainpkg";
  absl::Status status = launcher.Start(spec).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("starting probe"));
}

TEST(PosixProcessLauncherTest, TryWaitReturnsNothingWhileRunningThenTheStatus) {
  PosixProcessLauncher launcher;
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Start(Probe({"--sleep=30"}));
  ASSERT_THAT(process, IsOk());
  EXPECT_EQ((*process)->TryWait(), std::nullopt);
  (*process)->SignalGroup(SIGTERM);
  std::optional<ExitStatus> exit;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!(exit = (*process)->TryWait()).has_value() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(exit, (ExitStatus{.signal = SIGTERM}));
}

TEST(PosixProcessLauncherTest, AppendsOutputToTheNamedFile) {
  TempDir dir;
  ASSERT_THAT(base::AppendToFile(dir / "log", "before\n"), IsOk());
  ProcessSpec spec = Probe({"--print=out", "--stderr=err"});
  spec.append_output_to = dir / "log";
  PosixProcessLauncher launcher;
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Start(spec);
  ASSERT_THAT(process, IsOk());
  EXPECT_EQ((*process)->output_fd(), -1);
  EXPECT_EQ((*process)->Wait(), ExitStatus{});
  EXPECT_EQ(::trainpkg::testing::Slurp(dir / "log"), "before\nout\nerr\n");
}

TEST(PosixProcessLauncherTest, OutlivesCallerLeadsASessionAndSurvivesItsHandle) {
  ProcessSpec spec = Probe({"--sleep=30"});
  spec.outlives_caller = true;
  PosixProcessLauncher launcher;
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Start(spec);
  ASSERT_THAT(process, IsOk());
  const pid_t pid = (*process)->pid();
  EXPECT_EQ(::getsid(pid), pid);
  process->reset();
  // Destroying the handle neither killed nor reaped it.
  EXPECT_EQ(::kill(pid, 0), 0);
  ::kill(-pid, SIGKILL);
  siginfo_t info{};
  EXPECT_EQ(::waitid(P_PID, pid, &info, WEXITED), 0);
  EXPECT_EQ(info.si_status, SIGKILL);
}

TEST(DescribeExitStatusTest, MatchesVertexWording) {
  EXPECT_EQ(DescribeExitStatus({.code = 3}), "exited with a non-zero status of 3");
  EXPECT_EQ(DescribeExitStatus({.signal = 9}), "was terminated by signal 9 (Killed)");
}

}  // namespace
}  // namespace trainpkg::sdk::internal
