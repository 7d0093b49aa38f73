// One started replica: its process, the log pump copying its output and the
// reaper thread waiting for it.
#ifndef TRAINPKG_SDK_INTERNAL_RUNNING_REPLICA_H_
#define TRAINPKG_SDK_INTERNAL_RUNNING_REPLICA_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <thread>

#include "absl/status/statusor.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/log_pump.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::internal {

class RunningReplica {
 public:
  // Starts `spec` with `launcher` (on the calling thread, which must outlive
  // the process: see ProcessLauncher::Start), copies its output to
  // `log_file` and `live` (may be null) with "[<spec.name>] " prefixes, and
  // calls `on_exit` on the reaper thread once the process is reaped.
  // Errors leave nothing running.
  static absl::StatusOr<std::unique_ptr<RunningReplica>> Start(
      ProcessLauncher& launcher, const ProcessSpec& spec, const std::filesystem::path& log_file,
      LineStream* live, std::function<void(ExitStatus)> on_exit);

  ~RunningReplica();  // Finish()
  RunningReplica(const RunningReplica&) = delete;
  RunningReplica& operator=(const RunningReplica&) = delete;

  int pid() const { return process_->pid(); }
  // /proc start time of the process, read right after it started (0 when
  // it could not be read).
  uint64_t start_time() const { return start_time_; }
  // Signals the replica's process group (nothing once it is reaped).
  void SignalGroup(int signal) { process_->SignalGroup(signal); }
  // Blocks until the process has been reaped, then drains its output.
  // Idempotent.
  void Finish();

 private:
  RunningReplica() = default;
  std::unique_ptr<Process> process_;
  uint64_t start_time_ = 0;
  std::unique_ptr<LogPump> pump_;
  std::thread reaper_;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_RUNNING_REPLICA_H_
