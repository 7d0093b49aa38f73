#include "sdk/local/internal/runc_container_launcher.h"

#include <unistd.h>

#include <optional>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "packager/run/host_resource_ledger.h"

namespace trainpkg::sdk::local::internal {
namespace {

class RuncProcess final : public Process {
 public:
  RuncProcess(std::unique_ptr<Process> runc, std::shared_ptr<ProcessLauncher> launcher,
              RuncContainer container, packager::run::LedgerEntry entry)
      : runc_(std::move(runc)),
        launcher_(std::move(launcher)),
        container_(std::move(container)),
        entry_(std::move(entry)) {}

  int pid() const override { return runc_->pid(); }
  int output_fd() const override { return runc_->output_fd(); }
  void SignalGroup(int signal) override { runc_->SignalGroup(signal); }
  ExitStatus Wait() override { return Ended(runc_->Wait()); }
  std::optional<ExitStatus> TryWait() override {
    std::optional<ExitStatus> status = runc_->TryWait();
    if (!status.has_value()) return std::nullopt;
    return Ended(*status);
  }

 private:
  // runc has exited: the container goes, and so does its ledger entry.
  ExitStatus Ended(ExitStatus status) {
    DeleteRuncContainer(*launcher_, container_);
    entry_.Release();
    return status;
  }

  std::unique_ptr<Process> runc_;
  std::shared_ptr<ProcessLauncher> launcher_;
  RuncContainer container_;
  packager::run::LedgerEntry entry_;
};

}  // namespace

ProcessSpec RuncRunSpec(const std::string& replica_name, const RuncContainer& container) {
  return ProcessSpec{
      .name = replica_name,
      .program = "runc",
      .argv = {"runc", "run", "--bundle", container.bundle_dir.string(), container.id},
      .env = container.env,
  };
}

absl::StatusOr<std::unique_ptr<Process>> RuncContainerLauncher::Start(const ProcessSpec& spec) {
  absl::StatusOr<std::unique_ptr<Process>> runc = absl::UnimplementedError(
      absl::StrCat("starting ", spec.name,
                   ": a container can neither outlive trainpkg nor write its output to a file"));
  absl::StatusOr<packager::run::LedgerEntry> entry = absl::UnknownError("not recorded");
  if (!spec.outlives_caller && !spec.append_output_to.has_value()) {
    entry = packager::run::RecordHostResource({.kind = packager::run::HostResourceKind::kContainer,
                                               .name = container_.id,
                                               .runtime = "runc"});
    runc =
        entry.ok() ? inner_->Start(spec) : absl::StatusOr<std::unique_ptr<Process>>(entry.status());
  }
  if (!runc.ok()) {
    std::error_code ec;
    std::filesystem::remove_all(container_.bundle_dir, ec);
    return runc.status();
  }
  return std::make_unique<RuncProcess>(*std::move(runc), inner_, container_, *std::move(entry));
}

void DeleteRuncContainer(ProcessLauncher& launcher, const RuncContainer& container) {
  ProcessSpec spec{
      .name = container.id,
      .program = "runc",
      .argv = {"runc", "delete", "--force", container.id},
      .env = container.env,
  };
  absl::StatusOr<std::unique_ptr<Process>> deleter = launcher.Start(spec);
  if (deleter.ok()) {
    std::string output;
    char buffer[4096];
    ssize_t n;
    while ((n = ::read((*deleter)->output_fd(), buffer, sizeof(buffer))) > 0) {
      output.append(buffer, static_cast<size_t>(n));
    }
    ExitStatus status = (*deleter)->Wait();
    // runc says "does not exist" when the container was already gone.
    if (!status.ok() && output.find("does not exist") == std::string::npos) {
      TP_LOG(WARNING, "runc delete --force {}: {}", container.id, output);
    }
  } else {
    TP_LOG(WARNING, "runc delete --force {}: {}", container.id,
           std::string(deleter.status().message()));
  }
  std::error_code ec;
  std::filesystem::remove_all(container.bundle_dir, ec);
  if (ec) TP_LOG(WARNING, "removing {}: {}", container.bundle_dir.string(), ec.message());
}

}  // namespace trainpkg::sdk::local::internal
