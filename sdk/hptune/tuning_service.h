// The local hyperparameter tuning service: runs a HyperparameterTuningJob's
// study to the end, trials as CustomJobs through a TrialRunner.
//
// The loop, every poll interval:
//   1. Reads each running trial's hypertune metric file (metric_file.h) into
//      Trial.measurements (intermediate measurements).
//   2. With medianAutomatedStoppingSpec, applies MedianStoppingDecision
//      (median_stopping.h) against the SUCCEEDED trials; a trial to stop is
//      set STOPPING and its CustomJob cancelled. When that job ends the trial
//      is SUCCEEDED with its measurements so far, as Vertex AI records
//      early-stopped trials (study.proto: STOPPING "Indicates that the Trial
//      should stop according to the service"; they end SUCCEEDED).
//   3. A trial whose job ended gets its final measurement by
//      measurementSelectionType (LAST when unspecified, or BEST) and is
//      SUCCEEDED; a job that FAILED (or was cancelled by someone else), or
//      that succeeded without reporting the metric, makes the trial
//      INFEASIBLE with infeasibleReason saying why, and counts as failed.
//   4. Once maxFailedTrialCount trials failed (when > 0), the running trials
//      are cancelled and the tuning job is FAILED (error code 9
//      FAILED_PRECONDITION, the count and the last trial's reason). With 0
//      the job fails only when no trial succeeded.
//   5. Starts new trials (suggester.h, seeded) while fewer than
//      parallelTrialCount run and fewer than maxTrialCount were started.
//      Trial ids are "1", "2", ... Trial jobs come from BuildTrialJob
//      (trial_job.h): parameters as --name=value args, CLOUD_ML_TRIAL_ID, the
//      output dir <base>/<trial id>/.
// The study ends SUCCEEDED when every trial is done (maxTrialCount started,
// or a grid exhausted); CANCELLED (error code 1) after Cancel(), with the
// running trials' jobs cancelled and waited for.
#ifndef TRAINPKG_SDK_HPTUNE_TUNING_SERVICE_H_
#define TRAINPKG_SDK_HPTUNE_TUNING_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "jobspec/hyperparameter_tuning_job.h"
#include "sdk/hptune/median_stopping.h"
#include "sdk/hptune/trial_runner.h"

namespace trainpkg::sdk::hptune {

struct TuningServiceOptions {
  std::shared_ptr<TrialRunner> runner;  // required
  // Trials write to <base_output_dir>/<trial id>/ (their metric file too).
  // Required.
  std::filesystem::path base_output_dir;
  // Whether trial jobs get <base_output_dir>/<trial id>/ as their
  // baseOutputDirectory (AIP_MODEL_DIR etc.).
  bool set_trial_base_output_dir = true;
  uint64_t seed = 0;  // the suggester's seed
  absl::Duration poll_interval = absl::Milliseconds(250);
  int min_completed_trials = kDefaultMinCompletedTrials;  // median stopping
  // Called with the whole job after every change (trial started, measured,
  // finished; job state). From the thread that calls Run().
  std::function<void(const jobspec::HyperparameterTuningJob&)> on_update;
  // Polled every interval; true acts like Cancel(). nullptr: never.
  std::function<bool()> cancel_requested;
  // Study progress lines ("Trial 3 started: --lr=0.01 ..."), through
  // base::TerminalSafe (multi-line). Not owned.
  std::ostream* log_stream = nullptr;
  // The study's and trials' times and the waits between polls. Not owned;
  // must outlive the service. nullptr: base::RealClock().
  base::Clock* clock = nullptr;
};

class TuningService {
 public:
  explicit TuningService(TuningServiceOptions options);

  // Runs `job` to a terminal state and returns it (trials, state, error).
  // A FAILED or CANCELLED study is a value with `error` set. Errors:
  // InvalidArgument when the job does not pass
  // ValidateHyperparameterTuningJob or the options lack a runner or base
  // output dir. Call once.
  absl::StatusOr<jobspec::HyperparameterTuningJob> Run(jobspec::HyperparameterTuningJob job);

  // Asks Run() to stop the study; thread-safe, idempotent.
  void Cancel() { cancel_.store(true); }

 private:
  TuningServiceOptions options_;
  std::atomic<bool> cancel_{false};
};

}  // namespace trainpkg::sdk::hptune

#endif  // TRAINPKG_SDK_HPTUNE_TUNING_SERVICE_H_
