#include "sdk/cli/job_id_resolver.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "base/terminal_text.h"

namespace trainpkg::cli {
namespace {

constexpr std::string_view kLatest = "latest";

// Every id of both stores, with its create time (nullopt when unreadable).
struct Known {
  std::string id;
  std::optional<absl::Time> create_time;
};

absl::StatusOr<std::vector<Known>> AllJobs(const sdk::JobStore& jobs,
                                           const sdk::hptune::TuningJobStore& tuning_jobs,
                                           bool with_times) {
  std::vector<Known> all;
  TP_ASSIGN_OR_RETURN(std::vector<std::string> ids, jobs.ListJobIds());
  for (std::string& id : ids) {
    Known known{.id = std::move(id), .create_time = std::nullopt};
    if (with_times) {
      if (auto job = jobs.ReadJob(known.id); job.ok()) known.create_time = job->create_time;
    }
    all.push_back(std::move(known));
  }
  TP_ASSIGN_OR_RETURN(std::vector<std::string> tuning_ids, tuning_jobs.ListJobIds());
  for (std::string& id : tuning_ids) {
    Known known{.id = std::move(id), .create_time = std::nullopt};
    if (with_times) {
      if (auto job = tuning_jobs.ReadJob(known.id); job.ok()) known.create_time = job->create_time;
    }
    all.push_back(std::move(known));
  }
  return all;
}

}  // namespace

absl::StatusOr<std::string> ResolveJobId(const sdk::JobStore& jobs,
                                         const sdk::hptune::TuningJobStore& tuning_jobs,
                                         std::string_view text) {
  if (text.empty()) {
    return absl::InvalidArgumentError(
        "the job id is empty; give an id, a prefix of one, or latest");
  }
  const bool latest = text == kLatest;
  // An exact id wins, found without listing the stores (a name, not a path).
  if (!latest && text != "." && text != ".." && text.find('/') == std::string_view::npos) {
    std::error_code ec;
    if (std::filesystem::exists(jobs.JobFile(text), ec)) return std::string(text);
  }
  // Create times only for "latest": every other lookup reads no job file.
  TP_ASSIGN_OR_RETURN(std::vector<Known> all, AllJobs(jobs, tuning_jobs, latest));
  for (const Known& known : all) {
    // An exact id wins even when it is also the prefix of a longer one.
    if (known.id == text) return known.id;
  }
  if (latest) {
    const Known* newest = nullptr;
    for (const Known& known : all) {
      if (newest == nullptr || known.create_time.value_or(absl::InfinitePast()) >
                                   newest->create_time.value_or(absl::InfinitePast())) {
        newest = &known;
      }
    }
    if (newest == nullptr) return absl::NotFoundError("latest: there are no jobs yet");
    return newest->id;
  }
  std::vector<std::string> candidates;
  for (const Known& known : all) {
    if (std::string_view(known.id).starts_with(text)) candidates.push_back(known.id);
  }
  if (candidates.empty()) {
    return absl::NotFoundError(absl::StrCat("no job has an id starting with \"",
                                            base::TerminalSafe(std::string(text)),
                                            "\" (trainpkg jobs list shows the ids)"));
  }
  if (candidates.size() == 1) return candidates.front();
  std::sort(candidates.begin(), candidates.end());
  const size_t more =
      candidates.size() > kMaxNamedCandidates ? candidates.size() - kMaxNamedCandidates : 0;
  candidates.resize(candidates.size() - more);
  return absl::InvalidArgumentError(
      absl::StrCat("job id prefix \"", base::TerminalSafe(std::string(text)),
                   "\" is ambiguous: ", absl::StrJoin(candidates, ", "),
                   more > 0 ? absl::StrCat(" and ", more, " more") : "", "; give more digits"));
}

}  // namespace trainpkg::cli
