// JobState from google/cloud/aiplatform/v1/job_state.proto, with the proto's
// numbers, so JSON may carry either the name or the number.
#ifndef TRAINPKG_JOBSPEC_JOB_STATE_H_
#define TRAINPKG_JOBSPEC_JOB_STATE_H_

#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::jobspec {

enum class JobState {
  kUnspecified = 0,
  kQueued = 1,
  kPending = 2,
  kRunning = 3,
  kSucceeded = 4,
  kFailed = 5,
  kCancelling = 6,
  kCancelled = 7,
  kPaused = 8,
  kExpired = 9,
  kUpdating = 10,
  kPartiallySucceeded = 11,
};

// "JOB_STATE_RUNNING" etc. Never fails for a declared enumerator.
std::string_view JobStateName(JobState state);

// Accepts the full name ("JOB_STATE_RUNNING"), the short name ("RUNNING", any
// case) or the proto number as text ("3"). InvalidArgument otherwise, listing
// the valid names.
absl::StatusOr<JobState> ParseJobState(std::string_view text);

// Accepts a proto enum number. InvalidArgument for numbers not in the enum.
absl::StatusOr<JobState> JobStateFromNumber(int number);

// SUCCEEDED, FAILED, CANCELLED, EXPIRED, PARTIALLY_SUCCEEDED: the job will not
// change state again.
bool IsTerminal(JobState state);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_JOB_STATE_H_
