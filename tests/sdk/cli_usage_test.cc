// The trainpkg binary's command line, as a new user mistypes it: every usage
// error is one "trainpkg: error:" line naming the word it did not know and
// the nearest command or flag, then where to read more; `help` and `version`
// answer as git's and gcloud's do.
#include <regex>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/shell.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using trainpkg::testing::ShellResult;

ShellResult Trainpkg(const std::string& args) {
  return trainpkg::testing::Sh(std::string(TRAINPKG_PATH) + " " + args + " </dev/null");
}

// The usage error `args` gets: exit 2, and its message.
std::string UsageError(const std::string& args) {
  ShellResult result = Trainpkg(args);
  EXPECT_EQ(result.code, 2) << args << ": " << result.out;
  EXPECT_THAT(result.out, StartsWith("trainpkg: error: ")) << args;
  return result.out;
}

TEST(CliUsageTest, AMisspelledCommandGetsTheNearest) {
  EXPECT_THAT(UsageError("bulid ."),
              AllOf(HasSubstr("unknown command 'bulid'; did you mean 'build'?"),
                    HasSubstr("Run 'trainpkg --help' for the commands.")));
  EXPECT_THAT(UsageError("psuh example.com/a:1"), HasSubstr("did you mean 'push'?"));
  EXPECT_THAT(UsageError("imagse"), HasSubstr("did you mean 'images'?"));
}

TEST(CliUsageTest, AMisspelledSubcommandNamesItsParent) {
  EXPECT_THAT(UsageError("jobs lst"),
              AllOf(HasSubstr("unknown command 'lst' for 'trainpkg jobs'; did you mean 'list'?"),
                    HasSubstr("Run 'trainpkg jobs --help' for its commands.")));
  EXPECT_THAT(UsageError("jobs descibe 1"), HasSubstr("did you mean 'describe'?"));
}

TEST(CliUsageTest, AMisspelledFlagGetsTheNearestFlagOfItsCommand) {
  EXPECT_THAT(
      UsageError("run --confg job.yaml"),
      AllOf(HasSubstr("unknown flag '--confg' for 'trainpkg run'; did you mean '--config'?"),
            HasSubstr("Run 'trainpkg run --help' for its flags.")));
  // Written with '=' too, and after a flag that takes a value.
  EXPECT_THAT(UsageError("run --display-name x --base-output-dri=/tmp/x"),
              HasSubstr("unknown flag '--base-output-dri' for 'trainpkg run'; did you mean "
                        "'--base-output-dir'?"));
  // After a flag that takes no value.
  EXPECT_THAT(UsageError("run --detach --valdate-only"),
              HasSubstr("unknown flag '--valdate-only' for 'trainpkg run'; did you mean "
                        "'--validate-only'?"));
  EXPECT_THAT(UsageError("jobs list --backnd local"),
              HasSubstr("unknown flag '--backnd' for 'trainpkg jobs list'"));
}

TEST(CliUsageTest, NothingCloseIsSaidPlainly) {
  const std::string out = UsageError("deploy");
  EXPECT_THAT(out, HasSubstr("unknown command 'deploy'"));
  EXPECT_THAT(out, Not(HasSubstr("did you mean")));
}

TEST(CliUsageTest, AMissingCommandListsTheCommands) {
  EXPECT_THAT(UsageError(""), AllOf(HasSubstr("'trainpkg' needs a command: "), HasSubstr("build"),
                                    HasSubstr("run")));
  EXPECT_THAT(UsageError("jobs"),
              AllOf(HasSubstr("'trainpkg jobs' needs a command: list, describe"),
                    HasSubstr("Run 'trainpkg jobs --help' for its commands.")));
}

TEST(CliUsageTest, OtherErrorsKeepTheParsersWordsAndSayWhereToLook) {
  // A flag that takes a value, given none.
  const std::string out = UsageError("run --config");
  EXPECT_THAT(out, HasSubstr("--config"));
  EXPECT_THAT(out, HasSubstr("Run 'trainpkg run --help' for more information."));
}

TEST(CliUsageTest, HelpShowsACommandsHelp) {
  ShellResult top = Trainpkg("help");
  EXPECT_EQ(top.code, 0) << top.out;
  EXPECT_THAT(top.out, AllOf(HasSubstr("Usage: trainpkg"), HasSubstr("build")));
  ShellResult list = Trainpkg("help jobs list");
  EXPECT_EQ(list.code, 0) << list.out;
  EXPECT_THAT(list.out, HasSubstr("Usage: trainpkg jobs list"));
  // The same text as --help gives.
  EXPECT_EQ(list.out, Trainpkg("jobs list --help").out);
  EXPECT_THAT(UsageError("help jbos"), HasSubstr("unknown command 'jbos'; did you mean 'jobs'?"));
}

// `trainpkg ssh-replica`, what the SSH backend runs on a host, is no
// command of the help, the "needs a command" list or the completion.
TEST(CliUsageTest, TheSshBackendsInternalCommandIsHidden) {
  EXPECT_THAT(Trainpkg("--help").out, Not(HasSubstr("ssh-replica")));
  EXPECT_THAT(UsageError(""), Not(HasSubstr("ssh-replica")));
  EXPECT_THAT(Trainpkg("completion bash").out, Not(HasSubstr("ssh-replica")));
  // Run by hand, it says what it lacks.
  ShellResult run = Trainpkg("ssh-replica /nonexistent/workerpool0-0.json");
  EXPECT_EQ(run.code, 1) << run.out;
  EXPECT_THAT(run.out, HasSubstr("trainpkg ssh-replica: "));
  EXPECT_THAT(run.out, HasSubstr("/nonexistent/workerpool0-0.json"));
}

TEST(CliUsageTest, VersionNamesTheCommit) {
  ShellResult version = Trainpkg("version");
  EXPECT_EQ(version.code, 0) << version.out;
  // The commit, or "unknown" for a tree that is not a git checkout.
  EXPECT_TRUE(std::regex_match(
      version.out,
      std::regex(R"(trainpkg \d+\.\d+\.\d+ \(commit ([0-9a-f]{12}(\+modified)?|unknown)\)\n)")))
      << version.out;
  EXPECT_EQ(Trainpkg("--version").out, version.out);
}

}  // namespace
