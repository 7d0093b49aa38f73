#include "sdk/cli/ssh_replica_command.h"

#include <unistd.h>

#include <cerrno>
#include <memory>

#include "base/environment.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/signal_watcher.h"
#include "sdk/job_store.h"
#include "sdk/local/container_replica_runner.h"

namespace trainpkg::cli {
namespace {

void CopyToStdout(int fd) {
  char buffer[16384];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(STDOUT_FILENO, buffer + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;  // stdout gone: keep draining, so the container never blocks
      done += w;
    }
  }
}

}  // namespace

CLI::App* AddSshReplicaCommand(CLI::App& app, std::string& manifest) {
  CLI::App* command = app.add_subcommand(
      kSshReplicaCommand, "Run one container replica of an SSH backend's job on this host");
  command->group("");  // hidden: the SSH backend runs it, not users
  command->add_option("manifest", manifest, "The replica's task manifest (deleted once read)")
      ->required();
  return command;
}

int SshReplicaCommand(const std::string& manifest_path, std::ostream& err) {
  // Before any thread: the watcher below takes SIGINT and SIGTERM.
  BlockTerminationSignals();
  absl::StatusOr<sdk::local::ContainerReplicaRun> run =
      sdk::local::ReadContainerReplicaManifest(manifest_path);
  if (!run.ok()) {
    err << "trainpkg ssh-replica: " << run.status().message() << std::endl;
    return kExitFailed;
  }
  absl::StatusOr<std::filesystem::path> home = sdk::DefaultJobStoreHome(base::ProcessEnvironment());
  absl::Status home_made = home.ok() ? sdk::MakeHomePrivate(*home) : home.status();
  if (!home_made.ok()) {
    err << "trainpkg ssh-replica: this host's trainpkg home: " << home_made.message() << std::endl;
    return kExitFailed;
  }
  run->home = *home;
  run->environment = base::SnapshotProcessEnvironment();
  absl::StatusOr<std::unique_ptr<sdk::Process>> process =
      sdk::local::StartContainerReplica(*run, sdk::DefaultProcessLauncher());
  if (!process.ok()) {
    err << "trainpkg ssh-replica: " << run->replica << ": " << process.status().message()
        << std::endl;
    return kExitFailed;
  }
  sdk::ExitStatus status;
  {
    SignalWatcher watcher(
        [&process](int signal, int /*count*/) { (*process)->SignalGroup(signal); });
    CopyToStdout((*process)->output_fd());
    status = (*process)->Wait();
  }
  return status.signal != 0 ? 128 + status.signal : status.code;
}

}  // namespace trainpkg::cli
