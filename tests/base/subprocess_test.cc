#include "base/subprocess.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::base {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;
using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::StatusIs;

constexpr char kShell[] = "/bin/sh";

// Everything `script` prints on stdout and stderr, and how it ended.
struct Ran {
  ExitStatus exit;
  std::string output;
};

std::string ReadAll(int fd) {
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

Ran RunShell(const std::string& script, SpawnOptions options = {}) {
  options.argv = {kShell, "-c", script};
  absl::StatusOr<std::unique_ptr<Child>> child = Spawn(options);
  EXPECT_THAT(child, IsOk());
  if (!child.ok()) return {};
  Ran ran;
  if ((*child)->stdout_fd() >= 0) ran.output = ReadAll((*child)->stdout_fd());
  absl::StatusOr<ExitStatus> exit = (*child)->Wait(Child::Rest::kKill);
  EXPECT_THAT(exit, IsOk());
  if (exit.ok()) ran.exit = *exit;
  return ran;
}

TEST(SpawnTest, ReportsExitCodes) {
  EXPECT_EQ(RunShell("exit 0").exit, ExitStatus{});
  EXPECT_EQ(RunShell("exit 3").exit, ExitStatus{.code = 3});
}

TEST(SpawnTest, ReportsTheSignalThatEndedIt) {
  EXPECT_EQ(RunShell("kill -TERM $$").exit, ExitStatus{.signal = SIGTERM});
}

TEST(SpawnTest, CombinedPipeCarriesStdoutAndStderr) {
  EXPECT_EQ(RunShell("echo out; echo err >&2").output, "out\nerr\n");
}

TEST(SpawnTest, CompleteEnvironmentReplacesThisProcesses) {
  ::setenv("TRAINPKG_SPAWN_TEST_INHERITED", "from-parent", 1);
  Ran ran =
      RunShell("echo \"[$TRAINPKG_SPAWN_TEST_INHERITED][$ONLY]\"",
               SpawnOptions{.environment = std::map<std::string, std::string>{{"ONLY", "1"}}});
  EXPECT_EQ(ran.output, "[][1]\n");
}

TEST(SpawnTest, InheritsThisProcessesEnvironmentByDefault) {
  ::setenv("TRAINPKG_SPAWN_TEST_INHERITED", "from-parent", 1);
  EXPECT_EQ(RunShell("echo $TRAINPKG_SPAWN_TEST_INHERITED").output, "from-parent\n");
}

TEST(SpawnTest, StdinIsDevNullByDefault) { EXPECT_EQ(RunShell("cat; echo end").output, "end\n"); }

TEST(SpawnTest, OutputToAFileIsAppended) {
  ::trainpkg::testing::TempDir dir;
  ASSERT_THAT(AppendToFile(dir / "log", "before\n"), IsOk());
  Ran ran = RunShell(
      "echo out; echo err >&2",
      SpawnOptions{.output = SpawnOptions::Output::kAppendToFile, .output_file = dir / "log"});
  EXPECT_TRUE(ran.exit.ok());
  EXPECT_EQ(::trainpkg::testing::Slurp(dir / "log"), "before\nout\nerr\n");
}

TEST(SpawnTest, UnwritableOutputFileNamesTheFile) {
  EXPECT_THAT(Spawn(SpawnOptions{.argv = {kShell, "-c", "true"},
                                 .output = SpawnOptions::Output::kAppendToFile,
                                 .output_file = "/nonexistent-dir/log"}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent-dir/log")));
}

TEST(SpawnTest, ChildGetsNoDescriptorsBeyondStdio) {
  // A descriptor of this process without close-on-exec, as a library might
  // leave one, numbered apart from what ls opens itself.
  constexpr int kLeaked = 100;
  ASSERT_EQ(::dup2(STDOUT_FILENO, kLeaked), kLeaked);
  Ran ran = RunShell("ls /proc/self/fd");
  ::close(kLeaked);
  // 0, 1, 2 and the descriptor ls opened to read the directory.
  EXPECT_EQ(ran.output, "0\n1\n2\n3\n");
}

TEST(SpawnTest, ChildLeadsItsOwnProcessGroup) {
  Ran ran = RunShell("test \"$(ps -o pgid= -p $$ | tr -d ' ')\" = $$ && echo leader");
  EXPECT_EQ(ran.output, "leader\n");
}

TEST(SpawnTest, NewSessionMakesTheChildASessionLeader) {
  Ran ran = RunShell("test \"$(ps -o sid= -p $$ | tr -d ' ')\" = $$ && echo leader",
                     SpawnOptions{.grouping = SpawnOptions::Grouping::kNewSession});
  EXPECT_EQ(ran.output, "leader\n");
}

TEST(SpawnTest, ResetsIgnoredSignalsAndTheMask) {
  ::signal(SIGUSR1, SIG_IGN);
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  Ran ran = RunShell("grep -E '^(SigIgn|SigBlk)' /proc/self/status");
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::signal(SIGUSR1, SIG_DFL);
  EXPECT_THAT(ran.output, HasSubstr("SigBlk:\t0000000000000000"));
  EXPECT_THAT(ran.output, HasSubstr("SigIgn:\t0000000000000000"));
}

TEST(SpawnTest, TryWaitDoesNotBlockWhileTheChildRuns) {
  absl::StatusOr<std::unique_ptr<Child>> child = Spawn(SpawnOptions{
      .argv = {kShell, "-c", "read line; exit 4"}, .input = SpawnOptions::Input::kPipe});
  ASSERT_THAT(child, IsOk());
  absl::StatusOr<std::optional<ExitStatus>> running = (*child)->TryWait(Child::Rest::kKill);
  ASSERT_THAT(running, IsOk());
  EXPECT_EQ(*running, std::nullopt);
  (*child)->CloseStdin();
  absl::StatusOr<std::optional<ExitStatus>> exit;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  do {
    exit = (*child)->TryWait(Child::Rest::kKill);
    ASSERT_THAT(exit, IsOk());
  } while (!exit->has_value() && absl::Now() < deadline);
  EXPECT_THAT(*exit, Optional(ExitStatus{.code = 4}));
}

TEST(SpawnTest, SignalGroupReachesTheChildsChildren) {
  absl::StatusOr<std::unique_ptr<Child>> child =
      Spawn(SpawnOptions{.argv = {kShell, "-c", "sleep 30 & wait"}});
  ASSERT_THAT(child, IsOk());
  (*child)->SignalGroup(SIGTERM);
  absl::StatusOr<ExitStatus> exit = (*child)->Wait(Child::Rest::kKill);
  ASSERT_THAT(exit, IsOk());
  EXPECT_EQ(exit->signal, SIGTERM);
  // sleep held the output pipe: it is closed only once sleep died too.
  EXPECT_EQ(ReadAll((*child)->stdout_fd()), "");
}

TEST(SpawnTest, MissingProgramNamesItAndLeavesNoChild) {
  EXPECT_THAT(Spawn(SpawnOptions{.argv = {"/nonexistent/program"}}),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("starting /nonexistent/program: No such file")));
  // Reaped: no child of this process is left.
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(RunSubprocessTest, FeedsInputAndCapturesOutputSeparately) {
  absl::StatusOr<SubprocessResult> result =
      RunSubprocess({kShell, "-c", "read line; echo \"got $line\"; echo oops >&2; exit 2"},
                    "hello\n", absl::Seconds(10));
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->exit_code, 2);
  EXPECT_EQ(result->out, "got hello\n");
  EXPECT_EQ(result->err, "oops\n");
}

TEST(RunSubprocessTest, ReportsASignalAs128PlusItsNumber) {
  absl::StatusOr<SubprocessResult> result =
      RunSubprocess({kShell, "-c", "kill -KILL $$"}, "", absl::Seconds(10));
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->exit_code, 128 + SIGKILL);
}

TEST(RunSubprocessTest, TimeoutKillsTheGroupAndReportsDeadlineExceeded) {
  const absl::Time start = absl::Now();
  EXPECT_THAT(RunSubprocess({kShell, "-c", "sleep 30 & sleep 30"}, "", absl::Milliseconds(300)),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("/bin/sh did not finish within 300ms")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
}

TEST(RunSubprocessTest, MissingProgramIsAnError) {
  EXPECT_THAT(RunSubprocess({"/nonexistent/helper"}, "", absl::Seconds(10)),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("starting /nonexistent/helper")));
}

TEST(FindInPathTest, FindsTheFirstExecutable) {
  ::trainpkg::testing::TempDir dir;
  ASSERT_THAT(AppendToFile(dir / "tool", "#!/bin/sh\n"), IsOk());
  EXPECT_EQ(FindInPath("tool", (dir / "").string()), std::nullopt);  // not executable
  ::chmod((dir / "tool").c_str(), 0755);
  EXPECT_EQ(FindInPath("tool", absl::StrCat("/nonexistent:", dir.path().string())),
            std::optional(dir / "tool"));
  EXPECT_EQ(FindInPath("sh", "/nonexistent::/bin"),
            std::optional(std::filesystem::path("/bin/sh")));
}

}  // namespace
}  // namespace trainpkg::base
