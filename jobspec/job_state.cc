#include "jobspec/job_state.h"

#include <array>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace trainpkg::jobspec {
namespace {

constexpr std::array<std::pair<JobState, std::string_view>, 12> kNames = {{
    {JobState::kUnspecified, "JOB_STATE_UNSPECIFIED"},
    {JobState::kQueued, "JOB_STATE_QUEUED"},
    {JobState::kPending, "JOB_STATE_PENDING"},
    {JobState::kRunning, "JOB_STATE_RUNNING"},
    {JobState::kSucceeded, "JOB_STATE_SUCCEEDED"},
    {JobState::kFailed, "JOB_STATE_FAILED"},
    {JobState::kCancelling, "JOB_STATE_CANCELLING"},
    {JobState::kCancelled, "JOB_STATE_CANCELLED"},
    {JobState::kPaused, "JOB_STATE_PAUSED"},
    {JobState::kExpired, "JOB_STATE_EXPIRED"},
    {JobState::kUpdating, "JOB_STATE_UPDATING"},
    {JobState::kPartiallySucceeded, "JOB_STATE_PARTIALLY_SUCCEEDED"},
}};

constexpr std::string_view kPrefix = "JOB_STATE_";

}  // namespace

std::string_view JobStateName(JobState state) {
  for (const auto& [value, name] : kNames) {
    if (value == state) return name;
  }
  return "JOB_STATE_UNSPECIFIED";
}

absl::StatusOr<JobState> JobStateFromNumber(int number) {
  for (const auto& [value, name] : kNames) {
    if (static_cast<int>(value) == number) return value;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown JobState number ", number, "; valid numbers are 0 to 11"));
}

absl::StatusOr<JobState> ParseJobState(std::string_view text) {
  int number = 0;
  if (absl::SimpleAtoi(std::string(text), &number)) return JobStateFromNumber(number);
  std::string upper = absl::AsciiStrToUpper(std::string(text));
  for (const auto& [value, name] : kNames) {
    if (upper == name || upper == name.substr(kPrefix.size())) return value;
  }
  std::vector<std::string> valid;
  for (const auto& entry : kNames) valid.emplace_back(entry.second);
  return absl::InvalidArgumentError(absl::StrCat("unknown job state '", std::string(text),
                                                 "'; valid states: ", absl::StrJoin(valid, ", ")));
}

bool IsTerminal(JobState state) {
  switch (state) {
    case JobState::kSucceeded:
    case JobState::kFailed:
    case JobState::kCancelled:
    case JobState::kExpired:
    case JobState::kPartiallySucceeded:
      return true;
    default:
      return false;
  }
}

}  // namespace trainpkg::jobspec
