#include "sdk/ssh/internal/ssh_client.h"

#include <signal.h>

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "base/file_util.h"

namespace trainpkg::sdk::ssh::internal {
namespace {

// sockaddr_un's sun_path, less what ssh appends to the temporary name.
constexpr size_t kMaxControlPath = 108 - 1 - 17;

std::string Seconds(absl::Duration d) {
  return std::to_string(
      std::max<int64_t>(1, absl::ToInt64Seconds(absl::Ceil(d, absl::Seconds(1)))));
}

// The last non-empty line of ssh's log: its error.
std::string LastLine(const std::filesystem::path& log) {
  std::string text = base::ReadFile(log).value_or("");
  std::string last;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) last = std::string(line);
  }
  return last.empty() ? "ssh exited without a message" : last;
}

std::vector<std::string> ConfigArgs(const SshClientConfig& config) {
  std::vector<std::string> args = {config.ssh.string()};
  if (!config.config.empty()) {
    args.push_back("-F");
    args.push_back(config.config.string());
  }
  args.insert(args.end(), {"-o", "BatchMode=yes", "-o",
                           absl::StrCat("ConnectTimeout=", Seconds(config.connect_timeout))});
  return args;
}

}  // namespace

absl::StatusOr<std::string> ResolveHostAddress(const SshClientConfig& config,
                                               absl::string_view host) {
  std::vector<std::string> argv = ConfigArgs(config);
  argv.insert(argv.end(), {"-G", "--", std::string(host)});
  absl::StatusOr<base::SubprocessResult> result = base::RunSubprocess(argv, "", absl::Seconds(10));
  if (!result.ok()) return result.status();
  if (result->exit_code != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host ", host, ": `ssh -G` failed: ", absl::StripAsciiWhitespace(result->err)));
  }
  for (absl::string_view line : absl::StrSplit(result->out, '\n')) {
    if (absl::ConsumePrefix(&line, "hostname ")) return std::string(line);
  }
  return absl::InternalError(absl::StrCat("host ", host, ": `ssh -G` printed no hostname"));
}

SshConnection::SshConnection(SshClientConfig config, std::string host,
                             std::filesystem::path control_path, std::filesystem::path log,
                             std::unique_ptr<base::Child> master)
    : config_(std::move(config)),
      host_(std::move(host)),
      control_path_(std::move(control_path)),
      log_(std::move(log)),
      master_(std::move(master)) {}

SshConnection::~SshConnection() { Close(); }

std::vector<std::string> SshConnection::CommonArgs() const {
  std::vector<std::string> args = ConfigArgs(config_);
  args.insert(args.end(), {"-o", absl::StrCat("ControlPath=", control_path_.string())});
  return args;
}

absl::StatusOr<std::unique_ptr<SshConnection>> SshConnection::Start(
    const SshClientConfig& config, std::string host, std::filesystem::path control_path,
    std::filesystem::path log) {
  if (control_path.string().size() > kMaxControlPath) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ssh control socket path ", control_path.string(), " is longer than ",
                     kMaxControlPath, " bytes; use a shorter job store home (TRAINPKG_HOME)"));
  }
  std::vector<std::string> argv = ConfigArgs(config);
  argv.insert(argv.end(),
              {"-o", "ControlMaster=yes", "-o", "ControlPersist=no", "-o",
               absl::StrCat("ControlPath=", control_path.string()), "-o", "ServerAliveInterval=5",
               "-o", "ServerAliveCountMax=3", "-N", "-T", "--", host});
  absl::StatusOr<std::unique_ptr<base::Child>> master = base::Spawn(base::SpawnOptions{
      .argv = argv,
      .program = config.ssh,
      .environment = config.environment,
      .input = base::SpawnOptions::Input::kDevNull,
      .output = base::SpawnOptions::Output::kAppendToFile,
      .output_file = log,
  });
  if (!master.ok()) return master.status();
  return std::unique_ptr<SshConnection>(new SshConnection(
      config, std::move(host), std::move(control_path), std::move(log), *std::move(master)));
}

absl::Status SshConnection::AwaitReady() {
  const absl::Time deadline = absl::Now() + config_.connect_timeout + absl::Seconds(5);
  std::vector<std::string> check = CommonArgs();
  check.insert(check.end(), {"-O", "check", "--", host_});
  for (absl::Duration pause = absl::Milliseconds(5);;
       pause = std::min(pause * 2, absl::Milliseconds(50))) {
    absl::StatusOr<std::optional<base::ExitStatus>> exited =
        master_->TryWait(base::Child::Rest::kKill);
    if (!exited.ok() || exited->has_value()) {
      closed_ = true;
      return absl::UnavailableError(
          absl::StrCat("host ", host_, " is unreachable: ", LastLine(log_)));
    }
    absl::StatusOr<base::SubprocessResult> result =
        base::RunSubprocess(check, "", absl::Seconds(5));
    if (result.ok() && result->exit_code == 0) return absl::OkStatus();
    if (absl::Now() > deadline) {
      return absl::UnavailableError(absl::StrCat(
          "host ", host_, " did not answer within ",
          absl::FormatDuration(config_.connect_timeout + absl::Seconds(5)), ": ", LastLine(log_)));
    }
    absl::SleepFor(pause);
  }
}

std::vector<std::string> SshConnection::Argv(absl::string_view command) const {
  std::vector<std::string> argv = CommonArgs();
  argv.insert(argv.end(), {"-o", "ControlMaster=no", "-T", "--", host_, std::string(command)});
  return argv;
}

absl::StatusOr<base::SubprocessResult> SshConnection::Run(absl::string_view command,
                                                          absl::string_view input,
                                                          absl::Duration timeout) const {
  return base::RunSubprocess(Argv(command), std::string_view(input.data(), input.size()), timeout);
}

void SshConnection::Close() {
  if (closed_) return;
  closed_ = true;
  std::vector<std::string> exit = CommonArgs();
  exit.insert(exit.end(), {"-O", "exit", "--", host_});
  (void)base::RunSubprocess(exit, "", absl::Seconds(5));
  master_->SignalGroup(SIGTERM);
  (void)master_->Wait(base::Child::Rest::kKill);
}

}  // namespace trainpkg::sdk::ssh::internal
