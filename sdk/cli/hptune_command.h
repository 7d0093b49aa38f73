// `trainpkg hptune --config study.yaml [--base-output-dir DIR] [--seed N]
//  [--backend local|vertex --project P --region R [--endpoint URL]]`:
// runs a HyperparameterTuningJob (sdk/hptune/hyperparameter_tuning_job.h)
// locally, or creates it on Vertex AI / `trainpkg serve` and polls it.
// Trials are local CustomJobs; each trial's parameters reach its trainer as
// `--<parameterId>=<value>` appended to every worker pool's args
// (sdk/hptune/trial_args.h), with CLOUD_ML_TRIAL_ID set and the output dir
// <base>/<trial id>/. Prints progress, then the results table sorted by the
// metric and the best trial; writes results.json, results.svg and
// results.txt to the study's output dir.
#ifndef TRAINPKG_SDK_CLI_HPTUNE_COMMAND_H_
#define TRAINPKG_SDK_CLI_HPTUNE_COMMAND_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "sdk/cli/backend_flags.h"

namespace trainpkg::cli {

struct HptuneFlags {
  std::string config;           // the tuning job file (jobspec/hyperparameter_tuning_job_file.h)
  std::string base_output_dir;  // "" : trialJobSpec.baseOutputDirectory, else in the job store
  uint64_t seed = 0;
  bool quiet = false;  // no replica output
  BackendFlags backend;
};

CLI::App* AddHptuneCommand(CLI::App& app, HptuneFlags& flags);

// Returns 0 SUCCEEDED, 1 FAILED, 130 CANCELLED (Ctrl-C cancels the study and
// its running trials), 2 when the file is invalid and nothing ran. Must run
// before any other thread is started (it blocks SIGINT/SIGTERM).
int HptuneCommand(const HptuneFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_HPTUNE_COMMAND_H_
