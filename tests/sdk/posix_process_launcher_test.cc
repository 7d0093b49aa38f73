#include "sdk/internal/posix_process_launcher.h"

#include <signal.h>
#include <unistd.h>

#include <string>

#include "base/environment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::internal {
namespace {

using ::testing::HasSubstr;
using testing::ReplicaProbePath;

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

TEST(DescribeExitStatusTest, MatchesVertexWording) {
  EXPECT_EQ(DescribeExitStatus({.code = 3}), "exited with a non-zero status of 3");
  EXPECT_EQ(DescribeExitStatus({.signal = 9}), "was terminated by signal 9 (Killed)");
}

}  // namespace
}  // namespace trainpkg::sdk::internal
