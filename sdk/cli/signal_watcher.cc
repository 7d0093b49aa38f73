#include "sdk/cli/signal_watcher.h"

#include <signal.h>

#include <ctime>

namespace trainpkg::cli {
namespace {

sigset_t TerminationSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void BlockTerminationSignals() {
  sigset_t set = TerminationSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

SignalWatcher::SignalWatcher(std::function<void(int signal, int count)> on_signal) {
  thread_ = std::thread([this, on_signal = std::move(on_signal)] {
    sigset_t set = TerminationSignals();
    // A timed wait, so the destructor's stop flag is seen within 100 ms.
    const timespec poll = {.tv_sec = 0, .tv_nsec = 100'000'000};
    int count = 0;
    while (!stop_.load()) {
      int signal = sigtimedwait(&set, nullptr, &poll);
      if (signal > 0) on_signal(signal, ++count);
    }
  });
}

SignalWatcher::~SignalWatcher() {
  stop_.store(true);
  thread_.join();
}

absl::StatusOr<jobspec::CustomJob> WaitCancellingOnSignals(sdk::CustomJob& job) {
  SignalWatcher watcher([&job](int /*signal*/, int count) {
    // The first signal cancels with the grace period; a second (Ctrl-C again)
    // kills at once.
    if (count == 1) {
      job.Cancel();
    } else {
      job.Kill();
    }
  });
  return job.Wait();
}

}  // namespace trainpkg::cli
