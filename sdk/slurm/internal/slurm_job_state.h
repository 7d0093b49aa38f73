// A Slurm job's state as `scontrol show job -o <id>` reports it (one line
// per component of a heterogeneous job), and what it means for ours:
//
//   Slurm JobState                                       ours
//   PENDING CONFIGURING REQUEUED REQUEUE_* RESV_DEL_HOLD  PENDING
//   SPECIAL_EXIT
//   RUNNING COMPLETING SUSPENDED STOPPED RESIZING         RUNNING (CANCELLING once cancel was
//   asked) SIGNALING STAGE_OUT COMPLETED                                             SUCCEEDED
//   FAILED                                                FAILED, naming the replica that failed
//   first CANCELLED                                             CANCELLED TIMEOUT DEADLINE FAILED,
//   code 4 (scheduling.timeout) NODE_FAIL BOOT_FAIL OUT_OF_MEMORY PREEMPTED REVOKED   FAILED, code
//   13, with Slurm's state and reason
//
// The job is terminal once every component is (Slurm shows COMPLETING
// while processes of the job are still being killed).
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_SLURM_JOB_STATE_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_SLURM_JOB_STATE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::sdk::slurm::internal {

struct SlurmComponent {
  std::string job_id;     // JobId=
  int het_offset = 0;     // HetJobOffset=; 0 for a plain job
  std::string state;      // JobState=, e.g. "RUNNING"
  std::string reason;     // Reason=, e.g. "Resources", "None"
  std::string exit_code;  // ExitCode=, "<code>:<signal>"
};

// One component per non-empty line. InvalidArgument when a line lacks
// JobId= or JobState=.
absl::StatusOr<std::vector<SlurmComponent>> ParseScontrolJobs(std::string_view text);

enum class SlurmPhase {
  kPending,
  kRunning,
  kCompleted,
  kFailed,
  kCancelled,
  kTimedOut,
  kOtherEnd,  // NODE_FAIL, BOOT_FAIL, OUT_OF_MEMORY, PREEMPTED, REVOKED, unknown states
};

SlurmPhase PhaseOfState(std::string_view state);
bool IsEnded(SlurmPhase phase);

// The job's phase: the leader's (het offset 0), but kRunning while any
// component has not ended. REQUIRES: components non-empty.
SlurmPhase JobPhase(const std::vector<SlurmComponent>& components);
// The leader component. REQUIRES: components non-empty.
const SlurmComponent& Leader(const std::vector<SlurmComponent>& components);

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_SLURM_JOB_STATE_H_
