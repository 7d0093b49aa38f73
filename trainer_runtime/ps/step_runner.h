// The chief's handle on one worker: runs a step there. The seam between the
// coordinator and the network; tests give the coordinator their own.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_STEP_RUNNER_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_STEP_RUNNER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "trainer_runtime/ps/step_result.h"

namespace trainpkg::ps {

class StepRunner {
 public:
  virtual ~StepRunner() = default;
  // "worker 1 (127.0.0.1:4242)", for messages.
  virtual const std::string& name() const = 0;
  // Runs step `step`. Unavailable or DeadlineExceeded mean the worker is
  // gone (the coordinator runs the step elsewhere); any other error is the
  // step's own and fails the job.
  virtual absl::StatusOr<StepResult> RunStep(int64_t step) = 0;
  // Tells the worker to exit; best effort.
  virtual absl::Status Shutdown() = 0;
};

// A runner over the Worker gRPC service at `address`, its calls carrying
// `job_secret` (ClusterInfo::job_secret). RunStep fails with
// DeadlineExceeded after `step_timeout`. WaitUntilReady blocks until the
// worker listens (Unavailable naming it after `timeout`).
class GrpcStepRunner final : public StepRunner {
 public:
  GrpcStepRunner(std::string name, const std::string& address, absl::Duration step_timeout,
                 std::string job_secret = {});
  ~GrpcStepRunner() override;
  const std::string& name() const override { return name_; }
  absl::StatusOr<StepResult> RunStep(int64_t step) override;
  absl::Status Shutdown() override;
  absl::Status WaitUntilReady(absl::Duration timeout);

 private:
  struct Stub;
  std::string name_;
  absl::Duration step_timeout_;
  std::unique_ptr<Stub> stub_;
};

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_STEP_RUNNER_H_
