// The polling thread of the remote backends (Vertex AI, Kubernetes): calls
// `poll` after an initial interval, then at intervals growing by a factor up
// to a maximum, until `poll` returns true or the loop is stopped; Wake()
// polls at once.
#ifndef TRAINPKG_SDK_INTERNAL_POLL_LOOP_H_
#define TRAINPKG_SDK_INTERNAL_POLL_LOOP_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/time/time.h"

namespace trainpkg::sdk::internal {

struct PollIntervals {
  absl::Duration initial = absl::Seconds(1);
  absl::Duration max = absl::Seconds(30);
  double multiplier = 1.5;
};

// Start() once; the other methods are thread-safe.
class PollLoop {
 public:
  PollLoop() = default;
  ~PollLoop();  // Stop()
  PollLoop(const PollLoop&) = delete;
  PollLoop& operator=(const PollLoop&) = delete;

  // `poll` runs on the loop's thread and returns true when polling is over.
  void Start(PollIntervals intervals, std::function<bool()> poll);
  bool started() const;
  // The next poll happens now rather than after the interval.
  void Wake();
  // Blocks until `poll` returned true or Stop() ended the loop.
  void Wait();
  bool done() const;
  // Ends the loop after the poll in progress, if any, and joins the thread.
  void Stop();

 private:
  void Run(PollIntervals intervals, std::function<bool()> poll);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;  // guarded by mu_
  bool wake_ = false;     // guarded by mu_
  bool stop_ = false;     // guarded by mu_
  bool done_ = false;     // guarded by mu_
  std::thread thread_;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_POLL_LOOP_H_
