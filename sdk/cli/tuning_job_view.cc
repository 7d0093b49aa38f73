#include "sdk/cli/tuning_job_view.h"

#include <algorithm>

#include "base/terminal_text.h"
#include "fmt/format.h"
#include "jobspec/hyperparameter_tuning_job_json.h"
#include "sdk/hptune/results_table.h"

namespace trainpkg::cli {

using base::TerminalSafe;
using base::TextLayout;

std::string FormatTuningJobDescription(const jobspec::HyperparameterTuningJob& job) {
  std::string text =
      TerminalSafe(jobspec::FormatHyperparameterTuningJobJson(job), TextLayout::kJson) +
      "\n\nTrials:\n";
  text += sdk::hptune::FormatResultsTable(job);
  for (const jobspec::Trial& trial : job.trials) {
    const size_t slash = trial.custom_job.rfind('/');
    text +=
        fmt::format("trial {}: CustomJob {}\n", TerminalSafe(trial.id),
                    TerminalSafe(slash == std::string::npos ? trial.custom_job
                                                            : trial.custom_job.substr(slash + 1)));
  }
  return text;
}

std::string FormatTuningJobTable(const std::vector<jobspec::HyperparameterTuningJob>& jobs) {
  if (jobs.empty()) return "";
  std::vector<std::vector<std::string>> rows = {{"ID", "DISPLAY NAME", "STATE", "TRIALS"}};
  for (const jobspec::HyperparameterTuningJob& job : jobs) {
    const size_t slash = job.name.rfind('/');
    const auto finished = std::count_if(job.trials.begin(), job.trials.end(), [](const auto& t) {
      return t.state == jobspec::TrialState::kSucceeded ||
             t.state == jobspec::TrialState::kInfeasible;
    });
    std::string state(jobspec::JobStateName(job.state));
    if (state.rfind("JOB_STATE_", 0) == 0) state = state.substr(10);
    rows.push_back(
        {TerminalSafe(slash == std::string::npos ? job.name : job.name.substr(slash + 1)),
         TerminalSafe(job.display_name), state,
         fmt::format("{}/{} of {}", finished, job.trials.size(), job.max_trial_count)});
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string text = "\nTuning jobs:\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      text += i + 1 == row.size() ? row[i] + "\n" : fmt::format("{:<{}}  ", row[i], widths[i]);
    }
  }
  return text;
}

}  // namespace trainpkg::cli
