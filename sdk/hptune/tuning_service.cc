#include "sdk/hptune/tuning_service.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/clock.h"
#include "base/status_macros.h"
#include "base/terminal_text.h"
#include "fmt/format.h"
#include "jobspec/hyperparameter_tuning_job_validation.h"
#include "sdk/hptune/metric_file.h"
#include "sdk/hptune/suggester.h"
#include "sdk/hptune/trial_args.h"
#include "sdk/hptune/trial_job.h"

namespace trainpkg::sdk::hptune {
namespace {

// google.rpc.Code values: the job's error is a google.rpc.Status.
constexpr int32_t kCancelledCode = 1;
constexpr int32_t kFailedPreconditionCode = 9;

struct ActiveTrial {
  size_t index = 0;  // into job.trials
  std::unique_ptr<RunningTrial> run;
  bool stopping = false;
};

// One Run(): the study's state between polls.
class Study {
 public:
  Study(const TuningServiceOptions& options, jobspec::HyperparameterTuningJob job,
        std::unique_ptr<Suggester> suggester)
      : options_(options),
        clock_(options.clock != nullptr ? *options.clock : base::RealClock()),
        job_(std::move(job)),
        suggester_(std::move(suggester)) {
    const jobspec::MetricSpec& metric = job_.study_spec.metrics.front();
    metric_id_ = metric.metric_id;
    goal_ = jobspec::EffectiveGoal(metric);
  }

  jobspec::HyperparameterTuningJob Run(const std::atomic<bool>& cancel) {
    job_.trials.clear();
    job_.state = jobspec::JobState::kRunning;
    job_.start_time = Now();
    Update();
    bool exhausted = false;
    while (true) {
      if (cancel.load() || (options_.cancel_requested && options_.cancel_requested())) {
        StopAll("the tuning job was cancelled");
        return Finish(jobspec::JobState::kCancelled, kCancelledCode, "CANCELLED");
      }
      PollActive();
      if (TooManyFailures()) {
        StopAll("the tuning job failed");
        return Finish(jobspec::JobState::kFailed, kFailedPreconditionCode,
                      fmt::format("{} trials failed, which reached maxFailedTrialCount {}. "
                                  "The last failure: {}",
                                  failed_, job_.max_failed_trial_count, last_failure_));
      }
      if (!exhausted) exhausted = !StartTrials();
      if (active_.empty() &&
          (exhausted || static_cast<int32_t>(job_.trials.size()) >= job_.max_trial_count)) {
        break;
      }
      Sleep();
    }
    const bool any_succeeded = std::any_of(
        job_.trials.begin(), job_.trials.end(),
        [](const jobspec::Trial& trial) { return trial.state == jobspec::TrialState::kSucceeded; });
    if (!any_succeeded) {
      return Finish(jobspec::JobState::kFailed, kFailedPreconditionCode,
                    fmt::format("No trial succeeded ({} failed). The last failure: {}", failed_,
                                last_failure_.empty() ? "none" : last_failure_));
    }
    return Finish(jobspec::JobState::kSucceeded, 0, "");
  }

 private:
  absl::Time Now() const { return clock_.Now(); }
  void Sleep() const { clock_.SleepFor(options_.poll_interval); }
  void Update() {
    job_.update_time = Now();
    if (options_.on_update) options_.on_update(job_);
  }
  void Log(const std::string& line) const {
    if (options_.log_stream != nullptr) {
      *options_.log_stream << base::TerminalSafe(line, base::TextLayout::kMultiLine) << std::endl;
    }
  }

  bool TooManyFailures() const {
    return job_.max_failed_trial_count > 0 && failed_ >= job_.max_failed_trial_count;
  }

  std::filesystem::path TrialDirOf(const jobspec::Trial& trial) const {
    return TrialDir(options_.base_output_dir, trial.id);
  }

  // Starts trials up to the parallel and total budgets. False when the
  // suggester has no more points (grid exhausted).
  bool StartTrials() {
    const int free_slots = job_.parallel_trial_count - static_cast<int>(active_.size());
    const int remaining = job_.max_trial_count - static_cast<int>(job_.trials.size());
    const int count = std::min(free_slots, remaining);
    if (count <= 0) return true;
    absl::StatusOr<std::vector<TrialParameters>> points = suggester_->Suggest(History(), count);
    if (!points.ok()) {
      last_failure_ =
          fmt::format("the search algorithm failed: {}", std::string(points.status().message()));
      Log(last_failure_);  // no more trials start; the study ends with the running ones
      return false;
    }
    for (TrialParameters& parameters : *points) StartTrial(std::move(parameters));
    return !points->empty();
  }

