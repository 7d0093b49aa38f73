#include "sdk/slurm/internal/slurm_job_state.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace trainpkg::sdk::slurm::internal {
namespace {

// The value of `key`=... among the line's space-separated fields, or "".
absl::string_view Field(const std::vector<absl::string_view>& fields, absl::string_view key) {
  for (absl::string_view field : fields) {
    if (absl::ConsumePrefix(&field, key) && absl::ConsumePrefix(&field, "=")) return field;
  }
  return {};
}

bool OneOf(std::string_view state, std::initializer_list<std::string_view> states) {
  return std::find(states.begin(), states.end(), state) != states.end();
}

}  // namespace

absl::StatusOr<std::vector<SlurmComponent>> ParseScontrolJobs(std::string_view text) {
  std::vector<SlurmComponent> components;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n', absl::SkipWhitespace())) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
    SlurmComponent component{.job_id = std::string(Field(fields, "JobId")),
                             .het_offset = 0,
                             .state = std::string(Field(fields, "JobState")),
                             .reason = std::string(Field(fields, "Reason")),
                             .exit_code = std::string(Field(fields, "ExitCode"))};
    if (component.job_id.empty() || component.state.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("scontrol output line without JobId= or JobState=: ", line));
    }
    absl::string_view offset = Field(fields, "HetJobOffset");
    if (!offset.empty() && !absl::SimpleAtoi(offset, &component.het_offset)) {
      return absl::InvalidArgumentError(absl::StrCat("scontrol output: HetJobOffset=", offset));
    }
    components.push_back(std::move(component));
  }
  return components;
}

SlurmPhase PhaseOfState(std::string_view state) {
  if (OneOf(state, {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
                    "RESV_DEL_HOLD", "SPECIAL_EXIT"})) {
    return SlurmPhase::kPending;
  }
  // COMPLETING and the other transitional states: steps may still be running.
  if (OneOf(state, {"RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "RESIZING", "SIGNALING",
                    "STAGE_OUT"})) {
    return SlurmPhase::kRunning;
  }
  if (state == "COMPLETED") return SlurmPhase::kCompleted;
  if (state == "FAILED") return SlurmPhase::kFailed;
  if (state == "CANCELLED") return SlurmPhase::kCancelled;
  if (OneOf(state, {"TIMEOUT", "DEADLINE"})) return SlurmPhase::kTimedOut;
  return SlurmPhase::kOtherEnd;
}

bool IsEnded(SlurmPhase phase) {
  return phase != SlurmPhase::kPending && phase != SlurmPhase::kRunning;
}

const SlurmComponent& Leader(const std::vector<SlurmComponent>& components) {
  // The leader at offset 0 (a plain job's only component) decides; the
  // others can only keep the job running (JobPhase).
  return *std::min_element(
      components.begin(), components.end(),
      [](const SlurmComponent& a, const SlurmComponent& b) { return a.het_offset < b.het_offset; });
}

SlurmPhase JobPhase(const std::vector<SlurmComponent>& components) {
  const SlurmPhase leader = PhaseOfState(Leader(components).state);
  if (!IsEnded(leader)) return leader;
  // A heterogeneous job is over only when every component is.
  for (const SlurmComponent& component : components) {
    if (!IsEnded(PhaseOfState(component.state))) return SlurmPhase::kRunning;
  }
  return leader;
}

}  // namespace trainpkg::sdk::slurm::internal
