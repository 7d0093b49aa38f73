// What the SSH backend runs on a host, run here with the system's sh: the
// probe's parse, port choice, the setup script and the replica wrapper
// (exit status, environment, the group killed when stdin closes).
#include "sdk/ssh/internal/remote_script.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/file_util.h"
#include "base/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::sdk::ssh::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::trainpkg::testing::IsOk;

constexpr char kProcNetTcp[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
    "   0: 0100007F:8000 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0\n"
    "   1: 0200A8C0:8002 0300A8C0:01BB 01 00000000:00000000 00:00000000 00000000     0\n"
    "  sl  local_address                         remote_address                        st\n"
    "   0: 00000000000000000000000000000000:8003 00000000000000000000000000000000:0000 0A\n";

TEST(RemoteScriptTest, ParsesTheProbeAndChoosesPortsNoSocketUses) {
  const std::string output =
      absl::StrCat("home /home/u\nrange 32768 32773\nhave abc\ntcp\n", kProcNetTcp);
  absl::StatusOr<HostProbe> probe = ParseProbe(output);
  ASSERT_THAT(probe, IsOk());
  EXPECT_EQ(probe->home, "/home/u");
  EXPECT_THAT(probe->cached, ElementsAre("abc"));
  EXPECT_THAT(probe->ports_in_use, ElementsAre(0x8000, 0x8002, 0x8003));
  // 32768..32773 less 32768, 32770, 32771, from the seed's start on.
  absl::StatusOr<std::vector<int>> ports = ChooseFreePorts(*probe, 3, 0);
  ASSERT_THAT(ports, IsOk());
  EXPECT_THAT(*ports, ElementsAre(32769, 32772, 32773));
  EXPECT_THAT(ChooseFreePorts(*probe, 4, 0).status().message(),
              HasSubstr("the host has 3 free ports in its ephemeral range 32768-32773"));
  EXPECT_FALSE(ParseProbe("range 1 2\ntcp\n").ok()) << "no home";
  EXPECT_FALSE(ParseProbe("home /h\ntcp\n").ok()) << "no range";
}

TEST(RemoteScriptTest, TheProbeRunsUnderSh) {
  const testing::TempDir home;
  std::filesystem::create_directories(home.path() / ".cache/trainpkg/ssh/sha256/abc");
  base::WriteFileAtomic(home.path() / ".cache/trainpkg/ssh/sha256/abc/prog", "#!/bin/sh\n")
      .IgnoreError();
  std::filesystem::permissions(home.path() / ".cache/trainpkg/ssh/sha256/abc/prog",
                               std::filesystem::perms::owner_all);
  absl::StatusOr<base::SubprocessResult> out =
      base::RunSubprocess({"/usr/bin/env", "HOME=" + home.path().string(), "sh", "-s"},
                          ProbeScript({{"abc", "prog"}, {"def", "other"}}), absl::Seconds(10));
  ASSERT_THAT(out, IsOk());
  absl::StatusOr<HostProbe> probe = ParseProbe(out->out);
  ASSERT_THAT(probe, IsOk()) << out->out;
  EXPECT_EQ(probe->home, home.path().string());
  EXPECT_THAT(probe->cached, ElementsAre("abc"));
  EXPECT_GT(probe->port_high, probe->port_low);
}

TEST(RemoteScriptTest, FindsTrainpkgAndItsVersionUnderSh) {
  const testing::TempDir dir;
  const std::filesystem::path fake = dir.path() / "trainpkg";
  ASSERT_THAT(base::WriteFileAtomic(fake, "#!/bin/sh\necho \"trainpkg 9.9.9 (commit x) $1\"\n"),
              IsOk());
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  auto run = [](const std::string& program) {
    absl::StatusOr<base::SubprocessResult> out = base::RunSubprocess(
        {"/bin/sh", "-c", TrainpkgVersionCommand(program)}, "", absl::Seconds(10));
    EXPECT_THAT(out, IsOk());
    EXPECT_EQ(out->exit_code, 0);
    return ParseTrainpkgVersion(out.ok() ? out->out : "");
  };
  RemoteTrainpkg found = run(fake.string());
  EXPECT_EQ(found.path, fake.string());
  EXPECT_EQ(found.version, "trainpkg 9.9.9 (commit x) version");
  found = run("no-such-trainpkg-anywhere");
  EXPECT_EQ(found.path, "");
  found = run((dir.path() / "it's not there").string());
  EXPECT_EQ(found.path, "");
}

TEST(RemoteScriptTest, TheSetupWritesExtraFilesPrivately) {
  const testing::TempDir dir;
  const std::string job_dir = (dir.path() / "job").string();
  absl::StatusOr<base::SubprocessResult> setup =
      base::RunSubprocess({"/bin/sh", "-s"},
                          SetupScript(job_dir, absl::Seconds(1), {{"workerpool0-0", {}}},
                                      {{"workerpool0-0.json", "{\"a\":\"TRAINPKG_EOF\"}"}}),
                          absl::Seconds(10));
  ASSERT_THAT(setup, IsOk());
  ASSERT_EQ(setup->exit_code, 0) << setup->err;
  EXPECT_EQ(base::ReadFile(job_dir + "/workerpool0-0.json").value_or(""),
            "{\"a\":\"TRAINPKG_EOF\"}\n");
  EXPECT_EQ(std::filesystem::status(job_dir + "/workerpool0-0.json").permissions() &
                std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

class WrapperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    job_dir_ = (dir_.path() / "job").string();
    absl::StatusOr<base::SubprocessResult> setup = base::RunSubprocess(
        {"/bin/sh", "-s"},
        SetupScript(job_dir_, absl::Seconds(1),
                    {{"workerpool0-0", {{"GREETING", "it's \"quoted\" $HOME\nline2"}}}}),
        absl::Seconds(10));
    ASSERT_THAT(setup, IsOk());
    ASSERT_EQ(setup->exit_code, 0) << setup->err;
  }

  // Starts the wrapper for workerpool0-0 running `script` with sh, stdin a pipe.
  std::unique_ptr<base::Child> Start(const std::string& script) {
    absl::StatusOr<std::unique_ptr<base::Child>> child = base::Spawn(base::SpawnOptions{
        .argv = {"/bin/sh", "-c",
                 ReplicaCommand(job_dir_, "workerpool0-0", dir_.path().string(),
                                {"/bin/sh", "-c", script})},
        .program = "/bin/sh",
        .environment = std::nullopt,
        .input = base::SpawnOptions::Input::kPipe,
    });
    EXPECT_THAT(child, IsOk());
    return child.ok() ? *std::move(child) : nullptr;
  }

  testing::TempDir dir_;
  std::string job_dir_;
};

TEST_F(WrapperTest, RunsTheReplicaWithItsEnvironmentAndReportsItsStatus) {
  std::unique_ptr<base::Child> child = Start("printf '%s|' \"$GREETING\" \"$(pwd)\"; exit 3");
  ASSERT_NE(child, nullptr);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = ::read(child->stdout_fd(), buffer, sizeof(buffer))) > 0;)
    out.append(buffer, n);
  absl::StatusOr<base::ExitStatus> exit = child->Wait(base::Child::Rest::kKill);
  ASSERT_THAT(exit, IsOk());
  EXPECT_EQ(exit->code, 3);
  EXPECT_EQ(out, absl::StrCat("it's \"quoted\" $HOME\nline2|", dir_.path().string(), "|"));
  // The environment file (the job secret's) is gone once read.
  EXPECT_FALSE(std::filesystem::exists(job_dir_ + "/workerpool0-0.env"));
}

