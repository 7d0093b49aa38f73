// The chief's dispatcher (TF's ClusterCoordinator): steps are scheduled
// without blocking and run on whichever worker is free.
//
//   ClusterCoordinator coordinator(std::move(runners), on_result);
//   for (int64_t s = 0; s < 100; ++s) coordinator.Schedule(s);
//   TP_RETURN_IF_ERROR(coordinator.Join());   // all 100 done
//
// Worker failure: a step whose runner says Unavailable or DeadlineExceeded
// goes back to the front of the queue for another worker, and that worker
// gets no more steps (so a step may run twice, as in TF: its pushes may
// have reached the ps before the worker died). Training goes on while one
// worker lives. Any other error from a step (a ps unreachable, a bad batch)
// fails the job: Join returns it, prefixed with the step and the worker,
// and nothing more is dispatched.
//
// One thread per worker. on_result is called for every finished step, from
// those threads, one call at a time. Thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_CLUSTER_COORDINATOR_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_CLUSTER_COORDINATOR_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "trainer_runtime/ps/step_result.h"
#include "trainer_runtime/ps/step_runner.h"

namespace trainpkg::ps {

class ClusterCoordinator {
 public:
  using ResultCallback = std::function<void(int64_t step, const StepResult& result)>;

  // REQUIRES: at least one worker.
  ClusterCoordinator(std::vector<std::unique_ptr<StepRunner>> workers, ResultCallback on_result);
  // Waits for the steps in flight, dispatches nothing more.
  ~ClusterCoordinator();
  ClusterCoordinator(const ClusterCoordinator&) = delete;
  ClusterCoordinator& operator=(const ClusterCoordinator&) = delete;

  void Schedule(int64_t step);
  // Blocks until every scheduled step has finished, or the job has failed:
  // the step's error ("step 7 on worker 1 (addr): ...") or, when every
  // worker has failed, Unavailable naming the last failure.
  absl::Status Join();

  // Workers still given steps.
  int live_workers() const;
  // Steps put back in the queue after a worker failed.
  int64_t rescheduled() const;
  // Tells every live worker to exit (best effort, after Join).
  void ShutdownWorkers();

 private:
  void Serve(size_t worker);

  std::vector<std::unique_ptr<StepRunner>> workers_;
  ResultCallback on_result_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int64_t> queue_;
  int64_t in_flight_ = 0;
  std::vector<bool> alive_;
  int live_ = 0;
  int64_t rescheduled_ = 0;
  absl::Status error_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_CLUSTER_COORDINATOR_H_