  void StartTrial(TrialParameters parameters) {
    jobspec::Trial trial;
    // Vertex's trial ids: decimal strings from "1".
    trial.id = std::to_string(job_.trials.size() + 1);
    trial.state = jobspec::TrialState::kRequested;
    trial.parameters = std::move(parameters);
    trial.start_time = Now();
    job_.trials.push_back(trial);
    const size_t index = job_.trials.size() - 1;
    absl::StatusOr<jobspec::CustomJob> custom_job =
        BuildTrialJob(job_, trial, TrialDirOf(trial), options_.set_trial_base_output_dir);
    absl::StatusOr<std::unique_ptr<RunningTrial>> run =
        custom_job.ok() ? options_.runner->Start(*custom_job)
                        : absl::StatusOr<std::unique_ptr<RunningTrial>>(custom_job.status());
    if (!run.ok()) {
      FailTrial(job_.trials[index], fmt::format("the trial's CustomJob could not start: {}",
                                                std::string(run.status().message())));
      Update();
      return;
    }
    jobspec::Trial& started = job_.trials[index];
    started.state = jobspec::TrialState::kActive;
    started.custom_job = (*run)->Job().name;
    absl::StatusOr<std::vector<std::string>> args = TrialArgs(job_.study_spec, started.parameters);
    Log(fmt::format("Trial {} started ({}): {}", started.id, started.custom_job,
                    args.ok() ? absl::StrJoin(*args, " ") : std::string()));
    active_.push_back({.index = index, .run = *std::move(run), .stopping = false});
    Update();
  }

  std::vector<Observation> History() const {
    std::vector<Observation> history;
    for (const jobspec::Trial& trial : job_.trials) {
      Observation observation;
      observation.parameters = trial.parameters;
      // Running trials go to the suggester as pending points, so parallel
      // suggestions do not all land on the same spot.
      observation.pending = trial.state == jobspec::TrialState::kActive ||
                            trial.state == jobspec::TrialState::kRequested ||
                            trial.state == jobspec::TrialState::kStopping;
      if (trial.state == jobspec::TrialState::kSucceeded && trial.final_measurement) {
        observation.objective = jobspec::MetricValue(*trial.final_measurement, metric_id_);
      }
      history.push_back(std::move(observation));
    }
    return history;
  }

  void ReadMeasurements(jobspec::Trial& trial) {
    absl::StatusOr<std::vector<jobspec::Measurement>> measurements =
        ReadHypertuneMetrics(TrialMetricFile(TrialDirOf(trial)), metric_id_, trial.start_time);
    if (!measurements.ok()) {
      Log(fmt::format("Trial {}: {}", trial.id, std::string(measurements.status().message())));
      return;
    }
    if (*measurements != trial.measurements) {
      trial.measurements = *std::move(measurements);
      Update();
    }
  }

  void MaybeStop(ActiveTrial& active) {
    if (!job_.study_spec.median_automated_stopping_spec || active.stopping) return;
    const bool elapsed = job_.study_spec.median_automated_stopping_spec->use_elapsed_duration;
    std::vector<Curve> completed;
    for (const jobspec::Trial& trial : job_.trials) {
      if (trial.state == jobspec::TrialState::kSucceeded) {
        completed.push_back(CurveFromMeasurements(trial.measurements, metric_id_, elapsed));
      }
    }
    jobspec::Trial& trial = job_.trials[active.index];
    const StoppingDecision decision =
        MedianStoppingDecision(CurveFromMeasurements(trial.measurements, metric_id_, elapsed),
                               completed, goal_, options_.min_completed_trials);
    if (!decision.stop) return;
    Log(fmt::format("Trial {} stopped early: {}", trial.id, decision.reason));
    trial.state = jobspec::TrialState::kStopping;
    active.stopping = true;
    active.run->Cancel();
    Update();
  }