TEST_F(WrapperTest, ClosingStdinKillsTheReplicasGroup) {
  const std::string pid_file = (dir_.path() / "pid").string();
  // The replica and a child of it, which ignores SIGTERM.
  std::unique_ptr<base::Child> child =
      Start(absl::StrCat("(trap '' TERM; sleep 100) & echo $! > ", pid_file, "; sleep 100"));
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return std::filesystem::exists(pid_file) && !base::ReadFile(pid_file).value_or("").empty();
      },
      absl::Seconds(10)));
  const int grandchild = std::stoi(base::ReadFile(pid_file).value_or("0"));
  child->CloseStdin();  // the ssh channel closing
  absl::StatusOr<base::ExitStatus> exit = child->Wait(base::Child::Rest::kLeave);
  ASSERT_THAT(exit, IsOk());
  EXPECT_EQ(exit->code, 128 + SIGTERM);
  // SIGKILL after the 1 s grace period reaches the one that ignored SIGTERM.
  EXPECT_TRUE(testing::WaitFor([&] { return testing::ProcessGone(grandchild); }, absl::Seconds(5)));
}

// A replica that ignores SIGTERM gets SIGKILL once the grace period (1 s
// here) is over.
TEST_F(WrapperTest, AReplicaIgnoringSigtermIsKilledAfterTheGracePeriod) {
  std::unique_ptr<base::Child> child = Start("trap '' TERM; sleep 100 & wait; wait");
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(
      testing::WaitFor([&] { return std::filesystem::exists(job_dir_ + "/workerpool0-0.pgid"); },
                       absl::Seconds(10)));
  child->CloseStdin();
  absl::StatusOr<base::ExitStatus> exit = child->Wait(base::Child::Rest::kLeave);
  ASSERT_THAT(exit, IsOk());
  EXPECT_EQ(exit->code, 128 + SIGKILL);
}

}  // namespace
}  // namespace trainpkg::sdk::ssh::internal
