// Ctrl-C handling for commands that run jobs: SIGINT and SIGTERM are blocked
// in every thread and taken by one thread with sigtimedwait, so the handler
// may do anything (cancel a job), not only async-signal-safe calls.
#ifndef TRAINPKG_SDK_CLI_SIGNAL_WATCHER_H_
#define TRAINPKG_SDK_CLI_SIGNAL_WATCHER_H_

#include <atomic>
#include <functional>
#include <thread>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "sdk/custom_job.h"

namespace trainpkg::cli {

// Blocks SIGINT and SIGTERM in the calling thread, and so in every thread it
// starts later. Call before any thread exists. Child processes must reset
// the mask (the sdk's process launcher does).
void BlockTerminationSignals();

class SignalWatcher {
 public:
  // Calls `on_signal(signal, count)` on the watcher thread for each SIGINT
  // or SIGTERM, count = 1 for the first one. REQUIRES:
  // BlockTerminationSignals() ran before any thread was started.
  explicit SignalWatcher(std::function<void(int signal, int count)> on_signal);
  ~SignalWatcher();  // stops and joins the thread

  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Waits for a submitted job while the first SIGINT/SIGTERM cancels it
// (grace period) and any further one kills it at once. Returns Wait()'s
// result. Same REQUIRES as SignalWatcher.
absl::StatusOr<jobspec::CustomJob> WaitCancellingOnSignals(sdk::CustomJob& job);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_SIGNAL_WATCHER_H_