  void FailTrial(jobspec::Trial& trial, std::string reason) {
    trial.state = jobspec::TrialState::kInfeasible;
    trial.infeasible_reason = std::move(reason);
    trial.end_time = Now();
    ++failed_;
    last_failure_ = fmt::format("trial {}: {}", trial.id, trial.infeasible_reason);
    Log(fmt::format("Trial {} failed: {}", trial.id, trial.infeasible_reason));
  }

  void FinishTrial(ActiveTrial& active, const jobspec::CustomJob& custom_job) {
    jobspec::Trial& trial = job_.trials[active.index];
    ReadMeasurements(trial);
    // A trial the stopping rule cancelled still counts: its measurements are
    // what it reached.
    const bool ran_to_end = custom_job.state == jobspec::JobState::kSucceeded ||
                            (active.stopping && custom_job.state == jobspec::JobState::kCancelled);
    if (!ran_to_end) {
      FailTrial(trial, custom_job.error ? custom_job.error->message
                                        : fmt::format("the trial's CustomJob ended {}",
                                                      jobspec::JobStateName(custom_job.state)));
      return;
    }
    trial.final_measurement = SelectFinalMeasurement(
        trial.measurements, metric_id_, job_.study_spec.measurement_selection_type, goal_);
    if (!trial.final_measurement) {
      FailTrial(trial, fmt::format("the trial reported no value of metric \"{}\" to {} "
                                   "(report it with HypertuneReporter or cloudml-hypertune)",
                                   metric_id_, TrialMetricFile(TrialDirOf(trial)).string()));
      return;
    }
    trial.state = jobspec::TrialState::kSucceeded;
    trial.end_time = Now();
    Log(fmt::format("Trial {} succeeded: {} = {}", trial.id, metric_id_,
                    *jobspec::MetricValue(*trial.final_measurement, metric_id_)));
  }

  void PollActive() {
    for (auto it = active_.begin(); it != active_.end();) {
      ReadMeasurements(job_.trials[it->index]);
      MaybeStop(*it);
      const jobspec::CustomJob custom_job = it->run->Job();
      if (!jobspec::IsTerminal(custom_job.state)) {
        ++it;
        continue;
      }
      FinishTrial(*it, custom_job);
      it = active_.erase(it);
      Update();
    }
  }

  // Cancels every running trial and waits for their jobs.
  void StopAll(std::string_view why) {
    for (ActiveTrial& active : active_) active.run->Cancel();
    for (ActiveTrial& active : active_) {
      (void)active.run->Wait();
      jobspec::Trial& trial = job_.trials[active.index];
      ReadMeasurements(trial);
      trial.state = jobspec::TrialState::kInfeasible;
      trial.infeasible_reason = fmt::format("stopped because {}", why);
      trial.end_time = Now();
    }
    active_.clear();
  }

  jobspec::HyperparameterTuningJob Finish(jobspec::JobState state, int32_t code,
                                          std::string message) {
    job_.state = state;
    if (code != 0) job_.error = jobspec::RpcStatus{.code = code, .message = std::move(message)};
    job_.end_time = Now();
    Update();
    return job_;
  }

  const TuningServiceOptions& options_;
  base::Clock& clock_;
  jobspec::HyperparameterTuningJob job_;
  std::unique_ptr<Suggester> suggester_;
  std::string metric_id_;
  jobspec::GoalType goal_ = jobspec::GoalType::kMaximize;
  std::vector<ActiveTrial> active_;
  int failed_ = 0;
  std::string last_failure_;
};

}  // namespace

TuningService::TuningService(TuningServiceOptions options) : options_(std::move(options)) {}

absl::StatusOr<jobspec::HyperparameterTuningJob> TuningService::Run(
    jobspec::HyperparameterTuningJob job) {
  if (options_.runner == nullptr || options_.base_output_dir.empty()) {
    return absl::InvalidArgumentError(
        "TuningServiceOptions: runner and base_output_dir are required");
  }
  TP_RETURN_IF_ERROR(jobspec::ValidateHyperparameterTuningJob(job));
  TP_ASSIGN_OR_RETURN(std::unique_ptr<Suggester> suggester,
                      MakeSuggester(job.study_spec, options_.seed, job.max_trial_count));
  Study study(options_, std::move(job), std::move(suggester));
  return study.Run(cancel_);
}

}  // namespace trainpkg::sdk::hptune
