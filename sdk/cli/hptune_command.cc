#include "sdk/cli/hptune_command.h"

#include <filesystem>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "base/environment.h"
#include "base/terminal_text.h"
#include "fmt/format.h"
#include "jobspec/hyperparameter_tuning_job_file.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/signal_watcher.h"
#include "sdk/hptune/hyperparameter_tuning_job.h"
#include "sdk/hptune/results_table.h"

namespace trainpkg::cli {
namespace {

// "trainpkg hptune: <message>", the message through base::TerminalSafe.
std::string ErrorLine(std::string_view message) {
  return fmt::format("trainpkg hptune: {}\n",
                     base::TerminalSafe(message, base::TextLayout::kMultiLine));
}

}  // namespace

CLI::App* AddHptuneCommand(CLI::App& app, HptuneFlags& flags) {
  CLI::App* command =
      app.add_subcommand("hptune",
                         "Run a hyperparameter tuning job locally, on Slurm or on Vertex AI; "
                         "trials get --<parameterId>=<value>.");
  command->add_option("--config", flags.config, "Tuning job file (YAML or JSON)")->required();
  command->footer(
      "Examples:\n"
      "  trainpkg hptune --config samples/hptune_digits/study.yaml --base-output-dir /tmp/study\n"
      "  trainpkg hptune --config study.yaml --backend vertex --project my-project "
      "--region us-central1");
  command->add_option("--base-output-dir", flags.base_output_dir,
                      "Study output dir: trials in <dir>/<trial id>/, results.* in <dir>");
  command->add_option("--seed", flags.seed, "Seed of the search algorithm");
  command->add_flag("--quiet", flags.quiet, "Do not stream the trials' output");
  AddBackendFlags(*command, flags.backend, BackendSet::kTuning);
  return command;
}

int HptuneCommand(const HptuneFlags& flags, std::ostream& out, std::ostream& err) {
  BlockTerminationSignals();
  absl::StatusOr<jobspec::HyperparameterTuningJob> spec =
      jobspec::LoadHyperparameterTuningJobFile(flags.config);
  if (!spec.ok()) {
    err << ErrorLine(std::string(spec.status().message()));
    return kExitUsage;
  }
  sdk::HyperparameterTuningJobOptions options;
  if (absl::Status status = ApplyBackendFlags(flags.backend, base::ProcessEnvironment(),
                                              options.trial_options, BackendSet::kTuning);
      !status.ok()) {
    err << ErrorLine(std::string(status.message()));
    return kExitUsage;
  }
  options.trial_options.log_stream = &out;
  options.trial_options.stream_replica_output = !flags.quiet;
  options.base_output_dir = flags.base_output_dir;
  if (!options.base_output_dir.empty()) {
    options.base_output_dir = std::filesystem::absolute(options.base_output_dir);
  }
  options.seed = flags.seed;
  absl::StatusOr<sdk::HyperparameterTuningJob> job =
      sdk::HyperparameterTuningJob::Create(*std::move(spec), options);
  if (!job.ok()) {
    err << ErrorLine(absl::StrCat(flags.config, ": ", job.status().message()));
    return kExitUsage;
  }
  if (absl::Status status = job->Submit(); !status.ok()) {
    err << ErrorLine(std::string(status.message()));
    return kExitFailed;
  }
  out << "HyperparameterTuningJob created: " << base::TerminalSafe(job->job().name) << "\n";
  if (!job->output_dir().empty()) out << "Output: " << job->output_dir().string() << "\n";
  out << std::flush;
  absl::StatusOr<jobspec::HyperparameterTuningJob> done;
  {
    SignalWatcher watcher([&job](int, int) { job->Cancel(); });
    done = job->Wait();
  }
  if (!done.ok()) {
    err << ErrorLine(std::string(done.status().message()));
    return kExitFailed;
  }
  out << "\n" << sdk::hptune::FormatResultsTable(*done);
  if (!job->output_dir().empty()) {
    out << "Results: " << (job->output_dir() / "results.json").string() << "\n";
  }
  out << "HyperparameterTuningJob " << jobspec::JobStateName(done->state) << "\n";
  if (done->error) err << ErrorLine(done->error->message);
  switch (done->state) {
    case jobspec::JobState::kSucceeded:
      return kExitOk;
    case jobspec::JobState::kCancelled:
      return kExitCancelled;
    default:
      return kExitFailed;
  }
}

}  // namespace trainpkg::cli
