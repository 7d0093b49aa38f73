// How the tuning service runs a trial's CustomJob: a seam between the study
// loop (tuning_service.h) and the CustomJob backends, which tests replace.
#ifndef TRAINPKG_SDK_HPTUNE_TRIAL_RUNNER_H_
#define TRAINPKG_SDK_HPTUNE_TRIAL_RUNNER_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "sdk/custom_job.h"

namespace trainpkg::sdk::hptune {

// One started trial job. Destroying it stops the job if it still runs.
// Thread-safe as sdk::CustomJob is.
class RunningTrial {
 public:
  virtual ~RunningTrial() = default;
  // The job as it is now (state, times, error, name).
  virtual jobspec::CustomJob Job() const = 0;
  // Asks the job to stop (SIGTERM then SIGKILL locally; cancel on Vertex).
  // Idempotent.
  virtual void Cancel() = 0;
  // Blocks until the job is terminal.
  virtual jobspec::CustomJob Wait() = 0;
};

class TrialRunner {
 public:
  virtual ~TrialRunner() = default;
  // Creates and submits `job`. The backend's Create/Submit errors.
  virtual absl::StatusOr<std::unique_ptr<RunningTrial>> Start(const jobspec::CustomJob& job) = 0;
};

// Runs trials as sdk::CustomJob with `options` (any backend); each trial
// gets a fresh job id. options.log_stream receives the trials' state lines.
std::unique_ptr<TrialRunner> MakeCustomJobTrialRunner(CustomJobOptions options);

}  // namespace trainpkg::sdk::hptune

#endif  // TRAINPKG_SDK_HPTUNE_TRIAL_RUNNER_H_
