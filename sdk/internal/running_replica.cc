#include "sdk/internal/running_replica.h"

#include <signal.h>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "sdk/internal/proc_stat.h"

namespace trainpkg::sdk::internal {

absl::StatusOr<std::unique_ptr<RunningReplica>> RunningReplica::Start(
    ProcessLauncher& launcher, const ProcessSpec& spec, const std::filesystem::path& log_file,
    LineStream* live, std::function<void(ExitStatus)> on_exit) {
  std::unique_ptr<RunningReplica> replica(new RunningReplica());
  TP_ASSIGN_OR_RETURN(replica->process_, launcher.Start(spec));
  // Not reaped before the reaper starts, so /proc still has it.
  if (absl::StatusOr<ProcStat> stat = ReadProcStat(replica->process_->pid()); stat.ok()) {
    replica->start_time_ = stat->start_time;
  }
  absl::StatusOr<std::unique_ptr<LogPump>> pump = LogPump::Start(
      replica->process_->output_fd(), log_file, absl::StrCat("[", spec.name, "] "), live);
  if (!pump.ok()) {
    // Without a pump nobody would drain its output, and a replica blocked on a
    // full pipe would never exit.
    replica->process_->SignalGroup(SIGKILL);
    replica->process_->Wait();
    return pump.status();
  }
  replica->pump_ = *std::move(pump);
  replica->reaper_ = std::thread([process = replica->process_.get(), on_exit = std::move(on_exit)] {
    on_exit(process->Wait());
  });
  return replica;
}

RunningReplica::~RunningReplica() { Finish(); }

void RunningReplica::Finish() {
  if (reaper_.joinable()) reaper_.join();
  if (pump_ != nullptr) pump_->Finish();
}

}  // namespace trainpkg::sdk::internal
