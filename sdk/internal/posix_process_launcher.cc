#include "sdk/internal/posix_process_launcher.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_context.h"
#include "base/subprocess.h"
#include "sdk/internal/find_executable.h"

namespace trainpkg::sdk::internal {
namespace {

constexpr char kExecDefaultPath[] = "/usr/local/bin:/usr/bin:/bin";

class PosixProcess final : public Process {
 public:
  explicit PosixProcess(std::unique_ptr<base::Child> child) : child_(std::move(child)) {}

  int pid() const override { return child_->pid(); }
  int output_fd() const override { return child_->stdout_fd(); }

  ExitStatus Wait() override { return Reported(child_->Wait(base::Child::Rest::kKill)); }

  std::optional<ExitStatus> TryWait() override {
    absl::StatusOr<std::optional<ExitStatus>> exit = child_->TryWait(base::Child::Rest::kKill);
    if (!exit.ok()) return Reported(exit.status());
    return *exit;
  }

  void SignalGroup(int signal) override { child_->SignalGroup(signal); }

 private:
  // A child reaped elsewhere (SIGCHLD ignored, or waitpid(-1) in the host)
  // has no status left to report.
  static ExitStatus Reported(const absl::StatusOr<ExitStatus>& exit) {
    if (exit.ok()) return *exit;
    TP_LOG(ERROR, "{}", std::string(exit.status().message()));
    return ExitStatus{.code = 255};
  }

  std::unique_ptr<base::Child> child_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Process>> PosixProcessLauncher::Start(const ProcessSpec& spec) {
  auto path_it = spec.env.find("PATH");
  absl::StatusOr<std::string> path =
      FindExecutable(spec.program, path_it == spec.env.end() ? kExecDefaultPath : path_it->second);
  if (!path.ok()) {
    return base::WithContext(path.status(), absl::StrCat("starting ", spec.name));
  }
  base::SpawnOptions options{
      .argv = spec.argv,
      .program = *path,
      .environment = spec.env,
      .grouping = spec.outlives_caller ? base::SpawnOptions::Grouping::kNewSession
                                       : base::SpawnOptions::Grouping::kNewProcessGroup,
      .die_with_calling_thread = !spec.outlives_caller,
  };
  if (spec.append_output_to.has_value()) {
    options.output = base::SpawnOptions::Output::kAppendToFile;
    options.output_file = *spec.append_output_to;
  }
  absl::StatusOr<std::unique_ptr<base::Child>> child = base::Spawn(options);
  if (!child.ok()) {
    return base::WithContext(child.status(), absl::StrCat("starting ", spec.name));
  }
  return std::make_unique<PosixProcess>(*std::move(child));
}

}  // namespace trainpkg::sdk::internal
