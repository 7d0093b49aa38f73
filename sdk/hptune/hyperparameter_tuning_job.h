// Running a Vertex AI HyperparameterTuningJob, the C++ counterpart of the
// Python SDK's aiplatform.HyperparameterTuningJob (run(), submit(), wait(),
// cancel()):
//
//   TP_ASSIGN_OR_RETURN(sdk::HyperparameterTuningJob job,
//                       sdk::HyperparameterTuningJob::Create(spec, {}));
//   TP_ASSIGN_OR_RETURN(jobspec::HyperparameterTuningJob done, job.Run());
//
// The study runs in this process (tuning_service.h); its trials are
// CustomJobs on the backend of `trial_options` (sdk/custom_job.h): local, or
// Slurm (each trial a Slurm job; its metric file reaches the study through
// the filesystem the nodes share, as the Slurm backend requires). Kubernetes
// is refused: a pod's metric file is not visible here. The
// tuning job is recorded in the tuning job store (tuning_job_store.h) after
// every change, so `trainpkg jobs describe/cancel <id>` work from other
// processes. When the study ends, results.json, results.svg and
// results.txt (results_table.h) are written to output_dir().
//
// With trial_options.backend = JobBackendKind::kVertex the whole tuning job
// runs on Vertex AI (or `trainpkg serve`): Submit() creates it through
// VertexClient with trial_options.vertex (the service assigns the id and
// name), a background thread polls it every poll_interval, Cancel() asks
// the service to cancel it, and Wait() returns it as the service reports it.
// Nothing is recorded locally; results are written only when
// base_output_dir is set.
#ifndef TRAINPKG_SDK_HPTUNE_HYPERPARAMETER_TUNING_JOB_H_
#define TRAINPKG_SDK_HPTUNE_HYPERPARAMETER_TUNING_JOB_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/hyperparameter_tuning_job.h"
#include "sdk/custom_job.h"
#include "sdk/hptune/trial_runner.h"

namespace trainpkg::sdk {

struct HyperparameterTuningJobOptions {
  // How trials run (backend, home, log stream, environment, seams).
  // trial_options.home is also the tuning job store's home.
  CustomJobOptions trial_options;
  // The study's output dir: trials write to <dir>/<trial id>/, results to
  // <dir>. "" means trialJobSpec.baseOutputDirectory (a local path or
  // file:// URI), else <home>/hptuning_jobs/<id>/output.
  std::filesystem::path base_output_dir;
  uint64_t seed = 0;  // the search algorithm's seed
  absl::Duration poll_interval = absl::Milliseconds(250);
  // nullptr: hptune::MakeCustomJobTrialRunner(trial_options).
  std::shared_ptr<hptune::TrialRunner> runner;
};

// A handle to one tuning job; copies share it; thread-safe. Destroying the
// last copy of a running study cancels it and waits.
class HyperparameterTuningJob {
 public:
  // Validates `job` (jobspec::ValidateHyperparameterTuningJob): InvalidArgument
  // listing every issue, for kVertex without project or location, or for
  // kK8s; FailedPrecondition when no job store home is known (kLocal, kSlurm).
  // Nothing is written or started.
  static absl::StatusOr<HyperparameterTuningJob> Create(
      jobspec::HyperparameterTuningJob job, HyperparameterTuningJobOptions options = {});

  // Submit() then Wait(). A FAILED or CANCELLED study is a value with `error`.
  absl::StatusOr<jobspec::HyperparameterTuningJob> Run();
  // Records the job (id, name, QUEUED) and starts the study in a background
  // thread (kVertex: creates it on the service). Store errors (kVertex: the
  // service's and ADC's errors); FailedPrecondition when already submitted.
  absl::Status Submit();
  // Blocks until the study is terminal. FailedPrecondition before Submit();
  // the service's errors (e.g. a suggester failure).
  absl::StatusOr<jobspec::HyperparameterTuningJob> Wait();
  // Stops the study: running trials are cancelled, the job ends CANCELLED.
  // Idempotent; no effect before Submit().
  void Cancel();

  jobspec::HyperparameterTuningJob job() const;  // as it is now
  const std::string& job_id() const;             // "" before Submit()
  std::filesystem::path output_dir() const;      // empty before Submit()

 private:
  class Impl;
  explicit HyperparameterTuningJob(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_HPTUNE_HYPERPARAMETER_TUNING_JOB_H_
